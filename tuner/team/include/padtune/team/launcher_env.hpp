#pragma once
// What a parallel launcher tells its processes through the environment, read without starting MPI:
// a plain run never pays for (or depends on) MPI's start-up.
namespace padtune::tuner {

/// How many processes the launcher started together: OMPI_COMM_WORLD_SIZE (mpirun of OpenMPI),
/// PMI_SIZE (srun --mpi=pmi2, MPICH, Intel MPI), SLURM_NTASKS where PMIX_RANK is set (srun
/// --mpi=pmix); 1 when none is set. SLURM_NTASKS alone is not an MPI launch (plain srun).
int launched_world_size();

}  // namespace padtune::tuner
