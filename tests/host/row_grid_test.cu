// The direct launch (launch.cuh's row_grid): which problems it takes, its grid, and the 64-bit
// plan that takes the rest, run here on the edge suite through the grid-stride loop, as the
// registry never runs it on these problems.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "../support/grid_stride_candidates.hpp"
#include "plans.cuh"

namespace padtune::detail {
namespace {

/// A plan needs addresses, not memory: dy at 2^40, dx after it.
pad_args args(std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right, std::int64_t elem = 4) {
  const auto dy = reinterpret_cast<const byte*>(std::uintptr_t(1) << 40);
  const auto dx = reinterpret_cast<byte*>(std::uintptr_t(1) << 41);
  return make_pad_args(dy, dx, rows, L, pad_left, pad_right, elem);
}

TEST(RowGrid, MapsRowsOverYAndZ) {
  row_grid g;
  ASSERT_TRUE(plan_row_grid(args(70000, 1000, 7, 9), 256, 4, g));
  EXPECT_EQ(g.tiles, 4u);  // ceil(1000 / 256)
  EXPECT_EQ(g.rows_y, 65535u);
  EXPECT_EQ(g.rows_z, 2u);
  EXPECT_EQ(g.p.rows, 70000u);
  EXPECT_EQ(g.p.L, 1000u);
  EXPECT_EQ(g.p.OL, 1016u);
  EXPECT_EQ(g.p.valid_begin, 0);
  EXPECT_EQ(g.p.valid_end, 1000);
  ASSERT_TRUE(plan_row_grid(args(8, 5, 2, 3), 64, 4, g));
  EXPECT_EQ(g.tiles, 1u);
  EXPECT_EQ(g.rows_y, 8u);
  EXPECT_EQ(g.rows_z, 1u);
}

TEST(RowGrid, SourceOfRowZeroMayLieBeforeDy) {
  row_grid g;
  ASSERT_TRUE(plan_row_grid(args(3, 10, -3, 1, 2), 64, 2, g));
  EXPECT_EQ(g.p.dy_row0, (std::uintptr_t(1) << 40) - 6);
  EXPECT_EQ(g.p.valid_begin, 3);
  EXPECT_EQ(g.p.valid_end, 10);
}

TEST(RowGrid, NothingToLaunchWithoutElements) {
  row_grid g;
  ASSERT_TRUE(plan_row_grid(args(0, 5, 1, 1), 64, 4, g));
  EXPECT_EQ(g.tiles, 0u);
  ASSERT_TRUE(plan_row_grid(args(6, 0, 1, 1), 64, 4, g));
  EXPECT_EQ(g.tiles, 0u);
}

TEST(RowGrid, LeavesSizesBeyond32BitsToThe64BitPlan) {
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max(), max_y = 65535;
  row_grid g;
  EXPECT_TRUE(plan_row_grid(args(max_y * max_y, 1, 0, 0), 64, 4, g));
  EXPECT_EQ(g.rows_y * std::uint64_t(g.rows_z), std::uint64_t(max_y * max_y));
  EXPECT_FALSE(plan_row_grid(args(max_y * max_y + 1, 1, 0, 0), 64, 4, g));
  EXPECT_TRUE(plan_row_grid(args(1, int_max - 1024, 0, 0), 1024, 4, g));  // the last tile's end fits an int
  EXPECT_FALSE(plan_row_grid(args(1, int_max - 1023, 0, 0), 1024, 4, g));
  EXPECT_TRUE(plan_row_grid(args(1, 10, 0, 0xffffffffll - 10), 64, 4, g));  // OL = 2^32 - 1
  EXPECT_EQ(g.p.OL, 0xffffffffu);
  EXPECT_FALSE(plan_row_grid(args(1, 10, 0, 0xffffffffll - 9), 64, 4, g));  // OL = 2^32
}

TEST(PadArgs, PadsWithoutAnySourceAreNormalized) {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
  for (const pad_args& a : {args(6, 5, max - 10, 12 - max), args(6, 5, min, max), args(6, 5, 4, -8), args(6, 5, -7, 4)}) {
    EXPECT_EQ(a.pad_left, a.OL);
    EXPECT_EQ(a.valid_begin, 0);
    EXPECT_EQ(a.valid_end, 0);
  }
  const pad_args a = args(6, 5, -2, -1);  // elements 2 and 3 have sources
  EXPECT_EQ(a.pad_left, -2);
  EXPECT_EQ(a.valid_begin, 2);
  EXPECT_EQ(a.valid_end, 4);
}

}  // namespace
}  // namespace padtune::detail

namespace padtune::test {
namespace {

TEST(GridStrideLaunch, MatchesReferenceOnEdgeSuite) {
  const std::vector<candidate> candidates = grid_stride_candidates(backend::host);
  ASSERT_FALSE(candidates.empty());
  for (const candidate& c : candidates)
    for (const std::string& failure : check_edge_suite([&c](const shape&) { return c; }, backend::host))
      ADD_FAILURE() << failure;
}

}  // namespace
}  // namespace padtune::test
