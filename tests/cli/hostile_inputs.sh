#!/usr/bin/env bash
# What padtune does with what a careless or hostile user hands it (docs/reliability.md), on the
# host backend: tables it must not replace, tables it cannot read, names that are not UTF-8 or
# carry control bytes, a FIFO nobody reads, caches in a folder nobody may write, inputs too large
# to read, a regular expression that would never end, shapes no candidate can run.
# Usage: hostile_inputs.sh PADTUNE SOURCE_DIR SCRATCH_DIR
set -uo pipefail
padtune=$1 source=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
# expect CODE NAME COMMAND...: runs it, output in $dir/NAME.out; fails unless it exits with CODE.
expect() {
  local code=$1 name=$2
  shift 2
  "$@" > "$dir/$name.out" 2>&1
  local rc=$?
  [ "$rc" -eq "$code" ] || { cat "$dir/$name.out"; fail "$name: exit $rc, expected $code"; }
}
says() { grep -qF -- "$2" "$dir/$1.out" || { cat "$dir/$1.out"; fail "$1 does not say: $2"; }; }
unchanged() { cmp -s "$1" "$2" || fail "$1 changed"; }
entries() { python3 -c "import json, sys; print(len(json.load(open(sys.argv[1], encoding='utf-8'))['entries']))" "$1"; }
tune=(tune --backend host --dtype f32 --filter '__(rowtile|flat)__bo1024__t256__w16$')
printf '2 3 10 2 1\n' > "$dir/mine.txt"
printf '2 4 40 3 1\n' > "$dir/other.txt"

# D1. A table of another device model is refused before any work (exit 3), naming both; it keeps
#     every entry, and nothing is measured.
cp "$source/results/nvidia-h200.json" "$dir/T.json"
expect 3 foreign "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/T.json" --cache "$dir/mine.cache.jsonl"
says foreign "is a table of NVIDIA H200"
says foreign "this run measures host emulation"
unchanged "$source/results/nvidia-h200.json" "$dir/T.json"
[ ! -e "$dir/mine.cache.jsonl" ] || fail "a refused tune measured into its cache"

# D2. A newer schema is refused (exit 3) and left as it was; a table with one bad entry keeps the
#     good ones and sets the bad one aside; a table that does not read at all is set aside whole.
expect 0 first "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/mine.json" --results-dir "$dir/r"
sed 's/"schema": *1/"schema": 2/' "$dir/mine.json" > "$dir/newer.json"
cp "$dir/newer.json" "$dir/newer.before"
expect 3 newer "$padtune" "${tune[@]}" --sizes "$dir/other.txt" --table "$dir/newer.json" --results-dir "$dir/r"
says newer "a newer padtune's table"
unchanged "$dir/newer.before" "$dir/newer.json"
printf '2 3 10 2 1\n2 3 12 1 1\n' > "$dir/two.txt"
expect 0 two "$padtune" "${tune[@]}" --sizes "$dir/two.txt" --table "$dir/bad_entry.json" --results-dir "$dir/r"
python3 - "$dir/bad_entry.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
t["entries"][1]["winner"]["median_us"] = -1
json.dump(t, open(sys.argv[1], "w"), indent=1)
EOF
expect 0 bad_entry "$padtune" "${tune[@]}" --sizes "$dir/other.txt" --table "$dir/bad_entry.json" --results-dir "$dir/r"
says bad_entry "1 entry of $dir/bad_entry.json could not be read: set aside in $dir/bad_entry.json.rejected"
[ "$(entries "$dir/bad_entry.json")" = 2 ] || fail "bad_entry.json: the good old entry and the new one should be there"
grep -q 'median_us.*is negative' "$dir/bad_entry.json.rejected" || fail "the bad entry is not set aside with why"
grep -q '"median_us":-1' "$dir/bad_entry.json.rejected" || fail "the bad entry's text is not set aside"
printf 'not a table \001\n' > "$dir/garbage.json"
expect 0 garbage "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/garbage.json" --results-dir "$dir/r"
says garbage "the whole table of $dir/garbage.json could not be read"
grep -q '^not a table' "$dir/garbage.json.rejected" || fail "the unreadable table is not set aside whole"
"$padtune" show "$dir/garbage.json" > /dev/null || fail "the new table does not read back"

