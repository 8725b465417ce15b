#!/usr/bin/env bash
# lab/bin/compare-ab on two made-up rounds whose answer is known: side B's rowtile is 10% slower
# than A's in both rounds and its flat the same; the per-shape column is the best candidate over the
# round's memcpy; an odd number of caches and a file that is no cache are refused with a message.
# Usage: compare_ab.sh SCRIPT SCRATCH_DIR
set -uo pipefail
script=$1 dir=$2
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null; exit 1; }
row() {  # id us
  printf '{"cold":{"median_us":%s,"q1_us":0,"q3_us":0,"samples":10},"dtype":"f32","error":"","hot":{"median_us":0,"q1_us":0,"q3_us":0,"samples":0},"id":"%s","shape":[2,4,300,3,5],"status":"ok"}\n' "$2" "$1"
}
cache() {  # file rowtile_us flat_us
  { echo '{"padtune_cache":1,"device":{"name":"test"}}'
    row cudaMemcpyAsync_d2d 10.0
    row constant_pad1d_backward__f32__rowtile__bo1024__t256__w16 "$2"
    row constant_pad1d_backward__f32__flat__bo1024__t256__w16 "$3"
  } > "$dir/$1"
}
cache a1.jsonl 11.0 12.0; cache b1.jsonl 12.1 12.0; cache a2.jsonl 11.0 12.0; cache b2.jsonl 12.1 12.0
python3 "$script" --a=on --b=-DOFF "$dir"/a1.jsonl "$dir"/b1.jsonl "$dir"/a2.jsonl "$dir"/b2.jsonl > "$dir/out" 2>&1 \
  || fail "exit $?"
grep -q '^| (2, 4, 300, 3, 5) | f32 | 1.100 1.100 | 1.200 1.200 | flat__bo1024__t256__w16 |$' "$dir/out" \
  || fail "per shape: A's best rowtile at 1.100, B's best flat at 1.200"
grep -q '^| rowtile | 1.1000 | 1.1000 | 1 |$' "$dir/out" || fail "rowtile: B/A 1.1 in both rounds"
grep -q '^| flat | 1.0000 | 1.0000 | 1 |$' "$dir/out" || fail "flat: B/A 1.0 in both rounds"
python3 "$script" "$dir"/a1.jsonl "$dir"/b1.jsonl "$dir"/a2.jsonl > "$dir/out" 2>&1 && fail "an odd number of caches was accepted"
grep -q "caches come in pairs" "$dir/out" || fail "odd count: no message"
echo '{"not":"a cache"}' > "$dir/other.json"
python3 "$script" "$dir"/a1.jsonl "$dir/other.json" > "$dir/out" 2>&1 && fail "a file that is no cache was accepted"
grep -q "other.json: not a padtune measurement cache" "$dir/out" || fail "no message naming the file"
echo "compare-ab.py: the ratios and the refusals as expected"
