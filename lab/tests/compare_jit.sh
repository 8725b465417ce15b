#!/usr/bin/env bash
# lab/bin/compare-jit on a made-up cache whose answer is known: on shape A the JIT rowtile beats
# every ahead-of-time kernel, on shape B the ahead-of-time flat wins; a JIT seed (whose id has no
# variant) pairs with its twin; failed rows and the memcpy floor are ignored; a cache without
# pairs says so; a file that is no cache is refused with its name.
# Usage: compare_jit.sh SCRIPT SCRATCH_DIR
set -uo pipefail
script=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null; exit 1; }
row() {  # id B C L pl pr us [status]
  printf '{"cold":{"median_us":%s,"q1_us":0,"q3_us":0,"samples":10},"dtype":"f32","error":"","hot":{"median_us":0,"q1_us":0,"q3_us":0,"samples":0},"id":"%s","shape":[%s,%s,%s,%s,%s],"status":"%s"}\n' \
    "$7" "$1" "$2" "$3" "$4" "$5" "$6" "${8:-ok}"
}
{
  echo '{"padtune_cache":1,"device":{"name":"test"}}'
  row cudaMemcpyAsync_d2d 2 4 300 3 5 1.0
  row constant_pad1d_backward__f32__rowtile__bo1024__t256__w16 2 4 300 3 5 10.0
  row constant_pad1d_backward__f32__flat__bo1024__t256__w16 2 4 300 3 5 12.0
  row jit__constant_pad1d_backward__f32__3__5__1024__rowtile__t256__w16 2 4 300 3 5 8.0
  row jit__constant_pad1d_backward__f32__3__5__1024__flat__t256__w16 2 4 300 3 5 0.5 failed
  row constant_pad1d_backward__f32__seed__bo256__t256__w4 2 4 300 3 5 20.0
  row jit__constant_pad1d_backward__f32__3__5__256 2 4 300 3 5 19.0
  row constant_pad1d_backward__f32__rowtile__bo1024__t256__w16 3 2 1000 8 0 20.0
  row constant_pad1d_backward__f32__flat__bo1024__t256__w16 3 2 1000 8 0 15.0
  row jit__constant_pad1d_backward__f32__8__0__1024__flat__t256__w16 3 2 1000 8 0 16.5
  echo '{"torn'
} > "$dir/cache.jsonl"
python3 "$script" "$dir/cache.jsonl" > "$dir/out" 2> "$dir/err" || fail "exit $?: $(cat "$dir/err")"
grep -q "| (2, 4, 300, 3, 5) | f32 | rowtile bo1024 t256 w16 (10.00) | rowtile bo1024 t256 w16 (8.00) | 0.800 | JIT |" "$dir/out" \
  || fail "shape A: the JIT rowtile should win at 0.800"
grep -q "| (3, 2, 1000, 8, 0) | f32 | flat bo1024 t256 w16 (15.00) | flat bo1024 t256 w16 (16.50) | 1.100 | AOT |" "$dir/out" \
  || fail "shape B: the ahead-of-time flat should win"
grep -q "JIT fastest on 1 of 2 shapes.* (3 pairs): median 0.950, min 0.800, max 1.100" "$dir/out" \
  || fail "summary line (the JIT seed, whose id has no variant, is the third pair)"
grep -q "not JSON" "$dir/err" || fail "the torn last line was not reported"
{  # a JIT kernel whose twin was not measured: no pairs, said so
  echo '{"padtune_cache":1}'
  row constant_pad1d_backward__f32__rowtile__bo1024__t256__w16 2 4 300 3 5 10.0
  row jit__constant_pad1d_backward__f32__3__5__1024__flat__t256__w16 2 4 300 3 5 9.0
} > "$dir/no_twin.jsonl"
python3 "$script" "$dir/no_twin.jsonl" > "$dir/out" 2>&1 || fail "no twins: exit $?"
grep -q "No JIT kernel has an ahead-of-time twin" "$dir/out" || fail "no twins: not said"
echo '{"not":"a cache"}' > "$dir/other.json"
python3 "$script" "$dir/other.json" > "$dir/out" 2>&1 && fail "a file that is no cache was accepted"
grep -q "other.json: not a padtune measurement cache" "$dir/out" || fail "no message naming the file"
echo "compare-jit.py: both winners, the twin ratios and the refusal as expected"
