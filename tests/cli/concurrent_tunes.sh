#!/usr/bin/env bash
# Four `padtune tune` processes on one results folder at once: all succeed, the table is valid and
# the cache holds each measurement once (they take turns through the lock; the later ones find the
# work done). Then two tunes of other caches into one table, 20 times: both entries kept (the table's
# own lock; without it about 1 try in 5 lost one).
# Usage: concurrent_tunes.sh PADTUNE SCRATCH_DIR
set -euo pipefail
padtune=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
pids=()
for n in 1 2 3 4; do
  "$padtune" tune --backend host --dtype f32 --results-dir "$dir" > "$dir/out.$n" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || { echo "FAIL: a run exited with $?"; cat "$dir"/out.*; exit 1; }; done
"$padtune" show "$dir/host-emulation.json" > /dev/null || { echo "FAIL: the table does not read back"; exit 1; }
total=$(tail -n +2 "$dir/host-emulation.cache.jsonl" | wc -l)
unique=$(tail -n +2 "$dir/host-emulation.cache.jsonl" | python3 -c '
import json, sys
print(len({(m["id"], m["dtype"], tuple(m["shape"])) for m in map(json.loads, sys.stdin)}))')
[ "$total" -eq "$unique" ] || { echo "FAIL: $total cache lines for $unique measurements"; exit 1; }
fresh=$(cat "$dir"/out.* | grep -oE '[0-9]+ measured' | awk '{s += $1} END {print s}')
[ "$fresh" -eq "$unique" ] || { echo "FAIL: $fresh measured in all for $unique measurements"; exit 1; }
echo "4 concurrent runs: $unique measurements, each made once; the table reads back"

cd "$dir" && echo "2 3 10 2 1" > a.txt && echo "2 3 11 2 1" > b.txt
for try in $(seq 1 20); do
  rm -f T.json* ca.jsonl* cb.jsonl*
  "$padtune" tune --backend host --dtype f32 --sizes a.txt --table T.json --cache ca.jsonl > out.a 2>&1 & a=$!
  "$padtune" tune --backend host --dtype f32 --sizes b.txt --table T.json --cache cb.jsonl > out.b 2>&1 & b=$!
  wait "$a" && wait "$b" || { echo "FAIL: try $try: a run failed"; cat out.a out.b; exit 1; }
  n=$(python3 -c 'import json; print(len(json.load(open("T.json"))["entries"]))')
  [ "$n" -eq 2 ] || { echo "FAIL: try $try: two runs of other caches left $n entries in their one table (want 2)"; exit 1; }
done
echo "two runs of other caches into one table, 20 tries: both entries kept each time"
