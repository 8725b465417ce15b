#!/usr/bin/env bash
# What padtune promises about the files and processes a user points it at (docs/reliability.md), as
# a user meets each case on the host backend: outputs that are devices, links or folders; waits
# that an interrupt ends; writers of a cache that take turns; two outputs that are one file;
# tables of another device; numbers that are not; a write that fails; a cache with corrupt lines.
# Usage: reliability.sh PADTUNE SCRATCH_DIR
set -uo pipefail
padtune=$1 dir=$2
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
# wait_for FILE TEXT: until FILE holds TEXT, 20 s at most.
wait_for() {
  for _ in $(seq 200); do grep -qF -- "$2" "$1" 2> /dev/null && return 0; sleep 0.1; done
  cat "$1"; fail "waited 20 s for '$2' in $1"
}
no_temporary_files() { [ -z "$(find "$1" -name '.*.tmp.*')" ] || fail "a temporary file was left in $1: $(find "$1" -name '.*.tmp.*')"; }
tune=(tune --backend host --dtype f32 --filter '__(rowtile|flat)__bo1024__t256__w16$')

# 1. Outputs: a device is written in place, a link's target is replaced and the link kept, a folder
#    is refused before any work.
expect 0 dev_null "$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dx /dev/null
[ -c /dev/null ] || fail "run --dx /dev/null replaced the device"
mkfifo "$dir/dx.fifo"
cat "$dir/dx.fifo" > "$dir/from_fifo.bin" &
expect 0 fifo "$padtune" run --backend host --shape 2,4,8,2,3 --dtype f32 --dx "$dir/dx.fifo"
wait
[ -p "$dir/dx.fifo" ] && [ "$(stat -c %s "$dir/from_fifo.bin")" -eq 256 ] || fail "dx through a FIFO: $(stat -c %s "$dir/from_fifo.bin") bytes"
mkdir -p "$dir/real"
ln -s real/table.json "$dir/link.json"
expect 0 link "$padtune" "${tune[@]}" --results-dir "$dir/r1" --table "$dir/link.json"
[ -L "$dir/link.json" ] && "$padtune" show "$dir/real/table.json" > /dev/null || fail "--table LINK did not write the link's target"
mkdir -p "$dir/folder.json"
SECONDS=0
expect 2 table_folder "$padtune" "${tune[@]}" --results-dir "$dir/r2" --table "$dir/folder.json"
says table_folder "folder.json: is a folder, not a file"
[ ! -e "$dir/r2/host-emulation.cache.jsonl" ] || fail "--table FOLDER was refused only after measuring"
no_temporary_files "$dir"

# 2. A tune waiting for another run's lock stops on SIGINT: exit 130 at once, nothing written.
cache=$dir/r1/host-emulation.cache.jsonl table=$dir/real/table.json
before=$(md5sum < "$table")
exec 9> "$cache.lock"  # this script holds the cache's lock, as a running tune would
flock 9
"$padtune" "${tune[@]}" --dtype f32 f64 --results-dir "$dir/r1" --table "$dir/link.json" > "$dir/waiting.out" 2>&1 9>&- &
waiter=$!
wait_for "$dir/waiting.out" "waiting for another padtune"
kill -INT "$waiter"
rc=0
wait "$waiter" || rc=$?
[ "$rc" -eq 130 ] || { cat "$dir/waiting.out"; fail "a waiting tune exited $rc on SIGINT, expected 130"; }
says waiting "nothing was written"
[ "$(md5sum < "$table")" = "$before" ] || fail "the interrupted waiting run changed the table"

# 3. merge takes the cache's lock: it waits while a tune holds it, then goes on.
"$padtune" merge "$cache" -o "$dir/merged.json" --cache-output "$cache" > "$dir/merge_wait.out" 2>&1 9>&- &
merger=$!
wait_for "$dir/merge_wait.out" "waiting for another padtune"
kill -0 "$merger" 2> /dev/null || fail "merge did not wait for the lock"
exec 9>&-  # the lock is let go
wait "$merger" || { cat "$dir/merge_wait.out"; fail "merge failed after the lock was released"; }
"$padtune" show "$dir/merged.json" > /dev/null || fail "the merged table does not read back"

# 3a. merge --output-dir onto a cache it also reads writes it under an exclusive lock: it waits while a
# reader (another merge) holds the lock shared. It once took the lock shared for the input and
# replaced the cache under the reader.
exec 9> "$cache.lock" && flock -s 9
"$padtune" merge "$cache" --output-dir "$dir/r1" > "$dir/merge_dir_wait.out" 2>&1 9>&- &
merger=$!
wait_for "$dir/merge_dir_wait.out" "waiting for another padtune"
kill -0 "$merger" 2> /dev/null || fail "merge --output-dir did not wait for a reader of the cache it writes"
exec 9>&-
wait "$merger" || { cat "$dir/merge_dir_wait.out"; fail "merge --output-dir failed after the lock was released"; }
# The same where DIR's cache is a link to the input, named by its target.
mkdir -p "$dir/linked" && ln -sf "$cache" "$dir/linked/host-emulation.cache.jsonl"
exec 9> "$cache.lock" && flock -s 9
"$padtune" merge "$cache" --output-dir "$dir/linked" > "$dir/merge_link_wait.out" 2>&1 9>&- &
merger=$!
wait_for "$dir/merge_link_wait.out" "waiting for another padtune"
exec 9>&-
wait "$merger" || { cat "$dir/merge_link_wait.out"; fail "merge --output-dir onto a link failed after the lock was released"; }
[ -L "$dir/linked/host-emulation.cache.jsonl" ] || fail "merge --output-dir replaced the link to the cache"

