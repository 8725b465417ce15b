#!/usr/bin/env bash
# padtune tune --jit on a GPU: f32 over two small shapes with two pads, rowtile and flat, JIT twins
# included. Checks: exit 0; a table with entries that show reads back; JIT rows in the cache, each
# on a shape with its own pads, some measured ok; the summary line of which won where, and
# lab/bin/compare-jit's table of both shapes.
# Usage: jit_tune.sh PADTUNE SCRATCH_DIR
set -uo pipefail
padtune=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
printf '2 4 300 3 5\n3 2 1000 8 0\n' > "$dir/sizes.txt"
fail() { echo "FAIL: $*"; exit 1; }
export PADTUNE_JIT_CACHE="$dir/jit_cache"
"$padtune" tune --backend cuda --exhaustive --jit --dtype f32 --sizes "$dir/sizes.txt" --variant rowtile flat \
  --results-dir "$dir" > "$dir/out" 2> "$dir/err"
rc=$?
if [ "$rc" -eq 4 ]; then echo "GPU test skipped: no usable GPU"; exit 0; fi
[ "$rc" -eq 0 ] || { cat "$dir/err"; fail "exit $rc, expected 0"; }
grep -q "JIT kernels (ids jit__...) won [0-9]* of [1-9][0-9]* entries" "$dir/err" || { cat "$dir/err"; fail "no JIT summary"; }
cache="$dir/$(ls "$dir" | grep '\.cache\.jsonl$')"
table="${cache%.cache.jsonl}.json"
"$padtune" show "$table" > "$dir/show" || fail "the table does not read back"
python3 - "$cache" "$table" << 'PY' || fail "the cache or the table is wrong (above)"
import json, re, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip() and '"id"' in l]
jit = [r for r in rows if r["id"].startswith("jit__")]
assert jit, "no JIT rows in the cache"
for r in jit:
    pl, pr = (int(x) for x in re.match(r"jit__constant_pad1d_backward__f32__(-?\d+)__(-?\d+)__", r["id"]).groups())
    assert [pl, pr] == r["shape"][3:5], f"{r['id']} measured on pads {r['shape'][3:5]}"
ok = [r for r in jit if r["status"] == "ok"]
assert ok, "no JIT row measured ok: " + "; ".join(f"{r['id']}: {r['status']} {r.get('error', '')}" for r in jit[:3])
entries = json.load(open(sys.argv[2]))["entries"]
assert entries, "the table has no entries"
print(f"{len(ok)} of {len(jit)} JIT rows ok; JIT won {sum(e['winner']['id'].startswith('jit__') for e in entries)} of {len(entries)} entries")
PY
python3 "$(dirname "$0")/../../lab/bin/compare-jit" "$cache" > "$dir/compare" || fail "lab/bin/compare-jit failed"
grep -q "JIT fastest on [0-9]* of 2 shapes" "$dir/compare" || { cat "$dir/compare"; fail "compare-jit.py: no summary of 2 shapes"; }
tail -1 "$dir/err"
