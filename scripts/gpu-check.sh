#!/usr/bin/env bash
# On a GPU machine: build (gpu preset), then the steps asked for, with logs and a summary in OUTDIR.
# Usage: scripts/gpu-check.sh OUTDIR [STEP...]   steps: test memcheck racecheck isolation tune budget fresh mpi jit bench peers sweep plots profile perf
#                                                  exhaustive pads models torch heldout
#        (default: test memcheck tune)
#   test      ctest -L gpu (the CUDA fault-isolation test among them; GPU_TEST_JOBS at once, default 4),
#             then the host tests
#   memcheck  compute-sanitizer memcheck over the edge suite, every instantiation (scripts/sanitize-gpu.sh)
#   racecheck compute-sanitizer racecheck and synccheck, the same way; SANITIZE_SECONDS bounds each,
#             SANITIZE_JOBS processes share the instantiations (default 4)
#   isolation the same small tune isolated (the default) and --no-isolate: the cost of the worker
#   tune      padtune tune over the default sweep (resumes from results/<gpu>.cache.jsonl);
#             TUNE_SECONDS bounds it (default 480), TUNE_ARGS adds options
#   budget    padtune tune --budget BUDGET_SECONDS (default 60) into a scratch folder, compared with
#             the exhaustive cache in results/ (lab/bin/compare-tables)
#   fresh     the main job's tune from an empty folder (what scripts/tune runs there), its time, and
#             its table against the exhaustive one in results/ side by side, with the drift of the
#             kernels both runs timed in full (lab/bin/compare-tables --against --repeat), and the
#             entries over 1.02 timed again by a third run (--judge-plan, --judge)
#   mpi       the default sweep on one GPU, then under `mpirun -np MPI_RANKS` (default: every GPU
#             here), each from an empty cache: both times, and each table's winners against the
#             one-GPU cache (the one-GPU table's own figure is the noise to compare with);
#             MPI_TUNE_ARGS adds options to both; then the same sweep as MPI_RANKS independent
#             `padtune tune --shard I/N` processes at once, one GPU each, no MPI (what busy GPUs
#             cost without a team); every run's log says where its time went
#   jit       padtune tune --jit over the performance suite (JIT_ARGS, default: f32, rowtile and flat):
#             JIT kernels with the pads compiled in against the ahead-of-time ones, jit.md
#             (lab/bin/compare-jit), the tune's log in jit.log
#   bench     the dispatcher's overhead benchmark
#   peers     padtune_bench over the performance suite and the peers (PyTorch, Triton) in one run:
#             bench.json, peers.json, peers.md (lab/bin/compare-peers)
#   sweep     padtune_bench over the sweep of row lengths and row counts: bench-sweep.json
#   plots     lab/bin/plot: peers-gbps.png, table-heatmap.png (after peers)
#   profile   Nsight Compute on the dispatcher's pick for P1 f32 and P6 bf16: DRAM bytes vs the
#             contract (scripts/profile-ncu.sh): ncu.txt
#   perf      every candidate on the performance suite (padtune_bench --padtune_print_suite=perf),
#             all dtypes: perf.txt;
#             PERF_ARGS narrows it (e.g. --variant flat flatvec)
#   exhaustive the table the project ships: padtune tune --exhaustive over every variant but seed,
#             into EXHAUSTIVE_DIR (default /tmp/padtune-exhaustive), at most EXHAUSTIVE_SECONDS
#             (default 540); resumes from that folder's cache, or from EXHAUSTIVE_SEED (a
#             <gpu>.cache.jsonl[.gz] an earlier machine returned). Finished, it is copied into
#             results/ and the build re-embeds it (the steps after it use it; unfinished, they are
#             left out); OUTDIR gets the table and the gzipped cache
#   pads      lab/bin/pad-bench: eager pads with padtune.enable() against PyTorch's, pads.{json,md}
#   models    lab/bin/model-bench: training steps of real models, models.{json,md}; the models'
#             wheels (pytorch-tcn, conformer, einops) from WHEELS_DIR when the machine has no network
#   torch     lab/bin/torch-bench --no-narrow TORCH_RUNS times (default 3, TORCH_BUDGET s each,
#             default 150), then lab/bin/torch-pool: torch-pooled/torch.{json,md,png}
#   heldout   lab/bin/held-out --seed HELDOUT_SEED (default 21) --autotune: the vote's picks and
#             first-use timing's on 24 shapes no table holds, held-out/held-out.{json,md}
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUTDIR [test] [memcheck] [tune]}
shift
steps=${*:-test memcheck tune}
mkdir -p "$out"
export PATH="$PATH:/usr/local/cuda/bin"
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }
seconds_since() { awk -v t0="$1" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - t0 }'; }  # T0 from date +%s.%N
failed=0
# lab/bin/compare-tables of the table in folder $1 against the exhaustive cache in results/ of the same
# GPU (results/ holds several cards'): each winner against each shape's best, or with --side-by-side
# against the exhaustive table's winners, with the drift of the kernels both runs timed in full.
compare_with_exhaustive() {
  local dir=$1 mode=${2:-} table name extra=() judge=/tmp/padtune-judge
  table=$(ls "$dir"/*.json 2>/dev/null | head -1)  # the table the tune wrote beside its cache
  if [ -z "$table" ]; then say "the tune wrote no table in $dir"; failed=1; return; fi
  name=$(basename "$table" .json)
  if [ ! -f "results/$name.cache.jsonl" ]; then say "no exhaustive cache results/$name.cache.jsonl to compare with"; return; fi
  # With --side-by-side the same call plans the judge: the entries over 1.02 again, in a third run
  # that chose neither winner (compare-tables' docstring).
  [ "$mode" = --side-by-side ] && { rm -rf "$judge"; extra=(--against "results/$name.json" --repeat "$dir/$name.cache.jsonl" --judge-plan "$judge"); }
  python3 lab/bin/compare-tables "results/$name.cache.jsonl" "$table" "${extra[@]}" 2>&1 | tee -a "$summary"
  [ "$mode" = --side-by-side ] || return
  [ -d "$judge" ] || { say "compare-tables wrote no judge plan"; failed=1; return; }
  for filter in "$judge"/filter-*.txt; do  # filter-DTYPE-K.txt: padtune takes a filter of at most 256 bytes
    [ -e "$filter" ] || { say "judge: no entry over 1.02 to time again"; return; }
    local dtype; dtype=$(basename "$filter" .txt); dtype=${dtype#filter-}; dtype=${dtype%-*}
    build/gpu/tuner/padtune tune --backend cuda --dtype "$dtype" --sizes "$judge/sizes-$dtype.txt" --exhaustive \
      --filter "$(cat "$filter")" --table "$judge/judge.json" --cache "$judge/judge.cache.jsonl" \
      > /dev/null 2>> "$out/judge.log" || failed=1
  done
  python3 lab/bin/compare-tables "results/$name.cache.jsonl" "$table" --against "results/$name.json" \
    --judge "$judge/judge.cache.jsonl" > /tmp/padtune-judge.txt 2>&1 || { say "compare-tables --judge failed:"; failed=1; }
  grep -A5 '^judge\|rror' /tmp/padtune-judge.txt | tee -a "$summary"
  gzip -c "$judge/judge.cache.jsonl" > "$out/judge.cache.jsonl.gz" 2>/dev/null  # the third run, to check later
}

# The Python package from this tree's build (build/gpu/python), and the models' wheels where given.
site=/tmp/padtune-site
with_package() { PYTHONPATH="$PWD/python:$site${PYTHONPATH:+:$PYTHONPATH}" PADTUNE_NATIVE_DIR="$PWD/build/gpu/python" "$@"; }

say "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee -a "$summary"

# Only 8 files come back from a lent machine: the build log stays out of OUTDIR unless it failed.
build_or_exit() {
  if ! { cmake --preset gpu && cmake --build --preset gpu; } > /tmp/padtune-build.log 2>&1; then
    cp /tmp/padtune-build.log "$out/build.log"; tail -40 /tmp/padtune-build.log; say "build FAILED"; exit 1
  fi
}

say "== build (gpu preset)"
start=$(date +%s)
build_or_exit
say "built in $(( $(date +%s) - start )) s"
cuobjdump --dump-resource-usage build/gpu/kernels/libpadtune_kernels.a > "$out/resource-usage.txt" 2>&1
say "kernels: $(grep -c Function "$out/resource-usage.txt"), with a stack frame: $(grep -cE 'STACK:[1-9]' "$out/resource-usage.txt"), with local memory: $(grep -cE 'LOCAL:[1-9]' "$out/resource-usage.txt")"

for step in $steps; do
  start=$(date +%s)
  case $step in
    test)
      say "== ctest -L gpu"
      ctest --preset gpu -L gpu -j "${GPU_TEST_JOBS:-4}" > /tmp/padtune-ctest-gpu.log 2>&1 || { failed=1; cp /tmp/padtune-ctest-gpu.log "$out/"; }
      grep -E "tests passed|tests failed|Total Test time" /tmp/padtune-ctest-gpu.log | tee -a "$summary"
      cat build/gpu/tests/faults_cuda/summary.txt 2>/dev/null | tee -a "$summary" \
        || say "cli.tune.cuda.faults_isolated left no summary: see the ctest log"
      say "== host tests"
      ctest --preset gpu -LE gpu -j 16 > /tmp/padtune-ctest-host.log 2>&1 || { failed=1; cp /tmp/padtune-ctest-host.log "$out/"; }
      grep -E "tests passed|tests failed" /tmp/padtune-ctest-host.log | tee -a "$summary" ;;
    memcheck|racecheck)
      tools=$([ "$step" = memcheck ] && echo memcheck || echo racecheck synccheck)
      say "== compute-sanitizer $tools, edge suite, every instantiation"
      scripts/sanitize-gpu.sh "$out" $tools | tee -a "$summary"
      [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1 ;;
    tune)
      say "== padtune tune (limit ${TUNE_SECONDS:-480} s)"
      timeout -s INT "${TUNE_SECONDS:-480}" build/gpu/tuner/padtune tune --backend cuda ${TUNE_ARGS:-} \
        > "$out/tune.txt" 2> "$out/tune.log"; rc=$?
      tail -3 "$out/tune.log" | tee -a "$summary"
      say "tune exit $rc (124: stopped by the time limit; run again to resume)"
      cp results/*.json results/*.cache.jsonl "$out/" 2>/dev/null ;;
    budget)
      say "== padtune tune --budget ${BUDGET_SECONDS:-60}"
      rm -rf /tmp/padtune-budget
      build/gpu/tuner/padtune tune --backend cuda --budget "${BUDGET_SECONDS:-60}" --results-dir /tmp/padtune-budget \
        > /dev/null 2> "$out/budget.log" || failed=1
      tail -1 "$out/budget.log" | tee -a "$summary"
      compare_with_exhaustive /tmp/padtune-budget ;;
    fresh)
      say "== padtune tune from an empty folder (the main job)"
      rm -rf /tmp/padtune-fresh
      build/gpu/tuner/padtune tune --backend cuda --results-dir /tmp/padtune-fresh > /dev/null 2> "$out/fresh.log" || failed=1
      grep -E ' measured, |time: ' "$out/fresh.log" | tee -a "$summary"
      compare_with_exhaustive /tmp/padtune-fresh --side-by-side ;;
    mpi)
      ranks=${MPI_RANKS:-$(nvidia-smi -L | wc -l)}
      say "== padtune tune on one GPU, then mpirun -np $ranks padtune tune${MPI_TUNE_ARGS:+ ($MPI_TUNE_ARGS)}"
      rm -rf /tmp/padtune-one /tmp/padtune-mpi
      t0=$(date +%s.%N)
      build/gpu/tuner/padtune tune --backend cuda ${MPI_TUNE_ARGS:-} --results-dir /tmp/padtune-one > /dev/null 2> "$out/mpi-one.log" || failed=1
      t1=$(date +%s.%N)
      OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np "$ranks" build/gpu/tuner/padtune tune --backend cuda \
        ${MPI_TUNE_ARGS:-} --results-dir /tmp/padtune-mpi > /dev/null 2> "$out/mpi.log" || failed=1
      t2=$(date +%s.%N)
      say "$(echo "$t0 $t1 $t2" | awk -v n="$ranks" '{printf "one GPU %.1f s, %d ranks %.1f s: %.2f of the one-GPU time", $2 - $1, n, $3 - $2, ($3 - $2) / ($2 - $1)}')"
      grep -E ' measured|time: ' "$out/mpi-one.log" "$out/mpi.log" | tee -a "$summary"
      rm -rf /tmp/padtune-shard-*
      t0=$(date +%s.%N); pids=()
      for ((i = 0; i < ranks; i++)); do
        CUDA_VISIBLE_DEVICES=$i build/gpu/tuner/padtune tune --backend cuda ${MPI_TUNE_ARGS:-} --shard "$i/$ranks" \
          --results-dir "/tmp/padtune-shard-$i" > /dev/null 2> "$out/mpi-shard-$i.log" & pids+=($!)
      done
      for p in "${pids[@]}"; do wait "$p" || failed=1; done
      say "$ranks independent --shard processes, one GPU each: $(seconds_since "$t0") s"
      grep -E ' measured, |time: ' "$out"/mpi-shard-*.log | tee -a "$summary"
      say "one-GPU table against the one-GPU cache (the noise):"
      python3 lab/bin/compare-tables /tmp/padtune-one/*.cache.jsonl /tmp/padtune-one/*.json 2>&1 | tee -a "$summary"
      say "mpirun table against the one-GPU cache:"
      python3 lab/bin/compare-tables /tmp/padtune-one/*.cache.jsonl /tmp/padtune-mpi/*.json 2>&1 | tee -a "$summary" ;;
    perf)
      say "== the performance suite, every candidate"
      build/gpu/bench/padtune_bench --padtune_print_suite=perf > /tmp/padtune-perf-suite.txt
      build/gpu/tuner/padtune tune --backend cuda --exhaustive --sizes /tmp/padtune-perf-suite.txt ${PERF_ARGS:-} --table "$out/perf.json" \
        --cache /tmp/padtune-perf.cache.jsonl > "$out/perf.txt" 2> /tmp/padtune-perf.log || failed=1
      tail -1 /tmp/padtune-perf.log | tee -a "$summary" ;;
    jit)
      say "== padtune tune --jit over the performance suite (${JIT_ARGS:---dtype f32 --variant rowtile flat})"
      build/gpu/bench/padtune_bench --padtune_print_suite=perf > /tmp/padtune-perf-suite.txt
      rm -rf /tmp/padtune-jit
      PADTUNE_JIT_CACHE=/tmp/padtune-jit/jit-cache build/gpu/tuner/padtune tune --backend cuda --exhaustive --jit \
        --sizes /tmp/padtune-perf-suite.txt ${JIT_ARGS:---dtype f32 --variant rowtile flat} --results-dir /tmp/padtune-jit \
        > /dev/null 2> "$out/jit.log" || failed=1
      tail -3 "$out/jit.log" | tee -a "$summary"
      python3 lab/bin/compare-jit /tmp/padtune-jit/*.cache.jsonl > "$out/jit.md" || failed=1
      tail -1 "$out/jit.md" | tee -a "$summary" ;;
    isolation)
      say "== isolation overhead: one small tune isolated, then in process"
      printf '64 64 4096 3 5\n1024 32 1000 8 0\n8 8 65536 0 0\n' > /tmp/padtune-isolation-sizes.txt
      for mode in --isolate --no-isolate; do
        rm -rf /tmp/padtune-isolation
        t0=$(date +%s.%N)
        build/gpu/tuner/padtune tune --backend cuda --dtype f32 --variant rowtile flat --sizes /tmp/padtune-isolation-sizes.txt \
          --results-dir /tmp/padtune-isolation $mode > /dev/null 2> /tmp/padtune-isolation.log || failed=1
        say "$mode: $(seconds_since "$t0") s, $(grep -oE '[0-9]+ measured' /tmp/padtune-isolation.log)"
      done ;;
    bench)
      say "== dispatcher overhead"
      build/gpu/bench/padtune_dispatch_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
        2>&1 | grep -E "median|ERROR" | tee -a "$summary" ;;
    peers)
      say "== padtune_bench (performance suite) and the peers"
      python3 lab/bin/compare-peers --bench build/gpu/bench/padtune_bench --out "$out" \
        > /tmp/padtune-peers.log 2>&1 || { failed=1; cp /tmp/padtune-peers.log "$out/"; }
      tail -2 /tmp/padtune-peers.log | tee -a "$summary" ;;
    sweep)
      say "== padtune_bench (sweep of row lengths and counts)"
      build/gpu/bench/padtune_bench --padtune_suite=sweep --benchmark_out="$out/bench-sweep.json" \
        --benchmark_out_format=json > /tmp/padtune-sweep.log 2>&1 || failed=1
      say "rows with an error: $(grep -c 'ERROR OCCURRED' /tmp/padtune-sweep.log)"
      grep 'ERROR OCCURRED' /tmp/padtune-sweep.log | head -5 | tee -a "$summary" ;;
    plots)
      say "== plots"
      python3 lab/bin/plot --peers "$out/peers.json" --table results/nvidia-h200.json --out "$out" 2>&1 \
        | tee -a "$summary" || failed=1 ;;
    profile)
      say "== Nsight Compute, DRAM bytes against the contract"
      for args in "dispatch 32,256,8192,3,5 f32" "dispatch 1024,8192,8,2,3 bf16"; do
        scripts/profile-ncu.sh $args 2>&1 | tee -a "$out/ncu.txt" "$summary" || failed=1
      done ;;
    exhaustive)
      dir=${EXHAUSTIVE_DIR:-/tmp/padtune-exhaustive}
      mkdir -p "$dir"
      if [ -n "${EXHAUSTIVE_SEED:-}" ] && ! ls "$dir"/*.cache.jsonl > /dev/null 2>&1; then
        seed=$(basename "${EXHAUSTIVE_SEED%.gz}")  # <gpu>.cache.jsonl: the name the tune resumes from
        case $EXHAUSTIVE_SEED in *.gz) gzip -dc "$EXHAUSTIVE_SEED" > "$dir/$seed" ;; *) cp "$EXHAUSTIVE_SEED" "$dir/$seed" ;; esac \
          || { say "EXHAUSTIVE_SEED $EXHAUSTIVE_SEED could not be read"; failed=1; continue; }
        say "resuming from $EXHAUSTIVE_SEED ($(wc -l < "$dir/$seed") measurements)"
      fi
      say "== padtune tune --exhaustive into $dir (limit ${EXHAUSTIVE_SECONDS:-540} s)"
      timeout -s INT "${EXHAUSTIVE_SECONDS:-540}" build/gpu/tuner/padtune tune --backend cuda --exhaustive \
        --variant rowtile flat flatvec ewise staged rowelem --results-dir "$dir" > /dev/null 2> "$out/exhaustive.log"; rc=$?
      grep -E ' measured, |time: ' "$out/exhaustive.log" | tee -a "$summary"
      for cache in "$dir"/*.cache.jsonl; do [ -e "$cache" ] && gzip -c "$cache" > "$out/$(basename "$cache").gz"; done
      if [ "$rc" -ne 0 ]; then
        # timeout's 124: stopped at the limit with every finished shape in the cache.
        say "exhaustive exit $rc (124: stopped by the time limit; run it again, on another machine with EXHAUSTIVE_SEED=<gpu>.cache.jsonl.gz from OUTDIR)"
        [ "$rc" -eq 124 ] || failed=1
        [ "$rc" -eq 3 ] && say "exit 3: the cache in $dir was refused (another driver, runtime or settings: exhaustive.log says which); a seed must come from the same driver and build"
        say "the steps after it are left out: they would measure the table this one replaces"
        break
      else
        cp "$dir"/*.json "$out/" && cp "$dir"/*.json "$dir"/*.cache.jsonl results/ || failed=1
        say "the exhaustive table is in results/; rebuilding to embed it"
        build_or_exit
      fi ;;
    pads)
      say "== eager pads with padtune.enable() (lab/bin/pad-bench)"
      with_package python3 lab/bin/pad-bench --bench build/gpu/bench/padtune_bench --out "$out/pads" \
        > "$out/pads.log" 2>&1 || failed=1
      tail -12 "$out/pads.log" | tee -a "$summary" ;;
    models)
      if [ -n "${WHEELS_DIR:-}" ]; then
        pip install -q --no-index --no-deps --target "$site" "$WHEELS_DIR"/*.whl > /tmp/padtune-wheels.log 2>&1 \
          || { cat /tmp/padtune-wheels.log; say "the wheels in $WHEELS_DIR did not install"; failed=1; }
      fi
      say "== training steps of real models (lab/bin/model-bench)"
      with_package python3 lab/bin/model-bench --out "$out/models" > "$out/models.log" 2>&1 || failed=1
      tail -12 "$out/models.log" | tee -a "$summary" ;;
    torch)
      runs=()
      for ((i = 1; i <= ${TORCH_RUNS:-3}; i++)); do  # one process per run: torch-pool takes their medians
        say "== lab/bin/torch-bench, process $i of ${TORCH_RUNS:-3}"
        with_package python3 lab/bin/torch-bench --no-narrow --budget "${TORCH_BUDGET:-150}" --out "/tmp/padtune-torch-$i" \
          > "/tmp/padtune-torch-$i.log" 2>&1 || { failed=1; cp "/tmp/padtune-torch-$i.log" "$out/"; }
        [ -f "/tmp/padtune-torch-$i/torch.json" ] && runs+=("/tmp/padtune-torch-$i/torch.json")
      done
      if [ "${#runs[@]}" -gt 0 ]; then
        python3 lab/bin/torch-pool "${runs[@]}" --out "$out/torch-pooled" > /tmp/padtune-torch-pool.log 2>&1 || failed=1
        grep -E 'PASS|FAIL' "$out/torch-pooled/torch.md" | tee -a "$summary"
      else
        say "no torch-bench run wrote torch.json"; failed=1
      fi ;;
    heldout)
      # --autotune reports the vote's own pick beside first-use timing's, from the same measurements.
      say "== held-out shapes, seed ${HELDOUT_SEED:-21}: the vote and first-use timing"
      rm -rf /tmp/padtune-held-out-work
      python3 lab/bin/held-out --seed "${HELDOUT_SEED:-21}" --autotune --work /tmp/padtune-held-out-work \
        --out "$out/held-out" > "$out/held-out.log" 2>&1 || failed=1
      grep -h 'geometric mean' "$out/held-out/held-out.md" | tee -a "$summary" ;;
    *) say "unknown step $step"; failed=1 ;;
  esac
  say "$step took $(( $(date +%s) - start )) s"
done
exit $failed
