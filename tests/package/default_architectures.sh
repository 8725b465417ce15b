#!/usr/bin/env bash
# The default build (no architecture named: what `pip install .`, `pip wheel .` and a plain
# `cmake -B build` get) holds machine code for every architecture of cmake/padtune_architectures.cmake
# and PTX of the newest. A scratch configure with no list, one kernel unit built, its fat binary read
# with cuobjdump: CI builds one architecture itself, so this is how it sees the others.
# Usage: default_architectures.sh SOURCE_DIR SCRATCH_DIR CUOBJDUMP
set -euo pipefail
source=$1 dir=$2 cuobjdump=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$dir"
env -u CUDAARCHS cmake -S "$source" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPADTUNE_ENABLE_TESTS=OFF \
  -DPADTUNE_ENABLE_BENCH=OFF -DPADTUNE_ENABLE_PYTHON=OFF -DPADTUNE_ENABLE_MPI=OFF > "$dir.configure.log" 2>&1 \
  || { cat "$dir.configure.log"; fail "the default configure failed"; }
list=$(sed -n 's/^-- padtune: CUDA architectures //p' "$dir.configure.log")
echo "default architectures: $list"
# The issue's floor: SASS for these six, PTX of the newest.
for a in 80 86 89 90 100 120; do
  [[ ";$list;" == *";$a-real;"* || ";$list;" == *";$a;"* ]] || fail "the default list '$list' has no SASS for sm_$a"
done
object=kernels/CMakeFiles/padtune_kernels.dir/generated/flat_f32.cu.o
cmake --build "$dir" --target "$object" > "$dir.build.log" 2>&1 || { cat "$dir.build.log"; fail "building $object failed"; }
elf=$("$cuobjdump" --list-elf "$dir/$object")
ptx=$("$cuobjdump" --list-ptx "$dir/$object")
newest=0
for entry in ${list//;/ }; do
  a=${entry%%-*}
  [ "$a" -gt "$newest" ] && newest=$a
  if [[ "$entry" != *-virtual ]]; then grep -q "\.sm_$a\.cubin" <<< "$elf" || fail "no sm_$a machine code in $object:"$'\n'"$elf"; fi
  if [[ "$entry" != *-real ]]; then grep -q "\.sm_$a\.ptx" <<< "$ptx" || fail "no compute_$a PTX in $object:"$'\n'"$ptx"; fi
done
grep -q "\.sm_$newest\.ptx" <<< "$ptx" || fail "no PTX of the newest architecture (sm_$newest), which later GPUs need"
[ "$(grep -c '\.ptx' <<< "$ptx")" -eq 1 ] || fail "PTX of more than the newest architecture (the wheel's size):"$'\n'"$ptx"
echo "$object: $(grep -c '\.cubin' <<< "$elf") cubins ($(grep -o 'sm_[0-9]*' <<< "$elf" | sort -u -V | tr '\n' ' ')), PTX of sm_$newest"
