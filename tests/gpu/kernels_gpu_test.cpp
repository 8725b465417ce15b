// The edge suite on the device against the device reference, for every registered instantiation
// and for the grid-stride loop of every variant (the registry launches it on none of the suite).
// Without a usable GPU every test skips and says why.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "../support/checker.hpp"
#include "../support/grid_stride_candidates.hpp"

namespace padtune::test {
namespace {

class GpuKernel : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
  }
};

TEST_P(GpuKernel, MatchesReferenceOnEdgeSuite) {
  const instantiation* inst = find_instantiation(GetParam());
  ASSERT_NE(inst, nullptr);
  for (const std::string& failure : check_edge_suite(*inst, backend::cuda)) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuKernel, ::testing::ValuesIn(registered_ids()),
                         [](const auto& info) { return info.param; });

/// The grid-stride loop over a few blocks, for every variant (the registry launches a block per
/// logical block, or rowelem's row grid, on every problem of the suite): one test per candidate, so
/// that a sanitizer can take one variant (`--gtest_filter='EveryVariant/GpuGridStride.*staged*'`).
class GpuGridStride : public GpuKernel {};

std::vector<std::string> grid_stride_names() {
  std::vector<std::string> names;
  for (const candidate& c : grid_stride_candidates(backend::cuda))
    names.push_back(c.id.substr(0, c.id.size() - grid_stride_suffix.size()));
  return names;
}

TEST_P(GpuGridStride, MatchesReferenceOnEdgeSuite) {
  for (const candidate& c : grid_stride_candidates(backend::cuda)) {
    if (c.id != GetParam() + std::string(grid_stride_suffix)) continue;
    for (const std::string& failure : check_edge_suite([&c](const shape&) { return c; }, backend::cuda))
      ADD_FAILURE() << failure;
    return;
  }
  FAIL() << "no grid-stride candidate " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, GpuGridStride, ::testing::ValuesIn(grid_stride_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace padtune::test
