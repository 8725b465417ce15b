// The edge suite on the device against the device reference, for every registered instantiation.
// Without a usable GPU every test skips and says why.
#include <gtest/gtest.h>

#include "../support/checker.hpp"

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

}  // namespace
}  // namespace padtune::test