# D5, D6. A file name that is not UTF-8 is carried escaped; control bytes in names and in
#     environment values reach the terminal escaped (\xNN), never raw.
bad=$(printf '%s/name\377.json' "$dir")
expect 0 not_utf8 "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$bad" --results-dir "$dir/r"
python3 -c "import json, sys; t = json.load(open(sys.argv[1], encoding='utf-8')); assert 'name\\\\xff.json' in t['command'], t['command']" "$bad" \
  || fail "the table of a non-UTF-8 name does not read as UTF-8 JSON with the name escaped"
expect 0 not_utf8_explain "$padtune" explain --backend host --results "$bad" --shape 2,3,13,2,1 --dtype f32 --json
python3 -c "import json, sys; t = json.load(open(sys.argv[1], encoding='utf-8')); assert '\\\\xff' in t['table']" "$dir/not_utf8_explain.out" \
  || fail "explain --json of a non-UTF-8 table name is not JSON"
evil=$(printf '%s/x\033]0;pwned\007.txt' "$dir")
expect 3 control_bytes "$padtune" "${tune[@]}" --sizes "$evil" --results-dir "$dir/r"
says control_bytes 'x\x1b]0;pwned\x07.txt'
! grep -q $'\033' "$dir/control_bytes.out" || fail "an escape byte reached the terminal raw"
expect 0 control_env env PADTUNE_RESULTS="$evil" "$padtune" explain --backend host --shape 2,3,13,2,1 --dtype f32
says control_env 'x\x1b]0;pwned\x07.txt'
! grep -q $'\033' "$dir/control_env.out" || fail "an escape byte of PADTUNE_RESULTS reached the terminal raw"
# The command-line parser's own messages quote the argument too: escaped the same way.
expect 2 control_option "$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 -n $'9\033]0;pwned\007'
says control_option '9\x1b]0;pwned\x07'
! grep -q $'\033' "$dir/control_option.out" || fail "an escape byte in an option's value reached the terminal raw"

# D7. run --dx FIFO waits for a reader; SIGTERM ends the wait: exit 130 and a message.
mkfifo "$dir/nobody.fifo"
#     The signal is sent once run says it waits there: under a sanitizer the run before it takes
#     seconds, so no sleep decides the test.
"$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dx "$dir/nobody.fifo" > "$dir/fifo_term.out" 2>&1 &
runner=$!
for _ in $(seq 1200); do grep -q "has no reader yet: waiting for one" "$dir/fifo_term.out" && break; sleep 0.05; done
kill -TERM "$runner"
rc=0
wait "$runner" || rc=$?
[ "$rc" -eq 130 ] || { cat "$dir/fifo_term.out"; fail "run --dx FIFO exited $rc on SIGTERM, expected 130"; }
says fifo_term "interrupted while waiting for a reader"

# D8. merge reads caches without writing beside them: no lock file appears beside an input, and a
#     refused merge leaves none either.
mkdir -p "$dir/ro"
cp "$dir/r/host-emulation.cache.jsonl" "$dir/ro/in.cache.jsonl"
[ "$(id -u)" = 0 ] || chmod a-w "$dir/ro"
expect 0 merge_readonly "$padtune" merge "$dir/ro/in.cache.jsonl" -o "$dir/merged.json"
[ ! -e "$dir/ro/in.cache.jsonl.lock" ] || fail "merge created a lock beside its input"
printf 'garbage\n' > "$dir/broken.cache.jsonl"
expect 3 merge_refused "$padtune" merge "$dir/ro/in.cache.jsonl" "$dir/broken.cache.jsonl" -o "$dir/m2.json" --cache-output "$dir/m2.cache.jsonl"
for lock in "$dir/ro/in.cache.jsonl.lock" "$dir/broken.cache.jsonl.lock" "$dir/m2.cache.jsonl.lock"; do
  [ ! -e "$lock" ] || fail "a refused merge left $lock"
done
chmod u+w "$dir/ro"

# D9. Inputs have stated size limits: a file over one is refused by name before it is read.
truncate -s 17M "$dir/huge_sizes.txt"
expect 3 huge_sizes "$padtune" "${tune[@]}" --sizes "$dir/huge_sizes.txt" --results-dir "$dir/r"
says huge_sizes "huge_sizes.txt: 17825792 bytes or more, over the limit of 16777216 bytes for a sizes file"
truncate -s 65M "$dir/huge.json"
expect 3 huge_table "$padtune" show "$dir/huge.json"
says huge_table "over the limit of 67108864 bytes for a table"

