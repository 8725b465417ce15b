#!/usr/bin/env bash
# On a GPU machine: build (gpu preset), run the GPU and host tests, compute-sanitizer memcheck over
# the edge suite, and the compiler's resource report. Logs and a summary go to OUTDIR.
# Usage: scripts/gpu-check.sh OUTDIR [memcheck seconds, default 300]
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTDIR [memcheck-seconds]}
memcheck_seconds=${2:-300}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
summary="$out/summary.txt"
: > "$summary"
step() { echo "== $*" | tee -a "$summary"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee -a "$summary"

step "build (gpu preset)"
start=$(date +%s)
if ! { cmake --preset gpu && cmake --build --preset gpu; } > "$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; echo "build FAILED" | tee -a "$summary"; exit 1
fi
echo "built in $(( $(date +%s) - start )) s" | tee -a "$summary"

step "resource usage (registers, stack, local memory) of every kernel"
cuobjdump --dump-resource-usage build/gpu/kernels/libpadtune_kernels.a > "$out/resource-usage.txt" 2>&1
grep -c "Function" "$out/resource-usage.txt" | sed 's/^/kernels: /' | tee -a "$summary"
grep -E "STACK:[1-9]|LOCAL:[1-9]" "$out/resource-usage.txt" | head -5 | sed 's/^/uses local memory: /' | tee -a "$summary"

step "ctest -L gpu"
start=$(date +%s)
ctest --preset gpu -L gpu > "$out/ctest-gpu.log" 2>&1; rc_gpu=$?
tail -5 "$out/ctest-gpu.log" | tee -a "$summary"
echo "GPU tests: exit $rc_gpu in $(( $(date +%s) - start )) s" | tee -a "$summary"

step "ctest -LE gpu (host tests, on this machine too)"
ctest --preset gpu -LE gpu -j 16 > "$out/ctest-host.log" 2>&1; rc_host=$?
tail -3 "$out/ctest-host.log" | tee -a "$summary"

step "compute-sanitizer memcheck over the edge suite, every instantiation (limit ${memcheck_seconds} s)"
start=$(date +%s)
timeout "$memcheck_seconds" compute-sanitizer --tool memcheck --error-exitcode 99 --print-limit 20 \
  build/gpu/tests/padtune_gpu_tests --gtest_filter='Registry/GpuKernel.*' > "$out/memcheck.log" 2>&1; rc_mc=$?
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck.log" | tail -4 | tee -a "$summary"
echo "memcheck: exit $rc_mc (124 = time limit) in $(( $(date +%s) - start )) s, $(grep -c '^\[       OK \]' "$out/memcheck.log") instantiations passed" | tee -a "$summary"
[ $rc_gpu -eq 0 ] && [ $rc_host -eq 0 ] && [ $rc_mc -eq 0 ]
