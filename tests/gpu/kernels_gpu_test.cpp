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

INSTANTIATE_TEST_SUITE_P(Registry, GpuKernel, ::testing::ValuesIn(registered_ids()),
                         [](const auto& info) { return info.param; });

// The persistent variant (staged) on shapes large enough that its blocks, one wave of a few thousand
// on an H200, walk several tiles each and refill every stage: the edge suite's shapes are too small
// for that on the device. The other variants walk one tile per logical block on any shape.
class GpuPersistentKernel : public GpuKernel {};

TEST_P(GpuPersistentKernel, MatchesReferenceWhereBlocksWalkManyTiles) {
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

std::vector<std::string> staged_ids() {
  std::vector<std::string> ids;
  for (const instantiation& i : registry())
    if (i.variant == "staged") ids.push_back(i.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Staged, GpuPersistentKernel, ::testing::ValuesIn(staged_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace padtune::test
