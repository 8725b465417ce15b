#!/usr/bin/env bash
# lab/bin/same-timer's launchers compile against the current kernel templates (one id of
# each variant it times, with an --extra file, exactly the source it builds), and ids
# the registry does not have are refused at compile time, by name: a thread count the rules do not
# give, a configuration not in its variant's description, an access width the variant does not use;
# and the seed, which needs dx zeroed first.
# Usage: same_timer_shim.sh SCRIPT EXTRA.cu NVCC SCRATCH_DIR (compiles for sm_90: it checks the source, runs nothing)
set -uo pipefail
script=$1 extra=$2 nvcc=$3 dir=$4
root=$(cd "$(dirname "$script")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; head -30 "$dir/out" 2>/dev/null; exit 1; }
compile() {  # source object
  "$nvcc" -std=c++20 -O1 -arch=sm_90 -Xcompiler -fPIC -I "$root/kernels/device" -I "$root/kernels/launch" -I "$root/kernels/include" \
    -c "$1" -o "$2" > "$dir/out" 2>&1
}
I=constant_pad1d_backward
python3 "$script" --print-shim ${I}__f16__rowtile__bo1024__t128__w16 ${I}__f32__flat__bo4096__t256__w16 \
  ${I}__bf16__flatvec__bo512__t64__w16 ${I}__f64__ewise__bo64__t64__w8 ${I}__f16__staged__bo4096__t128__w16 \
  ${I}__f16__rowelem__bo1024__t128__w2 --extra "$extra" > "$dir/shim.cu" || fail "--print-shim exit $?"
compile "$dir/shim.cu" "$dir/shim.o" || fail "the shim does not compile"
nm "$dir/shim.o" > "$dir/symbols"
for n in 0 1 2 3 4 5; do grep -q " T launch_$n$" "$dir/symbols" || fail "no launcher launch_$n"; done
want=$(grep -cE 'extern\s+"C"\s+int\s+same_timer_\w+\s*\(' "$extra")
[[ $want -ge 1 && $(grep -c " T same_timer_" "$dir/symbols") -eq $want ]] \
  || fail "the --extra file declares $want same_timer_ functions; the object has $(grep -c ' T same_timer_' "$dir/symbols")"
# flat bo64 w16 of f16 runs 8 threads, not 256; rowelem bo2048 t128 keeps the rules but is not among
# rowelem's configs; rowelem moves 2-byte elements, not 16-byte chunks.
for bad in f16__flat__bo64__t256__w16 f16__rowelem__bo2048__t128__w2 f16__rowelem__bo1024__t128__w16; do
  python3 "$script" --print-shim ${I}__$bad > "$dir/bad.cu" || fail "--print-shim $bad: exit $?"
  compile "$dir/bad.cu" "$dir/bad.o" && fail "$bad compiled"
  grep -q "${I}__$bad is not in the registry" "$dir/out" || fail "$bad: the refusal does not name the id"
done
python3 "$script" --print-shim ${I}__f16__seed__bo64__t64__w2 > "$dir/seed.cu" || fail "--print-shim of a seed id: exit $?"
compile "$dir/seed.cu" "$dir/seed.o" && fail "a seed id compiled"
grep -q "needs dx zeroed first (the seed): not timed here" "$dir/out" || fail "the seed's refusal does not say why"
echo "same_timer shim: 6 variants and $want experiments compile; 3 ids not in the registry and the seed are refused"
