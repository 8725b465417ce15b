#!/usr/bin/env bash
# padtune merge as a user runs it: the Slurm template (with a stand-in srun) tunes two shards on the
# host backend and merges their caches; then tables of two device models are refused (exit 3,
# naming both) or kept apart with --by-device; corrupt and missing inputs are refused, and a refused
# merge leaves the output as it was; an output already there keeps what the merge does not cover.
# Usage: merge.sh PADTUNE SCRATCH_DIR
set -uo pipefail
padtune=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$dir" && mkdir -p "$dir/bin"
ln -s "$here/fake_srun.sh" "$dir/bin/srun"
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE NAME COMMAND...: runs it, output in $dir/NAME.out; fails unless it exits with CODE.
expect() {
  local code=$1 name=$2
  shift 2
  "$@" > "$dir/$name.out" 2>&1
  local rc=$?
  [ "$rc" -eq "$code" ] || { cat "$dir/$name.out"; fail "$name: exit $rc, expected $code"; }
}

expect 0 slurm env PATH="$dir/bin:$PATH" PADTUNE_SLURM_MODE=shards PADTUNE="$padtune" RESULTS="$dir/results" WORK="$dir/work" \
  "$here/../../scripts/slurm-tune.sbatch" --backend host --dtype f32 --filter '__(rowtile|flat)__bo1024__t256__w16$'
table=$dir/results/host-emulation.json
[ -f "$table" ] && [ -f "$dir/results/host-emulation.cache.jsonl" ] || fail "the merged table and cache are missing"
[ -f "$dir/work/shard-0/host-emulation.cache.jsonl" ] && [ -f "$dir/work/shard-1/host-emulation.cache.jsonl" ] ||
  fail "two shards' caches expected"
grep -q -- '--shard 0/2' "$dir/work/shard-0/host-emulation.json" || fail "shard 0 did not tune with --shard 0/2"
# Each shard measured part of the small sweep (6 shapes); the merged cache holds every line of both.
lines() { tail -n +2 "$1" | wc -l; }
n0=$(lines "$dir/work/shard-0/host-emulation.cache.jsonl") n1=$(lines "$dir/work/shard-1/host-emulation.cache.jsonl")
[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] && [ "$(lines "$dir/results/host-emulation.cache.jsonl")" -eq $((n0 + n1)) ] ||
  fail "the merged cache does not hold both shards' lines ($n0 + $n1)"
expect 0 show "$padtune" show "$table"
expect 0 explain "$padtune" explain --backend host --results "$table" --shape 2,8,4096,3,5 --dtype f32
grep -q "host-emulation.json" "$dir/explain.out" || fail "the dispatcher did not take the merged table"

# The same table claimed by another model: refused without --by-device, naming both files and devices.
other=$dir/other.json
sed -e 's/"name": *"host emulation[^"]*"/"name": "NVIDIA Test GPU"/' -e 's/"backend": *"host"/"backend": "cuda"/g' "$table" > "$other"
grep -q 'NVIDIA Test GPU' "$other" || fail "could not make a table of another device"
echo "an older table" > "$dir/out.json"
expect 3 refused "$padtune" merge "$table" "$other" -o "$dir/out.json"
grep -q "$table" "$dir/refused.out" && grep -q "$other" "$dir/refused.out" && grep -q "NVIDIA Test GPU" "$dir/refused.out" ||
  fail "the refusal does not name both files and devices: $(cat "$dir/refused.out")"
[ "$(cat "$dir/out.json")" = "an older table" ] || fail "a refused merge changed the output"
expect 0 by_device "$padtune" merge "$table" "$other" --by-device --output-dir "$dir/by-device"
[ "$(ls "$dir/by-device" | grep -vc '\.lock$')" -eq 2 ] || fail "--by-device should write two tables: $(ls "$dir/by-device")"
[ -f "$dir/by-device/nvidia-test-gpu.json" ] && [ -f "$dir/by-device/host-emulation.json" ] || fail "--by-device file names"
# Two host emulations on different CPUs share the file name host-emulation.json: refused, not overwritten.
sed 's/"name": *"host emulation[^"]*"/"name": "host emulation on another CPU"/' "$table" > "$dir/other-cpu.json"
expect 3 same_slug "$padtune" merge "$table" "$dir/other-cpu.json" --by-device --output-dir "$dir/same-slug"
grep -q "would both be written" "$dir/same_slug.out" && [ ! -e "$dir/same-slug" ] || fail "a slug clash was not refused cleanly"
expect 2 by_device_needs_dir "$padtune" merge "$table" "$other" --by-device -o "$dir/x.json"
expect 2 no_output "$padtune" merge "$table"

