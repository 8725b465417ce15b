#!/usr/bin/env bash
# Faults inside a tuning run: padtune_fault_cli (the padtune CLI with the deliberately faulting
# instantiations of tests/fault) tunes f32 over two small shapes with three good candidates and the
# three faulting ones (illegal address, trap, hang), isolated, with a 1 s candidate timeout.
# Checks: exit 0; faults and timeouts recorded in the cache with their error; a table of good
# winners only, readable; a second run re-runs no fault; a longer timeout retries only the hangs;
# no worker left behind; the budgeted search survives them too; and, for contrast on the host backend, the same candidates in process end
# the run (the cache stays readable).
# The last line (also in SCRATCH_DIR/summary.txt) is the figure for the README.
# Usage: faults.sh PADTUNE_FAULT_CLI SCRATCH_DIR host|cuda
set -uo pipefail
padtune=$1 dir=$2 backend=$3
rm -rf "$dir" && mkdir -p "$dir"
printf '2 4 300 3 5\n3 2 1000 8 0\n' > "$dir/sizes.txt"
filter='__(fault__|rowtile__bo1024__t256__w16|flat__bo1024__t256__w16|flatvec__bo1024__t256__w16)'
args=(tune --backend "$backend" --exhaustive --dtype f32 --filter "$filter" --sizes "$dir/sizes.txt" --results-dir "$dir")
[ "$backend" = host ] && args+=(--isolate)
fail() { echo "FAIL: $*"; exit 1; }
# Under ASan (preset sanitize) the deliberate SIGSEGV would be reported and turned into an abort.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"

# Runs a tune in the background (to know its pid), then checks that no worker of it is left.
tune() {
  "$padtune" "${args[@]}" "$@" > "$dir/out" 2> "$dir/err" &
  local pid=$!
  wait "$pid"
  rc=$?
  pgrep -f -- "__worker .*--parent $pid\$" > /dev/null && fail "a worker of run $pid is still alive"
  return 0
}

tune --candidate-timeout 1
if [ "$backend" = cuda ] && [ "$rc" -eq 4 ]; then echo "GPU test skipped: no usable GPU"; exit 0; fi
[ "$rc" -eq 0 ] || { cat "$dir/err"; fail "exit $rc, expected 0"; }
grep -q ": 4 faults, 2 timeouts" "$dir/err" || { cat "$dir/err"; fail "expected 4 faults and 2 timeouts"; }
cache="$dir/$(ls "$dir" | grep '\.cache\.jsonl$')"
table="${cache%.cache.jsonl}.json"
"$padtune" show "$table" > /dev/null || fail "the table does not read back"
python3 - "$cache" "$table" "$backend" << 'PY' || fail "the cache or the table is wrong (above)"
import json, re, sys
cache, table, backend = sys.argv[1:]
lines = open(cache).read().splitlines()
records = [json.loads(l) for l in lines[1:]]  # every line parses: nothing torn or corrupt
want = {"illegal_address": ("fault", "illegal memory access|illegal address" if backend == "cuda" else "signal 11"),
        "trap": ("fault", "launch failure|illegal instruction" if backend == "cuda" else "signal 6"),
        "hang": ("timeout", "no reply within")}
for r in records:
    kind = r["id"].split("__fault__")[-1] if "__fault__" in r["id"] else None
    if kind:
        status, text = want[kind]
        assert r["status"] == status and re.search(text, r["error"]), f"{r['id']}: {r['status']}: {r['error']}"
        if status == "timeout": assert r["limit_s"] == 1, r
    else:
        assert r["status"] == "ok", f"{r['id']}: {r['status']}: {r['error']}"
assert len(records) == 2 * 7, len(records)
t = json.load(open(table))
ids = [e["winner"]["id"] for e in t["entries"]] + [e["runner_up"]["id"] for e in t["entries"] if e.get("runner_up")]
assert ids and not any("__fault__" in i for i in ids), ids
print(f"{len(records)} cache lines, {len(t['entries'])} table entries, winners {sorted(set(ids))}")
PY

tune --candidate-timeout 1
grep -qE " 0 measured, 14 from the cache, 6 failed" "$dir/err" || { cat "$dir/err"; fail "the second run re-ran something"; }
grep -q "1 worker starts" "$dir/err" || { cat "$dir/err"; fail "the second run restarted its worker"; }

tune --candidate-timeout 2  # more time than the recorded timeouts had: the hangs, and only they, again
grep -qE " 2 measured, 12 from the cache, 6 failed" "$dir/err" || { cat "$dir/err"; fail "a longer timeout should retry the 2 hangs"; }

# The budgeted search (successive halving) survives the same faults.
for i in "${!args[@]}"; do [ "${args[$i]}" = --results-dir ] && args[$((i + 1))]="$dir/budget"; done
kept=()  # --budget is another search than --exhaustive
for a in "${args[@]}"; do [ "$a" = --exhaustive ] || kept+=("$a"); done
args=("${kept[@]}")
tune --candidate-timeout 1 --budget 2
[ "$rc" -eq 0 ] || { cat "$dir/err"; fail "budgeted: exit $rc, expected 0"; }
grep -q ": 4 faults, 2 timeouts" "$dir/err" || { cat "$dir/err"; fail "budgeted: expected 4 faults and 2 timeouts"; }

if [ "$backend" = host ]; then  # the contrast: in process, the first fault ends the run
  rm -rf "$dir/inproc" && mkdir -p "$dir/inproc"
  "$padtune" tune --backend host --no-isolate --dtype f32 --filter "$filter" --sizes "$dir/sizes.txt" \
    --results-dir "$dir/inproc" > /dev/null 2>&1
  rc=$?
  [ "$rc" -gt 128 ] || [ "$rc" -eq 1 ] || fail "in process, exit $rc: expected the fault to end the run"
  tail -n +2 "$dir/inproc"/*.cache.jsonl | python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]' \
    || fail "the in-process run left a corrupt cache"
  echo "in process (--no-isolate), the first fault ended the run with exit $rc; its cache reads back"
fi
echo "$backend: 6 faulting candidates (2 shapes x illegal address, trap, hang): 4 faults and 2 timeouts recorded," \
  "each run finished with good winners only; a second run re-ran none; a longer timeout retried the 2 hangs; the budgeted search survived them too" | tee "$dir/summary.txt"
