// Every registered instantiation x the edge suite x every placement, on the host backend, bit-exact
// against the host reference.
#include <gtest/gtest.h>

#include "../support/checker.hpp"

namespace padtune::test {
namespace {

class HostKernel : public ::testing::TestWithParam<std::string> {};

TEST_P(HostKernel, MatchesReferenceOnEdgeSuite) {
  const instantiation* inst = find_instantiation(GetParam());
  ASSERT_NE(inst, nullptr);
  for (const std::string& failure : check_edge_suite(*inst, backend::host)) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Registry, HostKernel, ::testing::ValuesIn(registered_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace padtune::test
