#!/usr/bin/env bash
# lab/bin/compare-tables --against and --repeat on made-up caches whose answers are known: two shapes,
# a 4 us one where the judged table picks a kernel 5% slower, and a 100 us one where it picks the same;
# the second run measures every kernel 2% faster on the short shape and the same on the long one; a
# third run (the judge) puts the short shape's two winners 1% apart.
# Usage: compare_tables.sh SCRIPT SCRATCH_DIR
set -uo pipefail
script=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null; exit 1; }
A=constant_pad1d_backward__f32__flat__bo1024__t256__w16 B=constant_pad1d_backward__f32__rowelem__bo256__t128__w4
row() {  # shape id us
  printf '{"cold":{"median_us":%s,"q1_us":0,"q3_us":0,"samples":10},"dtype":"f32","error":"","hot":{"median_us":0,"q1_us":0,"q3_us":0,"samples":0},"id":"%s","shape":[%s],"status":"ok"}\n' "$3" "$2" "$1"
}
cache() {  # file short_a short_b long_a long_b
  { echo '{"padtune_cache":1,"device":{"name":"test"}}'
    row 8,8,7,2,3 cudaMemcpyAsync_d2d 3.9; row 8,8,7,2,3 $A "$2"; row 8,8,7,2,3 $B "$3"
    row 64,4096,64,2,1 $A "$4"; row 64,4096,64,2,1 $B "$5"
  } > "$dir/$1"
}
table() {  # file short_winner long_winner
  printf '{"entries":[{"bucket":"l3_r6_a8","dtype":"f32","shape":[8,8,7,2,3],"winner":{"id":"%s"}},{"bucket":"l6_r18_a4","dtype":"f32","shape":[64,4096,64,2,1],"winner":{"id":"%s"}}]}\n' "$2" "$3" > "$dir/$1"
}
cache first.jsonl 4.0 4.2 100.0 110.0
cache second.jsonl 3.92 4.116 100.0 110.0
table exhaustive.json $A $A
table judged.json $B $A
python3 "$script" "$dir/first.jsonl" "$dir/judged.json" --against "$dir/exhaustive.json" --repeat "$dir/second.jsonl" \
  > "$dir/out" 2>&1 || fail "exit $?"
grep -q 'the same winner in 1; .* geomean 1.0247, worst 1.0500 (f32 l3_r6_a8), best 1.0000' "$dir/out" \
  || fail "side by side: one entry 1.05, one the same winner"
grep -q '^  over 10 us (1 entries): geomean 1.0000, worst 1.0000 (f32 l6_r18_a4, 100.0 us)$' "$dir/out" \
  || fail "over 10 us: only the long shape, at 1.0"
grep -q '^run to run: 4 kernels on a shape timed in full by both runs' "$dir/out" || fail "run to run: 4 pairs (no copy)"
grep -q '^  0-5 us: n 2, geomean 0.9800, 5-95% 0.980-0.980, min 0.980, max 0.980$' "$dir/out" || fail "short kernels 0.98"
grep -q '^  over 50 us: n 2, geomean 1.0000' "$dir/out" || fail "long kernels 1.0"
# The judge: the plan names the short shape only (1.05, different winners), the third run puts it at 1.01.
python3 "$script" "$dir/first.jsonl" "$dir/judged.json" --against "$dir/exhaustive.json" --judge-plan "$dir/plan" \
  --padtune PT > "$dir/out" 2>&1 || fail "judge plan: exit $?"
grep -q '^judge plan: 1 shapes over 1.02, 2 kernels' "$dir/out" || fail "judge plan: one shape, two kernels"
[ "$(cat "$dir/plan/sizes-f32.txt")" = "8 8 7 2 3" ] || fail "judge plan: sizes-f32.txt holds the short shape alone"
[ "$(cat "$dir/plan/filter-f32-1.txt")" = "^constant_pad1d_backward__f32__(flat__bo1024__t256__w16|rowelem__bo256__t128__w4)\$" ] \
  || fail "judge plan: the filter names both winners, anchored, their common prefix once"
[ ! -e "$dir/plan/filter-f32-2.txt" ] || fail "judge plan: two ids took more than one filter"
# Many ids: filters of at most 256 bytes (padtune's limit) that match exactly those ids.
PYTHONPATH="$(dirname "$script")/.." python3 -c '
import re
from padtune_lab.compare_tables import id_filters
ids = {f"constant_pad1d_backward__bf16__flat__bo{64 << (k % 6)}__t{32 << (k % 4)}__w{k}" for k in range(60)}
pats = id_filters(ids)
assert len(pats) > 1 and all(len(p) <= 256 for p in pats), pats
others = {"constant_pad1d_backward__f32__flat__bo64__t32__w0", "constant_pad1d_backward__bf16__flat__bo64__t32__w60"}
assert {i for i in ids | others if any(re.fullmatch(p, i) for p in pats)} == ids
' || fail "judge plan: the filters of 60 ids are too long or match other ids"
grep -qF "PT tune --backend cuda --dtype f32 --sizes $dir/plan/sizes-f32.txt --exhaustive" "$dir/out" || fail "judge plan: no command"
[ ! -e "$dir/plan/sizes-f64.txt" ] || fail "judge plan: a dtype with no entry got a sizes file"
{ echo '{"padtune_cache":1,"device":{"name":"test"}}'; row 8,8,7,2,3 $A 4.0; row 8,8,7,2,3 $B 4.04; } > "$dir/third.jsonl"
python3 "$script" "$dir/first.jsonl" "$dir/judged.json" --against "$dir/exhaustive.json" --judge "$dir/third.jsonl" \
  > "$dir/out" 2>&1 || fail "judge: exit $?"
grep -q '^judged by a third run (.*third.jsonl): 1 entries; .* geomean 1.0100, worst 1.0100 (f32 l3_r6_a8); the first run on the same entries: geomean 1.0500, worst 1.0500$' "$dir/out" \
  || fail "judge: the third run's 1.01 beside the first run's 1.05"
python3 "$script" "$dir/first.jsonl" "$dir/judged.json" --judge "$dir/third.jsonl" > "$dir/out" 2>&1 && fail "--judge without --against was accepted"
grep -q "need --against" "$dir/out" || fail "--judge without --against: no message"
echo '{"not":"a cache"}' > "$dir/other.json"
python3 "$script" "$dir/first.jsonl" "$dir/judged.json" --repeat "$dir/other.json" > "$dir/out" 2>&1 \
  && fail "a --repeat file that is no cache was accepted"
grep -q "other.json: not a padtune measurement cache" "$dir/out" || fail "no message naming the file"
echo "compare-tables: side by side, over 10 us, run to run and the judge as expected"