# D13. --budget must be positive; the help says what the default search is.
expect 2 budget_zero "$padtune" "${tune[@]}" --budget 0 --results-dir "$dir/r5"
says budget_zero "--budget must be a positive number of seconds, at most a year, got 0"
[ ! -e "$dir/r5" ] || fail "a refused --budget wrote to its results folder"
expect 0 help "$padtune" tune --help
says help "Default: the contenders screened"

# D14. A filter whose backtracking would never end answers at once; one that would compile too
#     large is refused by name.
expect 0 regex_bomb timeout 10 "$padtune" list --filter '(.*)*X'
expect 0 regex_bomb_match timeout 10 "$padtune" list --filter '((a|aa)*)*c|(.*.*)*__f32__flat__bo1024__t256__w16$'
says regex_bomb_match "constant_pad1d_backward__f32__flat__bo1024__t256__w16"
expect 3 regex_too_big timeout 10 "$padtune" list --filter '((a{1,255}){1,255}){1,255}'
says regex_too_big "expand it past 2000 atoms"
expect 3 regex_backref "$padtune" list --filter '(a)\1'

# D15. A shape no candidate can run (its buffers cannot be had) is named, gets no entry, the table
#     is not called complete, and the run fails (exit 1); the other shapes keep their entries.
printf '2 3 10 2 1\n1 1 4398046511104 0 0\n' > "$dir/no_memory.txt"
expect 1 no_memory "$padtune" "${tune[@]}" --sizes "$dir/no_memory.txt" --table "$dir/no_memory.json" --results-dir "$dir/r6"
says no_memory "no candidate ran on f32 (1,1,4398046511104,0,0): launch_failed: workspace: the host emulation needs"
python3 -c "import json, sys; t = json.load(open(sys.argv[1])); assert t['complete'] is False and len(t['entries']) == 1, t" "$dir/no_memory.json" \
  || fail "no_memory.json should hold the one shape that ran and be marked partial"

# --- What a probe past that list found ------------------------------------------------------------

# Outputs that are each other: --summary onto the cache or the table, --table onto what the run sets
# aside, a cache of two hard links (each name would take a lock of its own).
cp "$dir/r/host-emulation.cache.jsonl" "$dir/cache.before"
expect 2 summary_on_cache "$padtune" "${tune[@]}" --results-dir "$dir/r" --summary "$dir/r/host-emulation.cache.jsonl"
unchanged "$dir/cache.before" "$dir/r/host-emulation.cache.jsonl"
expect 2 summary_on_table "$padtune" "${tune[@]}" --results-dir "$dir/r" --summary "$dir/r/host-emulation.json"
expect 2 table_on_rejected "$padtune" "${tune[@]}" --results-dir "$dir/r" --table "$dir/r/host-emulation.cache.jsonl.rejected"
says table_on_rejected "the cache's set-aside lines"
mkdir -p "$dir/hard" && cp "$dir/r/host-emulation.cache.jsonl" "$dir/hard/c.jsonl" && ln "$dir/hard/c.jsonl" "$dir/hard/c2.jsonl"
expect 2 hard_link "$padtune" "${tune[@]}" --cache "$dir/hard/c2.jsonl" --table "$dir/hard/t.json"
says hard_link "has 2 hard links"

# Two runs on one results folder: the second waits for the first's lock, then keeps what it wrote.
"$padtune" tune --backend host --dtype f32 f16 --results-dir "$dir/two_runs" > "$dir/first_run.out" 2>&1 &
first=$!
sleep 0.3
expect 0 second_run "$padtune" tune --backend host --dtype f64 --results-dir "$dir/two_runs"
wait "$first" || { cat "$dir/first_run.out"; fail "the first of two runs failed"; }
python3 - "$dir/two_runs/host-emulation.json" <<'EOF2' || fail "two runs on one folder: a run's entries were lost"
import json, sys
kinds = {e["dtype"] for e in json.load(open(sys.argv[1]))["entries"]}
assert kinds == {"f32", "f16", "f64"}, kinds
EOF2