# 3b. merge replaces its table under the table's lock: what a tune wrote there meanwhile is kept.
echo "2 3 10 2 1" > "$dir/one.txt"
expect 0 exact_tune "$padtune" "${tune[@]}" --sizes "$dir/one.txt" --table "$dir/exact.json" --cache "$dir/exact.cache.jsonl"
exec 9> "$dir/merged.json.lock" && flock 9  # as a tune replacing merged.json holds it
"$padtune" merge "$cache" -o "$dir/merged.json" > "$dir/merge_table_wait.out" 2>&1 9>&- &
merger=$!
wait_for "$dir/merge_table_wait.out" "merged.json.lock"
cp "$dir/exact.json" "$dir/merged.json"  # that tune's table
exec 9>&-
wait "$merger" || { cat "$dir/merge_table_wait.out"; fail "merge failed after the table's lock was released"; }
python3 -c "import json, sys; assert any(e.get('exact') and e['shape'] == [2, 3, 10, 2, 1] for e in json.load(open(sys.argv[1]))['entries'])" \
  "$dir/merged.json" || fail "merge dropped the entry a tune wrote while merge waited for the table's lock"

# 4. Two outputs that are one file are refused, and the file is left as it was.
echo "a table" > "$dir/same.json"
expect 2 same_file "$padtune" merge "$cache" -o "$dir/same.json" --cache-output "$dir/same.json"
says same_file "are one file"
[ "$(cat "$dir/same.json")" = "a table" ] || fail "a refused merge changed its output"
expect 2 table_over_cache "$padtune" merge "$cache" -o "$cache"
says table_over_cache "would lose it"
expect 2 tune_same_file "$padtune" "${tune[@]}" --table "$dir/same.json" --cache "$dir/same.json"

# 5. A table of another device model named explicitly is refused, naming both, unless asked for.
sed -e 's/"backend": *"host"/"backend": "cuda"/' -e 's/"name": *"host emulation[^"]*"/"name": "NVIDIA Test GPU"/' "$table" > "$dir/other.json"
expect 3 other_device "$padtune" explain --backend host --results "$dir/other.json" --shape 2,8,4096,3,5 --dtype f32
says other_device "is a table of NVIDIA Test GPU"
says other_device "the host emulation"
expect 0 any_device "$padtune" explain --backend host --results "$dir/other.json" --any-device --shape 2,8,4096,3,5 --dtype f32

# 6. Numbers that are not numbers are refused before any work.
expect 2 budget_nan "$padtune" "${tune[@]}" --budget nan --results-dir "$dir/r3"
expect 2 timeout_nan "$padtune" "${tune[@]}" --isolate --candidate-timeout nan --results-dir "$dir/r3"
expect 2 timeout_inf "$padtune" "${tune[@]}" --isolate --candidate-timeout inf --results-dir "$dir/r3"
[ ! -e "$dir/r3" ] || fail "a refused command line wrote to its results folder"

# 7. A write that fails says which file and why (exit 1), keeps the old file and leaves no temporary.
echo "the old dx" > "$dir/dx.bin"
expect 1 too_large bash -c "ulimit -f 1; exec \"$padtune\" run --backend host --shape 64,64,64,0,0 --dtype f32 --dx \"$dir/dx.bin\""
says too_large "dx.bin: cannot be written: File too large"
[ "$(cat "$dir/dx.bin")" = "the old dx" ] || fail "a failed write changed the old file"
no_temporary_files "$dir"

# 8. A cache with a corrupt line: the line is set aside, the run goes on and says so.
sed -i '3s/.*/{"id": "corrupt/' "$cache"
expect 0 corrupt "$padtune" "${tune[@]}" --results-dir "$dir/r1"
says corrupt "1 unreadable line(s)"
grep -q '^# line 3: ' "$cache.rejected" || fail "the corrupt line is not in $cache.rejected"
expect 0 after_corrupt "$padtune" "${tune[@]}" --results-dir "$dir/r1"
says after_corrupt " 0 measured, "

# 9. Smaller: an unknown command is named; a folder is no table; bytes that are not text are escaped.
expect 2 unknown "$padtune" frobnicate
says unknown "'frobnicate' is no command"
expect 3 show_folder "$padtune" show "$dir/folder.json"
says show_folder "is a folder, not a file"
printf '1 2 3 \001\002 5\n' > "$dir/binary.txt"
expect 3 binary_sizes "$padtune" "${tune[@]}" --sizes "$dir/binary.txt" --results-dir "$dir/r4"
says binary_sizes "'\\x01\\x02' is not an integer"
echo "reliability: devices, links and folders as outputs; interrupted waits; merge under the lock; one file named twice; other devices' tables; NaN; failed writes; corrupt cache lines; messages"
