#!/usr/bin/env bash
# Joins common.cuh to each case file and times the case's kernels against the library's own
# templates of the same ids and torch.compile's kernel, one timer each (lab/bin/same-timer).
# Usage: lab/experiments/shape_in/run.sh OUT_DIR [CASE...]   (cases: p8_f16 p9_f32 p9_f16 p2_f16 p8_f64)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$here/../..
out=$1
shift
mkdir -p "$out"
declare -A shape=([p8_f16]=8,128,1000,7,9 [p9_f32]=2,4,8,2,3 [p9_f16]=2,4,8,2,3 [p2_f16]=32,256,8192,4,4 [p8_f64]=8,128,1000,7,9)
declare -A ids=(
  [p8_f16]="constant_pad1d_backward__f16__flatvec__bo1024__t128__w16 constant_pad1d_backward__f16__rowelem__bo1024__t256__w2"
  [p9_f32]="constant_pad1d_backward__f32__rowelem__bo512__t128__w4 constant_pad1d_backward__f32__rowelem__bo64__t64__w4"
  [p9_f16]="constant_pad1d_backward__f16__rowelem__bo512__t128__w2"
  [p2_f16]="constant_pad1d_backward__f16__flatvec__bo4096__t256__w16"
  [p8_f64]="constant_pad1d_backward__f64__flat__bo4096__t256__w16 constant_pad1d_backward__f64__flatvec__bo4096__t256__w16")
for c in "${@:-p8_f16 p9_f32 p9_f16 p2_f16 p8_f64}"; do
  for c1 in $c; do
    cat "$here/common.cuh" "$here/$c1.cu" > "$out/$c1.cu"
    # shellcheck disable=SC2086
    python3 "$root/lab/bin/same-timer" "${shape[$c1]}" "${c1#*_}" --inductor --samples "${SAMPLES:-200}" --extra "$out/$c1.cu" ${ids[$c1]} 2>&1 |
      grep -v "^W[0-9]* " | tee "$out/$c1.txt"
  done
done
