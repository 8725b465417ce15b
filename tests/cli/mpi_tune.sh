#!/usr/bin/env bash
# `mpirun -np N padtune tune` as a user runs it, over the host backend: 2 and 3 ranks measure the
# same keys as one process, each once, into one cache and one table with the same buckets (winners
# are noise on the host: mpi_runs.py says what is compared); every rank measures a share; a plain
# run then finds the team's cache complete. SIGTERM leaves a partial table. A rank that dies (PADTUNE_TEST_DIE_AFTER: rank 1 ends
# abruptly after that many measurements) ends the job, and the next run measures only what is
# missing.
# One PART a CTest test, so that the parts share the two cores and each has its own timeout:
#   single   one process's run, the others' reference (a CTest fixture)
#   teams    -np 2 and 3, then a plain run   models  two device models   slurm  the Slurm template
#   died     a rank that dies                sigterm SIGTERM to mpirun, then a resume
#   stopped  SIGTERM to one rank alone: the others finish its shape
# Usage: mpi_tune.sh PADTUNE MPIEXEC SCRATCH_DIR PART
set -uo pipefail
padtune=$1 mpiexec=$2 dir=$3 part=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }
# Each part writes only its own folders (and NAME.out files) under SCRATCH_DIR.
fresh() { for name; do rm -rf "${dir:?}/$name" "$dir/$name".*out; done; }
# CI runs as root; OpenMPI refuses that unless told. Under ASan, leaks inside MPI's own libraries
# at exit are not padtune's: suppressed by library (lsan-mpi.supp).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# OpenMPI unloads its components at exit, which would leave their frames nameless: it keeps them.
# Its libraries keep no frame pointers: the slow unwinder finds the frames that name them.
export LSAN_OPTIONS="suppressions=$here/lsan-mpi.supp:fast_unwind_on_malloc=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export OMPI_MCA_mca_base_component_disable_dlclose=1
args=(--backend host --dtype f32 bf16)
team() {  # team N NAME [TUNE_ARG...]: N ranks into $dir/NAME, output in $dir/NAME.out; returns mpirun's exit code
  local n=$1 name=$2
  shift 2
  "$mpiexec" --oversubscribe -np "$n" "$padtune" tune "${args[@]}" --results-dir "$dir/$name" "$@" > "$dir/$name.out" 2>&1
}


# The reference: one process, no MPI.
part_single() {
  fresh single
  "$padtune" tune "${args[@]}" --results-dir "$dir/single" > "$dir/single.out" 2>&1 || { cat "$dir/single.out"; fail "the single run"; }
  echo "mpi: the single run, $(grep -oE '[0-9]+ measured' "$dir/single.out")"
}

part_teams() {
  fresh np2 np3
  for n in 2 3; do
    team "$n" np$n || { rc=$?; cat "$dir/np$n.out"; fail "mpirun -np $n: exit $rc"; }
    grep -q "padtune tune: $n ranks" "$dir/np$n.out" || fail "-np $n: no '$n ranks' line: $(tail -3 "$dir/np$n.out")"
    for ((r = 1; r < n; ++r)); do
      grep -qE "rank $r: [1-9][0-9]* measured" "$dir/np$n.out" || fail "-np $n: rank $r measured nothing: $(grep "rank $r" "$dir/np$n.out")"
      # Each rank says where its time went; a follower waits for work at least once.
      grep -qE "rank $r: .* [0-9.]+ s timing \([1-9][0-9]* samples, .* [0-9.]+ s waiting" "$dir/np$n.out" ||
        fail "-np $n: rank $r's time line: $(grep "rank $r: .*measured" "$dir/np$n.out")"
    done
    grep -qE "rank 0's time: .* [0-9.]+ s selection, " "$dir/np$n.out" || fail "-np $n: no time line of rank 0"
    python3 "$here/mpi_runs.py" "$dir/single" "$dir/np$n" || exit 1
    "$padtune" tune "${args[@]}" --results-dir "$dir/np$n" > "$dir/np$n.plain.out" 2>&1 &&
      grep -qE " 0 measured, [1-9][0-9]* from the cache" "$dir/np$n.plain.out" ||
      fail "a plain run after -np $n measured again: $(tail -1 "$dir/np$n.plain.out")"
  done
  echo "mpi: -np 2 and 3 measure what one process does, each key once; a plain run then measures nothing"
}

