#!/usr/bin/env bash
# `padtune tune` killed with SIGKILL in the middle loses no finished measurement: the next run
# reuses every line the killed run wrote and measures only what is missing.
# With --isolate (extra arguments go to tune), the killed run's worker dies with it.
# Usage: kill_resume.sh PADTUNE SCRATCH_DIR [TUNE_ARG...]
set -euo pipefail
padtune=$1 dir=$2
shift 2
rm -rf "$dir" && mkdir -p "$dir"
cache="$dir/host-emulation.cache.jsonl"
"$padtune" tune --backend host --results-dir "$dir" "$@" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do  # until some measurements are in, 60 s at most
  [ "$(cat "$cache" 2> /dev/null | wc -l)" -gt 40 ] && break
  sleep 0.1
done
kill -KILL "$pid" 2> /dev/null || echo "note: the run ended before the kill"
wait "$pid" 2> /dev/null || true
for _ in $(seq 50); do  # the worker's parent-death signal is delivered asynchronously
  pgrep -f -- "__worker .*--parent $pid\$" > /dev/null || break
  sleep 0.1
done
if pgrep -f -- "__worker .*--parent $pid\$" > /dev/null; then echo "FAIL: the worker outlived its killed run"; exit 1; fi
finished=$(( $(wc -l < "$cache") - 1 ))  # complete lines after the header; a torn line has no newline
[ -f "$dir/host-emulation.json" ] && echo "note: a table exists from before the kill"
out=$("$padtune" tune --backend host --results-dir "$dir" "$@" 2>&1)
echo "$out" | tail -1
echo "killed after $finished finished measurements"
if ! echo "$out" | grep -qE " measured, $finished from the cache, 0 failed"; then
  echo "FAIL: expected $finished from the cache, 0 failed; the resumed run said:"
  echo "$out" | grep -E "^padtune tune:|warning|error" || echo "$out" | tail -20
  exit 1
fi