# A run over one dtype keeps every entry of the others, several to a bucket too.
python3 - "$source/results/nvidia-h200.json" "$dir/mine.json" "$dir/relabelled.json" <<'EOF2'
import json, sys
h200, host = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
h200["device"], h200["settings"] = host["device"], host["settings"]
json.dump(h200, open(sys.argv[3], "w"), indent=1)
EOF2
count() { python3 -c "import json, sys; print(sum(e['dtype'] != 'bf16' for e in json.load(open(sys.argv[1]))['entries']))" "$1"; }
before=$(count "$dir/relabelled.json")
expect 0 one_dtype "$padtune" tune --backend host --dtype bf16 --filter '__flat__bo1024__' --table "$dir/relabelled.json" \
  --results-dir "$dir/r7"
[ "$(count "$dir/relabelled.json")" = "$before" ] || fail "a bf16 run dropped entries of other dtypes: $before -> $(count "$dir/relabelled.json")"

# A corrupt last line that ends whole is set aside like any other, not dropped as torn.
printf '{"id":"MARK"}\n' >> "$dir/r/host-emulation.cache.jsonl"
expect 0 last_line "$padtune" "${tune[@]}" --results-dir "$dir/r"
grep -q MARK "$dir/r/host-emulation.cache.jsonl.rejected" || fail "a whole corrupt last line was dropped"

# Nesting deep enough to exhaust the stack is refused while parsing: no crash.
python3 -c "import sys; d = 200000; open(sys.argv[1], 'w').write('{\"padtune_cache\":' + '[' * d + ']' * d + '}\n')" "$dir/deep.cache.jsonl"
expect 3 deep_merge "$padtune" merge -o "$dir/deep.json" "$dir/deep.cache.jsonl"
expect 3 deep_tune "$padtune" "${tune[@]}" --cache "$dir/deep.cache.jsonl" --table "$dir/deep.json"

# Text of a file on standard output is escaped too: a table's device name, a path in run's report.
python3 - "$dir/mine.json" "$dir/evil.json" <<'EOF2'
import json, sys
t = json.load(open(sys.argv[1]))
t["device"]["name"] = "evil\x1b]0;PWNED\x07\u009b31m"
json.dump(t, open(sys.argv[2], "w"))
EOF2
expect 0 show_evil "$padtune" show "$dir/evil.json"
expect 0 show_evil_json "$padtune" show --json "$dir/evil.json"
! grep -q $'\033\|\xc2\x9b' "$dir/show_evil.out" "$dir/show_evil_json.out" || fail "show printed a table's control bytes raw"
evil_table=$(printf '%s/t\033[31mX.json' "$dir")
cp "$dir/mine.json" "$evil_table"
expect 0 run_evil "$padtune" run --backend host --shape 2,3,100,1,1 --dtype f32 --results "$evil_table"
! grep -q $'\033' "$dir/run_evil.out" || fail "run's report printed a path's escape byte raw"

