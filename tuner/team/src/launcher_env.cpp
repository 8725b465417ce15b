#include "padtune/team/launcher_env.hpp"

#include <cstdlib>
#include <string>

namespace padtune::tuner {
namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  try {
    return std::stoi(v);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace

int launched_world_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const int n = env_int(name); n > 0) return n;
  if (std::getenv("PMIX_RANK"))
    if (const int n = env_int("SLURM_NTASKS"); n > 0) return n;
  return 1;
}

}  // namespace padtune::tuner
