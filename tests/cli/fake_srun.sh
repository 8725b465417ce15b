#!/usr/bin/env bash
# Stands in for srun in the Slurm template's test: runs the command once per task, in turn, with
# the variables Slurm sets (SLURM_NTASKS from FAKE_SRUN_TASKS, default 2). Options are skipped.
while [ "${1:-}" != "${1#--}" ]; do shift; done
tasks=${FAKE_SRUN_TASKS:-2}
rc=0
for ((i = 0; i < tasks; ++i)); do
  SLURM_PROCID=$i SLURM_NTASKS=$tasks "$@" || rc=$?
done
exit $rc
