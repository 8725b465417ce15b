// The Thrust host reference against the contract written as the plainest possible loop.
#include <gtest/gtest.h>

#include <cstring>

#include "../support/edge_suite.hpp"
#include "../support/test_data.hpp"
#include "padtune/reference.hpp"

namespace padtune::test {
namespace {

std::vector<unsigned char> contract_by_loop(const shape& s, std::size_t S, const std::vector<unsigned char>& dy) {
  const std::int64_t OL = s.pad_left + s.L + s.pad_right;
  std::vector<unsigned char> dx(std::size_t(s.B * s.C * s.L) * S, 0);
  for (std::int64_t b = 0; b < s.B; ++b)
    for (std::int64_t c = 0; c < s.C; ++c)
      for (std::int64_t i = 0; i < s.L; ++i) {
        const std::int64_t j = i + s.pad_left;
        if (j >= 0 && j < OL)
          std::memcpy(&dx[std::size_t(((b * s.C + c) * s.L + i)) * S], &dy[std::size_t(((b * s.C + c) * OL + j)) * S], S);
      }
  return dx;
}

TEST(HostReference, MatchesTheContractLoopOnTheEdgeSuite) {
  random_source rng;
  for (dtype t : all_dtypes)
    for (const shape& s : edge_suite()) {
      const std::size_t S = size_of(t);
      const std::int64_t OL = s.pad_left + s.L + s.pad_right;
      const std::vector<unsigned char> dy = random_elements(t, std::size_t(s.B * s.C * OL), rng.gen);
      std::vector<unsigned char> dx(std::size_t(s.B * s.C * s.L) * S, poison_byte);
      ASSERT_EQ(reference_host(problem{dy.data(), dx.data(), s.B, s.C, s.L, s.pad_left, s.pad_right, t}), status::ok);
      EXPECT_TRUE(dx == contract_by_loop(s, S, dy)) << name_of(t) << " " << s.str() << " seed " << rng.seed;
    }
}

TEST(HostReference, KeepsNegativeZeroAndNanPayloads) {
  const std::uint32_t dy[5] = {0x80000000u, 0x7FC00123u, 0x7F800456u, 0x00000001u, 0x3F800000u};
  std::uint32_t dx[5] = {};
  ASSERT_EQ(reference_host(problem{dy, dx, 1, 1, 5, 0, 0, dtype::f32}), status::ok);
  EXPECT_EQ(std::memcmp(dx, dy, sizeof dx), 0);
}

}  // namespace
}  // namespace padtune::test
