// A padtune built without MPI: never a team. Launched as one of several processes it refuses,
// rather than have each process tune the whole sweep alone.
#include <fmt/format.h>

#include <stdexcept>

#include "padtune/team/launcher_env.hpp"
#include "padtune/team/work_team.hpp"

namespace padtune::tuner {

std::unique_ptr<work_team> join_launched_team() {
  if (const int n = launched_world_size(); n > 1)
    throw std::runtime_error(fmt::format(
        "launched as one of {} MPI processes, but this padtune was built without MPI: install MPI (Debian: "
        "libopenmpi-dev) and build again, or split the sweep with --shard I/N and padtune merge", n));
  return nullptr;
}

bool built_with_mpi() { return false; }

}  // namespace padtune::tuner
