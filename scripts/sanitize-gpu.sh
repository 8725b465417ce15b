#!/usr/bin/env bash
# compute-sanitizer over the edge suite for every instantiation (the GPU tests Registry/GpuKernel.*):
#   memcheck   out-of-bounds and misaligned global accesses, bad frees, API errors
#   racecheck  shared-memory hazards (staged is the one variant with shared memory: one stage per
#              block, filled before a barrier and read after it; the refill by the block's next tile
#              happens only where a grid is smaller than the tiles, as in JIT launches (one wave),
#              which the default filter leaves out)
#   synccheck  barrier and warp-synchronous misuse
#   initcheck  reads of uninitialized device memory (not in the default set: ask for it)
# Prints one line of figures per tool and writes them to OUTDIR/sanitize.txt; a tool's log is kept
# in OUTDIR only when it found something or failed.
# Usage: scripts/sanitize-gpu.sh OUTDIR [TOOL...]   (default: memcheck racecheck synccheck)
#   BUILD             a built gpu preset (default build/gpu; built here if its tests are missing)
#   SANITIZE_FILTER   gtest filter (default 'Registry/GpuKernel.*': all instantiations)
#   SANITIZE_SECONDS  time limit per tool (default 1800); a tool stopped by it says how far it got
#   SANITIZE_JOBS     processes per tool, each a gtest shard of the instantiations, spread over the
#                     GPUs here (default: one per GPU; several on one GPU run no faster)
# Exit: 0 nothing found; 1 a tool found an error, a test failed, or a limit stopped a tool; 4 no GPU.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/sanitize-gpu.sh OUTDIR [memcheck] [racecheck] [synccheck] [initcheck]}
shift
tools=${*:-memcheck racecheck synccheck}
export PATH="$PATH:/usr/local/cuda/bin"
build=${BUILD:-build/gpu}
filter=${SANITIZE_FILTER:-Registry/GpuKernel.*}
limit=${SANITIZE_SECONDS:-1800}
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
jobs=${SANITIZE_JOBS:-$(( gpus > 0 ? gpus : 1 ))}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "scripts/sanitize-gpu.sh: SANITIZE_JOBS must be a positive integer, got '$jobs'"; exit 2; }
tests="$build/tests/padtune_gpu_tests"
mkdir -p "$out"
report="$out/sanitize.txt"
say() { echo "$*" | tee -a "$report"; }

nvidia-smi -L > /dev/null 2>&1 || { echo "scripts/sanitize-gpu.sh: no GPU here"; exit 4; }
if [ ! -x "$tests" ]; then
  { cmake --preset gpu && cmake --build --preset gpu --target padtune_gpu_tests; } > /tmp/padtune-sanitize-build.log 2>&1 \
    || { tail -40 /tmp/padtune-sanitize-build.log; echo "build FAILED"; exit 1; }
fi
total=$("$tests" --gtest_list_tests --gtest_filter="$filter" | grep -c '^  ')
say "== compute-sanitizer $(compute-sanitizer --version | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -1) on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1): $total instantiations x the edge suite (tests/support/edge_suite.cpp)"
status=0
for tool in $tools; do
  log="/tmp/padtune-$tool.log"
  start=$(date +%s)
  # SANITIZE_JOBS processes, each a gtest shard of the instantiations on GPU shard % GPUs: racecheck
  # costs about 3 s per instantiation, and that time is the GPU's (two shards on one H200 took as
  # long as one process), so only more GPUs shorten it.
  pids=()
  for ((shard = 0; shard < jobs; ++shard)); do
    CUDA_VISIBLE_DEVICES=$(( shard % (gpus > 0 ? gpus : 1) )) GTEST_TOTAL_SHARDS=$jobs GTEST_SHARD_INDEX=$shard \
      timeout -k 30 "$limit" \
      compute-sanitizer --tool "$tool" --error-exitcode 99 --print-limit 20 \
      "$tests" --gtest_filter="$filter" > "$log.$shard" 2>&1 &
    pids+=($!)
  done
  rc=0
  for pid in "${pids[@]}"; do
    wait "$pid"; r=$?
    # The worst exit wins: errors found (99) over a limit (124, 137) over a failed test (anything else).
    case $r in 99) rc=99 ;; 124|137) [ "$rc" -eq 99 ] || rc=$r ;; 0) ;; *) [ "$rc" -eq 0 ] && rc=$r ;; esac
  done
  cat "$log".* > "$log"; rm -f "$log".*
  seconds=$(( $(date +%s) - start ))
  ran=$(grep -c '^\[ RUN      \]' "$log")
  passed=$(grep -c '^\[       OK \]' "$log")
  # One summary per shard: add up their counts ("ERROR SUMMARY: N errors", "RACECHECK SUMMARY: N
  # hazards displayed (E errors, W warnings)").
  found=$(grep -E '(ERROR|RACECHECK) SUMMARY' "$log" | sed 's/^=* *//' |
    awk -v n="$jobs" '{ k = $1 " " $2; noun = $4 ($4 == "hazards" ? " " $5 : ""); sum += $3; c++
        if ($0 ~ /errors, [0-9]+ warnings\)/) { t = $0; sub(/.*\(/, "", t); split(t, a, /[^0-9]+/); e += a[1]; w += a[2]; detail = 1 } }
      END { if (c) printf "%s %d %s%s (%d of %d shards reported)", k, sum, noun,
                          detail ? sprintf(" (%d errors, %d warnings)", e, w) : "", c, n }')
  line="$tool: $passed of $total instantiations passed ($ran ran), ${found:-no summary}, $seconds s"
  # A tool that ran fewer tests than asked, with nothing else to say why, has not checked them all.
  [ "$rc" -eq 0 ] && [ "$ran" -lt "$total" ] && rc=3
  case $rc in
    0) ;;
    3) line="$line; only $ran of $total ran (log: $out/$tool.log)"; status=1 ;;
    124|137) line="$line; STOPPED by the $limit s limit (SANITIZE_SECONDS)"; status=1 ;;
    99) line="$line; FOUND ERRORS (log: $out/$tool.log)"; status=1 ;;
    *) line="$line; exit $rc (log: $out/$tool.log)"; status=1 ;;
  esac
  [ "$rc" -ne 0 ] && cp "$log" "$out/$tool.log"
  say "$line"
done
exit $status