part_models() {
  fresh models refused
  rm -f "$dir/one.json"
  # Two device models (rank 1 claims another, PADTUNE_TEST_SECOND_MODEL): a table and a cache for
  # each, each model's sweep measured whole by its own ranks; --table (one file) is refused.
  PADTUNE_TEST_SECOND_MODEL=1 team 3 models || { rc=$?; cat "$dir/models.out"; fail "two models: exit $rc"; }
  python3 "$here/mpi_runs.py" "$dir/single" "$dir/models" || exit 1
  python3 "$here/mpi_runs.py" "$dir/single" "$dir/models" test-model-b || exit 1
  grep -q "models/test-model-b.json" "$dir/models.out" || fail "the other model's table is not named: $(tail -3 "$dir/models.out")"
  PADTUNE_TEST_SECOND_MODEL=1 team 2 refused --table "$dir/one.json" && fail "--table with two models was accepted"
  grep -q "the ranks have 2 device models" "$dir/refused.out" || fail "the refusal does not say why: $(grep -v '^-' "$dir/refused.out" | head -5)"
  echo "mpi: two device models, a table and a cache each; --table refused"
}

part_slurm() {
  fresh slurm bin
  # The Slurm template's main path: srun --mpi (a stand-in that runs mpirun) of one padtune tune.
  mkdir -p "$dir/bin" && ln -sf "$here/fake_srun.sh" "$dir/bin/srun"
  env PATH="$dir/bin:$PATH" FAKE_SRUN_MPIEXEC="$mpiexec" PADTUNE_SLURM_MODE=mpi PADTUNE="$padtune" RESULTS="$dir/slurm" \
    "$here/../../scripts/slurm-tune.sbatch" "${args[@]}" > "$dir/slurm.out" 2>&1 || { cat "$dir/slurm.out"; fail "slurm-tune.sbatch, mpi"; }
  grep -q "padtune tune: 2 ranks" "$dir/slurm.out" || fail "the Slurm template did not run 2 ranks: $(tail -3 "$dir/slurm.out")"
  python3 "$here/mpi_runs.py" "$dir/single" "$dir/slurm" || exit 1
  echo "mpi: the Slurm template ran one MPI job of 2 ranks"
}

part_died() {
  fresh died
  # Rank 1 dies after 40 measurements: the job ends (not 0); what reached rank 0 is in the cache.
  PADTUNE_TEST_DIE_AFTER=40 team 2 died && fail "the job whose rank died exited 0"
  cache=$dir/died/host-emulation.cache.jsonl
  [ -f "$cache" ] || { cat "$dir/died.out"; fail "no cache after the rank died"; }
  kept=$(( $(wc -l < "$cache") - 1 ))  # complete lines after the header; a torn line has no newline
  [ "$kept" -gt 0 ] || fail "nothing kept after the rank died"
  team 2 died || { rc=$?; cat "$dir/died.out"; fail "the run after the death: exit $rc"; }
  grep -qE " measured, $kept from the cache, 0 failed" "$dir/died.out" ||
    fail "the run after the death should reuse the $kept kept: $(grep ' measured, ' "$dir/died.out")"
  python3 "$here/mpi_runs.py" "$dir/single" "$dir/died" || exit 1
  echo "mpi: a dead rank ended the job and cost only its unfinished work ($kept kept)"
}

