#pragma once
// The grid-stride launch of every kernel that also has a direct one (launch.cuh's row_grid): the
// registry launches the direct path wherever the sizes fit 32 bits, which every test problem but
// the largest does, so these candidates force the other path on the same problems.
#include <vector>

#include "checker.hpp"

namespace padtune::test {

/// One candidate per (dtype, configuration) of each such variant, for either backend.
std::vector<candidate> grid_stride_candidates();

}  // namespace padtune::test
