#pragma once
// The launches the registry does not run on the test problems: it launches rowelem's row grid
// wherever the sizes fit 32 bits, flat's flat grid wherever dx is aligned too, and on CUDA a block
// per logical block wherever the plan fits gridDim.x, which every test problem does (the GPU tests'
// 2^31 + 14 elements included). These candidates force the grid-stride loop over the 64-bit plan
// (launch.cuh: launch_cuda_grid_stride, run_host_blocks) on the same problems.
#include <string_view>
#include <vector>

#include "checker.hpp"

namespace padtune::test {

/// What a candidate's id adds to its registry id.
inline constexpr std::string_view grid_stride_suffix = " (grid-stride)";

/// Host: one candidate per (dtype, configuration) of rowelem and two of flat (the host walks the
/// same logical blocks either way, so only the direct grids have a second path there). CUDA: the
/// same, and one configuration per dtype of every other variant, over grid_stride_test_blocks blocks.
std::vector<candidate> grid_stride_candidates(backend b);

}  // namespace padtune::test
