#!/usr/bin/env bash
# scripts/peers/same_timer.py's launchers compile against the current kernel templates (one id of
# each variant, and the experiments' --extra file), and an id whose thread count the registry's rules
# do not give is refused at compile time, by name.
# Usage: same_timer_shim.sh SCRIPT EXTRA.cu NVCC SCRATCH_DIR (compiles for sm_90: it checks the source, runs nothing)
set -uo pipefail
script=$1 extra=$2 nvcc=$3 dir=$4
root=$(cd "$(dirname "$script")/../.." && pwd)
rm -rf "$dir" && mkdir -p "$dir"
fail() { echo "FAIL: $*"; cat "$dir/out" 2>/dev/null | head -30; exit 1; }
compile() {  # source object
  "$nvcc" -std=c++20 -O1 -arch=sm_90 -Xcompiler -fPIC -I "$root/kernels/device" -I "$root/kernels/include" \
    -c "$1" -o "$2" > "$dir/out" 2>&1
}
I=constant_pad1d_backward
python3 "$script" --print-shim ${I}__f16__rowtile__bo1024__t128__w16 ${I}__f32__flat__bo4096__t256__w16 \
  ${I}__bf16__flatvec__bo512__t64__w16 ${I}__f64__ewise__bo64__t64__w8 ${I}__f16__staged__bo4096__t128__w16 \
  ${I}__f16__rowelem__bo1024__t128__w2 > "$dir/shim.cu" || fail "--print-shim exit $?"
cat "$extra" >> "$dir/shim.cu"
compile "$dir/shim.cu" "$dir/shim.o" || fail "the shim does not compile"
for n in 0 1 2 3 4 5; do nm "$dir/shim.o" | grep -q " T launch_$n$" || fail "no launcher launch_$n"; done
[[ $(nm "$dir/shim.o" | grep -c " T same_timer_") -ge 2 ]] || fail "the --extra file's functions are missing"
# flat bo64 w16 of f16 is 8 chunks on 8 threads, not 256.
python3 "$script" --print-shim ${I}__f16__flat__bo64__t256__w16 > "$dir/bad.cu" || fail "--print-shim exit $?"
compile "$dir/bad.cu" "$dir/bad.o" && fail "a thread count the rules do not give compiled"
grep -q "is not an instantiation of the registry's rules" "$dir/out" || fail "the refusal does not name the id"
echo "same_timer shim: 6 variants and the experiments compile; a wrong id is refused"
