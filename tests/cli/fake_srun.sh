#!/usr/bin/env bash
# Stands in for srun in the Slurm template's tests: runs the command once per task, in turn, with
# the variables Slurm sets (SLURM_NTASKS from FAKE_SRUN_TASKS, default 2). Options are skipped,
# except --mpi=...: then the tasks are the ranks of one MPI launch, run by FAKE_SRUN_MPIEXEC
# (mpirun), which must be set.
mpi=""
while [ "${1:-}" != "${1#--}" ]; do
  case "$1" in --mpi=*) mpi=${1#--mpi=} ;; esac
  shift
done
tasks=${FAKE_SRUN_TASKS:-2}
if [ -n "$mpi" ]; then
  [ -n "${FAKE_SRUN_MPIEXEC:-}" ] || { echo "fake srun: --mpi=$mpi needs FAKE_SRUN_MPIEXEC" >&2; exit 2; }
  exec "$FAKE_SRUN_MPIEXEC" --oversubscribe -np "$tasks" "$@"
fi
rc=0
for ((i = 0; i < tasks; ++i)); do
  SLURM_PROCID=$i SLURM_NTASKS=$tasks "$@" || rc=$?
done
exit $rc