# Numbers too large for a clock, output that cannot be written, a dtype named twice.
expect 2 huge_timeout "$padtune" "${tune[@]}" --isolate --candidate-timeout 1e17 --results-dir "$dir/r8"
expect 1 stdout_full bash -c "exec \"$padtune\" explain --backend host --shape 1,1,10,0,0 --dtype f32 --json > /dev/full"
expect 1 help_full bash -c "exec \"$padtune\" tune --help > /dev/full"
says help_full "standard output cannot be written"
# Empty values are refused, not read as "not given"; a shard count past the limit is named.
expect 2 budget_empty "$padtune" "${tune[@]}" --budget '' --results-dir "$dir/r10"
says budget_empty "--budget: is empty"
expect 2 shard_empty "$padtune" "${tune[@]}" --shard '' --results-dir "$dir/r10"
says shard_empty "--shard: is empty"
expect 2 shard_huge "$padtune" "${tune[@]}" --shard 0/2147483648 --results-dir "$dir/r10"
says shard_huge "0 <= I < N <= 2147483647"
[ ! -e "$dir/r10" ] || fail "a refused option wrote to its results folder"
# --dy that is no regular file is named so.
expect 3 dy_fifo "$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dy "$dir/nobody.fifo"
says dy_fifo "is not a regular file"
# A command that does not poll for interrupts (verify) still ends on SIGTERM with 130 and a message.
# The signal is sent once its handler is installed (SigCgt bit 15), so no sleep decides the test.
printf '64 64 100000 1 1\n64 64 100000 2 2\n64 64 100000 3 3\n64 64 100000 4 4\n' > "$dir/slow.txt"
"$padtune" verify --backend host --dtype f32 f64 f16 bf16 --sizes "$dir/slow.txt" > "$dir/verify_term.out" 2>&1 &
verifier=$!
for _ in $(seq 1000); do
  mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$verifier/status" 2>/dev/null)
  [ -n "$mask" ] && (( (16#$mask >> 14) & 1 )) && break
done
kill -TERM "$verifier"
rc=0
wait "$verifier" || rc=$?
[ "$rc" -eq 130 ] || { cat "$dir/verify_term.out"; fail "verify exited $rc on SIGTERM, expected 130"; }
says verify_term "interrupted (SIGTERM)"
expect 0 twice "$padtune" tune --backend host --dtype f32 f32 --filter '__flat__bo1024__t256__w16$' --results-dir "$dir/r9" \
  --summary "$dir/twice.json"
python3 -c "import json, sys; s = json.load(open(sys.argv[1])); assert s['from_cache'] == 0, s" "$dir/twice.json" \
  || fail "a dtype named twice was measured twice"

# --- And past that one ------------------------------------------------------------------------------

# What is set aside goes to files that are checked before the sweep: a FIFO there is refused at once.
mkdir -p "$dir/aside" && printf 'garbage\n' > "$dir/aside/t.json" && mkfifo "$dir/aside/t.json.rejected"
expect 2 rejected_fifo timeout 20 "$padtune" "${tune[@]}" --table "$dir/aside/t.json" --results-dir "$dir/aside"
says rejected_fifo "is not a regular file"
[ ! -e "$dir/aside/host-emulation.cache.jsonl" ] || fail "a refused run measured first"

# merge's shared lock: a FIFO where the lock goes is refused, not waited on for ever.
mkdir -p "$dir/fifo_lock" && cp "$dir/r/host-emulation.cache.jsonl" "$dir/fifo_lock/c.jsonl" && mkfifo "$dir/fifo_lock/c.jsonl.lock"
expect 1 lock_fifo timeout 20 "$padtune" merge -o "$dir/fifo_lock/m.json" "$dir/fifo_lock/c.jsonl"
says lock_fifo "a lock must be a regular file"

# "link/../x" is x beside the link's target, as the OS resolves it.
mkdir -p "$dir/dots/real/sub" && ln -s real/sub "$dir/dots/lnk"
expect 0 dots "$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dx "$dir/dots/lnk/../dx.bin"
[ -f "$dir/dots/real/dx.bin" ] && [ ! -e "$dir/dots/dx.bin" ] || fail "lnk/../dx.bin was not written beside lnk's target"

# An input is no output: --summary onto the sizes file is refused, the shapes kept.
cp "$dir/mine.txt" "$dir/sizes_kept.txt"
expect 2 summary_on_sizes "$padtune" "${tune[@]}" --sizes "$dir/sizes_kept.txt" --results-dir "$dir/r10" --summary "$dir/sizes_kept.txt"
unchanged "$dir/mine.txt" "$dir/sizes_kept.txt"

# --- A third probe ----------------------------------------------------------------------------------

# The table's lock is checked before the sweep, as its set-aside file is; --cache onto it is refused.
mkdir -p "$dir/tlock" && mkfifo "$dir/tlock/t.json.lock"
expect 2 table_lock_fifo timeout 20 "$padtune" "${tune[@]}" --table "$dir/tlock/t.json" --results-dir "$dir/tlock"
says table_lock_fifo "t.json.lock (the table's lock): a lock must be a regular file"
[ ! -e "$dir/tlock/host-emulation.cache.jsonl" ] || fail "a run with a FIFO for its table's lock measured first"
expect 2 cache_on_table_lock "$padtune" "${tune[@]}" --table "$dir/tlock/u.json" --cache "$dir/tlock/u.json.lock"
says cache_on_table_lock "the table's lock"

# An output on standard output keeps it to itself (probe A59, A60): the readable report goes to
# standard error. For /dev/stdout, a descriptor of the same file, and a cache appended to in place.
json_ok() { python3 -c "import json, sys; json.load(open(sys.argv[1]))" "$1" || fail "$1 is not JSON: $(head -c 300 "$1")"; }
mkdir -p "$dir/out"
"$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table /dev/stdout --cache "$dir/out/c.jsonl" > "$dir/out/t.json" 2> "$dir/out/t.err" ||
  fail "tune --table /dev/stdout failed: $(cat "$dir/out/t.err")"
json_ok "$dir/out/t.json"
grep -q "entries; 'x copy'" "$dir/out/t.err" || fail "tune --table /dev/stdout: no readable table on standard error"
"$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/out/u.json" --cache "$dir/out/c.jsonl" --json --summary /dev/stdout \
  > "$dir/out/s.json" 2> /dev/null || fail "tune --summary /dev/stdout failed"
json_ok "$dir/out/s.json"
"$padtune" "${tune[@]}" --sizes "$dir/other.txt" --table "$dir/out/u.json" --cache "$dir/out/c.jsonl" >> "$dir/out/c.jsonl" 2> /dev/null ||
  fail "tune >> its own cache failed"
python3 -c "import json, sys; [json.loads(l) for l in open(sys.argv[1])]" "$dir/out/c.jsonl" || fail "tune's report went into its cache"
"$padtune" merge "$dir/out/u.json" -o /dev/fd/3 > "$dir/out/m.json" 3>&1 2> "$dir/out/m.err" || fail "merge -o /dev/fd/3 failed"
json_ok "$dir/out/m.json"
grep -q "entries; 'x copy'" "$dir/out/m.err" || fail "merge -o /dev/fd/3: no readable table on standard error"
"$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dx /dev/fd/3 > "$dir/out/dx.bin" 3>&1 2> /dev/null || fail "run --dx /dev/fd/3 failed"
[ "$(stat -c %s "$dir/out/dx.bin")" -eq 256 ] || fail "run --dx /dev/fd/3 > dx.bin: $(stat -c %s "$dir/out/dx.bin") bytes, want 256"

# A cache with the H200 cache's header and lines after its own (two caches joined, probe A61) is
# refused naming both devices (exit 3), by tune and merge alike, and left as it was.
mkdir -p "$dir/joined"
"$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/joined/t.json" --cache "$dir/joined/c.jsonl" > /dev/null 2>&1 ||
  fail "the tune before the join failed"
{ head -n 1 "$source/results/nvidia-h200.cache.jsonl"; grep -m 3 '"dtype":"f32"' "$source/results/nvidia-h200.cache.jsonl"; } >> "$dir/joined/c.jsonl"
cp "$dir/joined/c.jsonl" "$dir/joined/before"
expect 3 joined_tune "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$dir/joined/t.json" --cache "$dir/joined/c.jsonl"
says joined_tune "a second cache header (two caches joined): measured on NVIDIA H200"
says joined_tune "in a cache of host emulation"
unchanged "$dir/joined/before" "$dir/joined/c.jsonl"
[ ! -e "$dir/joined/c.jsonl.rejected" ] || fail "the joined cache's second header was set aside as a corrupt line"
expect 3 joined_merge "$padtune" merge "$dir/joined/c.jsonl" -o "$dir/joined/m.json"
says joined_merge "measured on NVIDIA H200"

# Long names (probe A51, A52): a name that fits is written, its temporary name being the folder's own
# (.padtune.tmp.PID.N); one whose lock or set-aside file would not fit is refused before any work,
# naming the output and the limit.
mkdir -p "$dir/long"
t245=$dir/long/$(printf 't%.0s' {1..240}).json
expect 0 long_table "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$t245" --cache "$dir/long/c.jsonl"
"$padtune" show "$t245" > /dev/null || fail "the table of a 245-byte name does not read back"
d254=$dir/long/$(printf 'd%.0s' {1..250}).bin
expect 0 long_dx "$padtune" run --backend host --shape 1,1,4,1,1 --dtype f32 --dx "$d254"
[ "$(stat -c %s "$d254")" -eq 16 ] || fail "run --dx of a 254-byte name did not write dx"
t252=$dir/long/$(printf 'u%.0s' {1..247}).json
expect 2 long_lock "$padtune" "${tune[@]}" --sizes "$dir/mine.txt" --table "$t252" --cache "$dir/long/c2.jsonl"
says long_lock "the table's set-aside entries"
says long_lock "longer than the 255 bytes (NAME_MAX) of its folder"
[ ! -e "$dir/long/c2.jsonl" ] || fail "a tune whose table's set-aside file cannot be named measured first"
expect 2 long_merge "$padtune" merge "$dir/long/c.jsonl" -o "$t252"
says long_merge "the table's lock"

echo "hostile inputs: foreign, newer and broken tables; non-UTF-8 and control bytes; an unread FIFO; read-only merge; size limits; budget 0; regex bombs; unrunnable shapes; outputs that are each other; two runs on one folder; deep nesting; control bytes on stdout; huge timeouts; /dev/full; a dtype named twice"