part_stopped() {
  fresh stopped
  # SIGTERM to rank 1 alone, in the middle of a shape (PADTUNE_TEST_STOP_AFTER): the rest of its shape
  # goes to rank 0, and the table is whole: no entry made of the few candidates rank 1 had measured.
  PADTUNE_TEST_STOP_AFTER=7 team 2 stopped --exhaustive  # exhaustive: a stop cuts the shape between candidates
  grep -q "rank 1 stopped during" "$dir/stopped.out" || fail "rank 1's stop was not taken back: $(grep -v '^[a-z0-9]* ' "$dir/stopped.out" | tail -5)"
  table=$dir/stopped/host-emulation.json
  [ -f "$table" ] || { cat "$dir/stopped.out"; fail "no table after rank 1 stopped"; }
  "$padtune" show "$table" | grep -q PARTIAL && fail "the table is partial though rank 0 measured the rest"
  "$padtune" tune "${args[@]}" --exhaustive --results-dir "$dir/stopped" > "$dir/stopped.plain.out" 2>&1 &&
    grep -qE " 0 measured, [1-9][0-9]* from the cache" "$dir/stopped.plain.out" ||
    fail "the team left work undone after rank 1 stopped: $(tail -1 "$dir/stopped.plain.out")"
  # Rank 1 the only rank of its model: nobody can measure the rest, so that shape gets no entry there.
  fresh stopped2
  PADTUNE_TEST_SECOND_MODEL=1 PADTUNE_TEST_STOP_AFTER=7 team 2 stopped2 --exhaustive
  grep -q "no other rank of .* is left" "$dir/stopped2.out" || fail "a stranded shape was not said: $(grep -v '^[a-z0-9]* ' "$dir/stopped2.out" | tail -5)"
  ! grep -q "go to another rank" "$dir/stopped2.out" || fail "a shape no rank can measure was said to go to another rank"
  "$padtune" show "$dir/stopped2/test-model-b.json" | grep -q PARTIAL || fail "the other model's table is not partial"
  "$padtune" show "$dir/stopped2/host-emulation.json" | grep -q PARTIAL && fail "rank 0's model's table is partial"
  echo "mpi: a rank stopped alone; its shape's rest was measured by rank 0 and the table is whole (and, alone of its model, left out)"
}

part_sigterm() {
  fresh interrupted resumed
  rm -f "$dir/rows.txt"
  # SIGTERM to mpirun (which sends the ranks SIGTERM, and SIGKILL 1 s later; Ctrl-C does the same): a
  # table marked partial, every measurement that reached rank 0 kept, and the next run resumes. Longer rows, so
  # that the run is still going when the signal comes.
  printf '2 16 65536 1 1\n2 16 65536 3 5\n1 16 65536 0 0\n1 16 65536 2 2\n' > "$dir/rows.txt"
  slow=(--backend host --exhaustive --dtype f32 --sizes "$dir/rows.txt" --results-dir "$dir/interrupted")
  "$mpiexec" --oversubscribe -np 2 "$padtune" tune "${slow[@]}" > "$dir/interrupted.out" 2>&1 &
  pid=$!
  cache=$dir/interrupted/host-emulation.cache.jsonl
  for _ in $(seq 600); do  # until some measurements are in, 60 s at most
    [ "$(cat "$cache" 2> /dev/null | wc -l)" -gt 20 ] && break
    sleep 0.1
  done
  kill -TERM "$pid"
  wait "$pid" && echo "note: the run ended before the signal"
  grep -q "interrupted; the table is marked partial" "$dir/interrupted.out" &&
    "$padtune" show "$dir/interrupted/host-emulation.json" | grep -q PARTIAL ||
    fail "no partial table after SIGTERM: $(grep -v '^[a-z0-9]* ' "$dir/interrupted.out" | tail -5)"
  kept=$(( $(wc -l < "$cache") - 1 ))
  "$mpiexec" --oversubscribe -np 2 "$padtune" tune "${slow[@]}" > "$dir/resumed.out" 2>&1 || { rc=$?; cat "$dir/resumed.out"; fail "the run after the signal: exit $rc"; }
  grep -qE " measured, $kept from the cache, 0 failed" "$dir/resumed.out" ||
    fail "the run after the signal should reuse the $kept kept: $(grep ' measured, ' "$dir/resumed.out")"
  "$padtune" show "$dir/interrupted/host-emulation.json" | grep -q PARTIAL && fail "still partial after resuming"
  echo "mpi: SIGTERM left a partial table; the resume reused the $kept kept"
}

case "$part" in
  single | teams | models | slurm | died | stopped | sigterm) "part_$part" ;;
  *) echo "mpi_tune.sh: no part '$part' (single, teams, models, slurm, died, stopped, sigterm)" >&2; exit 2 ;;
esac
