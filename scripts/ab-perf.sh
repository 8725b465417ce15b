#!/usr/bin/env bash
# On a GPU machine: an A/B of two builds that differ only in their CUDA flags (a kernel-side switch
# such as -DPADTUNE_L2_EVICT_FIRST=0), measured on the performance suite in alternating rounds
# (A B A B ...) so that the GPU's drift falls on both; then scripts/compare-ab.py.
# Usage: scripts/ab-perf.sh OUTDIR "CUDA_FLAGS_A" "CUDA_FLAGS_B" [ROUNDS]   (default 2 rounds)
#   AB_ARGS: options for each `padtune tune`, split at spaces, no quoting (e.g. --variant staged flat --dtype f16)
#   AB_SHAPES: a grep -E over the suite's lines, which end in their tag (e.g. '# (P5|P7)$'); default
#   every shape
set -euo pipefail
out=$(realpath -m "${1:?usage: scripts/ab-perf.sh OUTDIR FLAGS_A FLAGS_B [ROUNDS]}")
flags=("${2?}" "${3?}")
rounds=${4:-2}
read -ra tune_args <<< "${AB_ARGS:-}"
cd "$(dirname "$0")/.."
mkdir -p "$out"
scratch=$(mktemp -d /tmp/padtune-ab.XXXXXX)
export PATH="$PATH:/usr/local/cuda/bin"
for side in 0 1; do
  dir=build/ab-$side
  start=$(date +%s)
  if ! { cmake --preset gpu -B "$dir" -DCMAKE_CUDA_FLAGS="${flags[$side]}" &&
         cmake --build "$dir" --target padtune_cli padtune_bench; } > "$scratch/build-$side.log" 2>&1; then
    cp "$scratch/build-$side.log" "$out/"; tail -30 "$scratch/build-$side.log"; exit 1
  fi
  echo "built side $side ('${flags[$side]}') in $(( $(date +%s) - start )) s"
done
build/ab-0/bench/padtune_bench --padtune_print_suite=perf > "$scratch/suite-all.txt"
{ grep '^#' "$scratch/suite-all.txt"; grep -v '^#' "$scratch/suite-all.txt" | grep -E "${AB_SHAPES:-.}" || true; } > "$scratch/suite.txt"
[[ $(grep -vc '^#' "$scratch/suite.txt") -gt 0 ]] || { echo "scripts/ab-perf.sh: AB_SHAPES '${AB_SHAPES:-}' matches no shape of the suite"; exit 2; }
caches=()
for ((r = 1; r <= rounds; r++)); do
  for side in 0 1; do
    cache="$out/ab-$side-round$r.cache.jsonl"
    log="$scratch/tune-$side-$r.log"
    rm -f "$cache"
    start=$(date +%s)
    if ! build/ab-$side/tuner/padtune tune --backend cuda --exhaustive --sizes "$scratch/suite.txt" "${tune_args[@]}" \
        --table "$scratch/table-$side-$r.json" --cache "$cache" > /dev/null 2> "$log"; then
      cp "$log" "$out/"; tail -30 "$log"; exit 1
    fi
    echo "round $r side $side: $(grep -m1 -o '[0-9]* measured, .* failed' "$log") ($(( $(date +%s) - start )) s)"
    caches+=("$cache")
  done
done
python3 scripts/compare-ab.py --a="${flags[0]}" --b="${flags[1]}" "${caches[@]}" | tee "$out/ab.md"
