#!/usr/bin/env bash
# Every kernel experiment still compiles as lab/bin/same-timer would build it (--extra FILE, with the
# launchers of the library's templates beside it; shape_in's cases joined to their common.cuh as
# shape_in/run.sh joins them): lab code that nothing builds would rot unseen.
# Usage: experiments_compile.sh SAME_TIMER NVCC SCRATCH_DIR (compiles to compute_90 PTX, which every
# error of the source fails, without ptxas: a quarter of the time on CI; runs nothing)
set -uo pipefail
script=$1 nvcc=$2 dir=$3
root=$(cd "$(dirname "$script")/../.." && pwd)
experiments=$root/lab/experiments
rm -rf "$dir" && mkdir -p "$dir"
failed=0 count=0
check() {  # name extra.cu
  count=$((count + 1))
  if ! python3 "$script" --print-shim --extra "$2" > "$dir/$1.shim.cu" 2> "$dir/$1.out" ||
     ! "$nvcc" -std=c++20 -O1 -arch=compute_90 -Xcompiler -fPIC -I "$root/kernels/device" -I "$root/kernels/launch" \
         -I "$root/kernels/include" -c "$dir/$1.shim.cu" -o "$dir/$1.o" >> "$dir/$1.out" 2>&1; then
    echo "FAIL: $1 does not compile:"; head -20 "$dir/$1.out"; failed=1
  fi
}
for f in "$experiments"/*.cu; do check "$(basename "$f" .cu)" "$f"; done
for f in "$experiments"/shape_in/*.cu; do
  name=shape_in_$(basename "$f" .cu)
  cat "$experiments/shape_in/common.cuh" "$f" > "$dir/$name.cu"
  check "$name" "$dir/$name.cu"
done
[ "$failed" = 0 ] || exit 1
echo "lab experiments: $count kernel files compile"
