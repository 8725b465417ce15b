// The edge suite on the device against the device reference, for every registered instantiation.
// Without a usable GPU every test skips and says why.
#include <gtest/gtest.h>

#include "../support/checker.hpp"
#include "../support/test_data.hpp"

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

// Shapes large enough that a persistent kernel's blocks (one wave: a few thousand on an H200) walk
// several tiles each, which the edge suite's shapes are too small for on the device.
TEST_P(GpuKernel, MatchesReferenceWhereBlocksWalkManyTiles) {
  const instantiation* inst = find_instantiation(GetParam());
  ASSERT_NE(inst, nullptr);
  const shape shapes[] = {{16, 4096, 64, 2, 1}, {4, 256, 4000, -3, 5}, {3, 1, 3000017, 7, 9}};
  random_source rng;
  for (const shape& s : shapes)
    for (const placement at : placements)
      if (std::string e = check_case(candidate_of(*inst), backend::cuda, s, at, rng.gen); !e.empty())
        ADD_FAILURE() << s.str() << " with dy +" << at.dy_elems << ", dx +" << at.dx_elems << " elements (random seed "
                      << rng.seed << "): " << e;
}

INSTANTIATE_TEST_SUITE_P(Registry, GpuKernel, ::testing::ValuesIn(registered_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace padtune::test