# Bad inputs: nothing is written.
cache=$dir/results/host-emulation.cache.jsonl
{ head -n 2 "$cache"; echo '{"id": 3}'; tail -n +3 "$cache"; } > "$dir/corrupt.cache.jsonl"
expect 3 corrupt "$padtune" merge "$cache" "$dir/corrupt.cache.jsonl" -o "$dir/new.json"
grep -q "corrupt.cache.jsonl:3: corrupt line" "$dir/corrupt.out" || fail "no file:line in: $(cat "$dir/corrupt.out")"
expect 3 missing "$padtune" merge "$table" "$dir/nonexistent.json" -o "$dir/new.json"
grep -q "nonexistent.json: cannot be opened" "$dir/missing.out" || fail "the missing file is not named"
[ ! -e "$dir/new.json" ] || fail "a refused merge wrote its output"
[ -z "$(ls -A "$dir" | grep '\.tmp\.')" ] || fail "a temporary file was left behind"
expect 2 bad_shard "$padtune" tune --backend host --shard 2/2

# An output that exists and is no input is the user's (probe A28, A29): a table of another device
# model there is refused (exit 3, naming both); one of this model keeps every entry the merge does
# not cover; a cache there is merged in as one more input.
entries() { python3 -c "import json, sys; print(sorted(tuple(e['shape']) for e in json.load(open(sys.argv[1]))['entries']))" "$1"; }
cp "$other" "$dir/foreign.json"
expect 3 over_foreign "$padtune" merge "$table" -o "$dir/foreign.json"
grep -q "is a table of NVIDIA Test GPU" "$dir/over_foreign.out" && grep -q "this merge writes host emulation" "$dir/over_foreign.out" ||
  fail "the refusal does not name both devices: $(cat "$dir/over_foreign.out")"
cmp -s "$other" "$dir/foreign.json" || fail "merge -o replaced a table of another device"
mkdir -p "$dir/keep/dir"
tune=(tune --backend host --dtype f32 --filter '__(rowtile|flat)__bo1024__t256__w16$')
for n in 10 12 16; do
  echo "2 3 $n 2 1" > "$dir/keep/s$n.txt"
  expect 0 "keep_tune$n" "$padtune" "${tune[@]}" --sizes "$dir/keep/s$n.txt" --table "$dir/keep/t$n.json" --cache "$dir/keep/c$n.jsonl"
done
cp "$dir/keep/t16.json" "$dir/keep/out.json"
expect 0 keep_o "$padtune" merge "$dir/keep/t10.json" "$dir/keep/t12.json" -o "$dir/keep/out.json"
[ "$(entries "$dir/keep/out.json")" = "[(2, 3, 10, 2, 1), (2, 3, 12, 2, 1), (2, 3, 16, 2, 1)]" ] ||
  fail "merge -o dropped the entry of the table that was there: $(entries "$dir/keep/out.json")"
grep -q "kept 1 entry of the table that was there" "$dir/keep_o.out" || fail "merge did not say what it kept: $(cat "$dir/keep_o.out")"
cp "$dir/keep/t16.json" "$dir/keep/dir/host-emulation.json"
cp "$dir/keep/c16.jsonl" "$dir/keep/dir/host-emulation.cache.jsonl"
expect 0 keep_dir "$padtune" merge "$dir/keep/c10.jsonl" "$dir/keep/c12.jsonl" --output-dir "$dir/keep/dir"
# The caches give bucket entries (16's among them); the exact entry of 16 stays beside, as after a tune.
[ "$(entries "$dir/keep/dir/host-emulation.json")" = "[(2, 3, 10, 2, 1), (2, 3, 12, 2, 1), (2, 3, 16, 2, 1), (2, 3, 16, 2, 1)]" ] ||
  fail "merge --output-dir dropped an entry of the table that was there: $(entries "$dir/keep/dir/host-emulation.json")"
n=$(lines "$dir/keep/c10.jsonl") && n=$((n + $(lines "$dir/keep/c12.jsonl") + $(lines "$dir/keep/c16.jsonl")))
[ "$(lines "$dir/keep/dir/host-emulation.cache.jsonl")" -eq "$n" ] || fail "merge --output-dir dropped lines of the cache that was there"
cp "$dir/keep/c16.jsonl" "$dir/keep/co.jsonl"
expect 0 keep_cache "$padtune" merge "$dir/keep/c10.jsonl" -o "$dir/keep/x.json" --cache-output "$dir/keep/co.jsonl"
[ "$(lines "$dir/keep/co.jsonl")" -eq $(($(lines "$dir/keep/c10.jsonl") + $(lines "$dir/keep/c16.jsonl"))) ] ||
  fail "merge --cache-output dropped lines of the cache that was there"
echo "an older table" > "$dir/keep/junk.json"
expect 0 over_junk "$padtune" merge "$dir/keep/t10.json" -o "$dir/keep/junk.json"
grep -q '^an older table' "$dir/keep/junk.json.rejected" || fail "what was at -o and does not read was not set aside whole"
echo "merge: the Slurm template's shards merged; other devices refused or kept apart; bad inputs refused"
