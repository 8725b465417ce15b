#!/usr/bin/env bash
# SIGINT or SIGTERM in the middle of `padtune tune`: exit 130, a table marked partial, nothing
# finished lost; the next run resumes and completes the table.
# With --isolate (extra arguments go to tune), no worker outlives the run.
# Usage: interrupt.sh PADTUNE SCRATCH_DIR SIGNAL [TUNE_ARG...]
set -euo pipefail
padtune=$1 dir=$2 signal=$3
shift 3
rm -rf "$dir" && mkdir -p "$dir"
cache="$dir/host-emulation.cache.jsonl"
"$padtune" tune --backend host --results-dir "$dir" "$@" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(cat "$cache" 2> /dev/null | wc -l)" -gt 40 ] && break
  sleep 0.1
done
kill -"$signal" "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] || { echo "FAIL: exit $rc after SIG$signal, expected 130"; exit 1; }
if pgrep -f -- "__worker .*--parent $pid\$" > /dev/null; then echo "FAIL: a worker outlived its run"; exit 1; fi
"$padtune" show "$dir/host-emulation.json" | grep -q PARTIAL || { echo "FAIL: the table is not marked partial"; exit 1; }
if grep -q '"status":"launch_failed"' "$cache"; then echo "FAIL: the interrupt was recorded as a launch failure"; grep -m2 launch_failed "$cache"; exit 1; fi
finished=$(( $(wc -l < "$cache") - 1 ))
out=$("$padtune" tune --backend host --results-dir "$dir" "$@" 2>&1)
echo "$out" | grep -qE " measured, $finished from the cache, 0 failed" || {
  echo "FAIL: expected $finished from the cache"; echo "$out" | grep -E "^padtune|^note"; grep -v '"status":"ok"' "$cache" | head -5; exit 1; }
if "$padtune" show "$dir/host-emulation.json" | grep -q PARTIAL; then echo "FAIL: still partial after resuming"; exit 1; fi
echo "SIG$signal: exit 130, partial table, $finished measurements kept and reused"
