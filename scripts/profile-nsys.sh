#!/usr/bin/env bash
# Nsight Systems over N runs of one instantiation (or the dispatcher's pick): the timeline with the
# "padtune" NVTX ranges, and a summary of the ranges and kernels.
# Usage: scripts/profile-nsys.sh ID|dispatch B,C,L,pad_left,pad_right [DTYPE] [N]
# Env: PADTUNE (default build/gpu/tuner/padtune), NSYS (default: nsys on the PATH), REPORT.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="usage: scripts/profile-nsys.sh ID|dispatch B,C,L,pad_left,pad_right [DTYPE] [N]"
id=${1:?$usage}
shape=${2:?$usage}
padtune=${PADTUNE:-build/gpu/tuner/padtune}
nsys=${NSYS:-$(command -v nsys || true)}
[[ -x $padtune ]] || { echo "profile-nsys: $padtune not found (build the gpu preset, or set PADTUNE)" >&2; exit 2; }
[[ -n $nsys ]] || { echo "profile-nsys: Nsight Systems (nsys) is not on the PATH; set NSYS to its path" >&2; exit 2; }
if [[ $id == dispatch ]]; then
  dtype=${3:-f32}; run_id=()
else
  dtype=$(sed -E 's/^constant_pad1d_backward__([a-z0-9]+)__.*/\1/' <<< "$id"); run_id=(--id "$id")
fi
report=${REPORT:-/tmp/padtune-nsys-$$}
"$nsys" profile --trace=cuda,nvtx --output "$report" --force-overwrite true \
  "$padtune" run "${run_id[@]}" --shape "$shape" --dtype "$dtype" -n "${4:-20}"
"$nsys" stats --report nvtx_sum,cuda_gpu_kern_sum "$report.nsys-rep"
echo "report: $report.nsys-rep"
