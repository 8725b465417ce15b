// The direct launches (launch.cuh's row_grid, and flat's flat_grid with its 32-bit division): which
// problems they take, their grids, and the 64-bit plan that takes the rest, run here on the edge
// suite through the grid-stride loop, as the registry never runs it on most of these problems.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../support/grid_stride_candidates.hpp"
#include "flatvec.cuh"
#include "plans.cuh"
#include "protocol.cuh"

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

TEST(Divmod32, ExactBelow2To31) {
  // Divisors at the edges of each shift, powers of two and their neighbours, and the largest.
  std::vector<std::uint32_t> divisors = {1, 2, 3, 5, 7, 8, 9, 1000, 1016, 65535, 65536, 65537, 0x7fffffffu};
  for (int b = 1; b < 31; ++b) divisors.insert(divisors.end(), {(1u << b) - 1, 1u << b, (1u << b) + 1});
  std::uint64_t state = 88172645463325252ull;  // xorshift: the same dividends every run
  for (const std::uint32_t d : divisors) {
    const divmod32 q(d);
    std::vector<std::uint32_t> dividends = {0, 1, d - 1, d, d + 1, 0x7fffffffu, 0x7fffffffu - 1, 0x7fffffffu - d};
    for (std::uint32_t m = 1; m < 8; ++m)
      if (std::uint64_t(d) * m < 0x7fffffffu) dividends.insert(dividends.end(), {d * m - 1, d * m, d * m + 1});
    for (int r = 0; r < 2000; ++r) {
      state ^= state << 13, state ^= state >> 7, state ^= state << 17;
      dividends.push_back(std::uint32_t(state) & 0x7fffffffu);
    }
    for (const std::uint32_t e : dividends)
      if (e < 0x80000000u) ASSERT_EQ(q.div(e), e / d) << e << " / " << d;
  }
}

// flat takes its direct grid (so the registry's tests run it); flatvec, whose wide loads need the
// 64-bit plan's bounds, does not.
static_assert(has_flat_grid<flat_kernel<float, 1024, 256, 16>> && has_flat_grid<flat_kernel<std::uint16_t, 64, 256, 16>>);
static_assert(!has_flat_grid<flatvec_kernel<float, 1024, 256, 16>>);

/// The flat grid of a config of 256 chunks of 16 bytes a block.
bool flat_plan(const pad_args& a, flat_grid& g, int elem = 4) { return plan_flat_grid(a, elem, 16, 256, g); }

TEST(FlatGrid, ChunksOfOneFlatRun) {
  flat_grid g;
  ASSERT_TRUE(flat_plan(args(1024, 1000, 7, 9), g));  // P8 f32: 1024000 elements, 1024 a block
  EXPECT_EQ(g.blocks, 1000u);
  EXPECT_TRUE(g.exact);
  EXPECT_EQ(g.p.n, 1024000u);
  EXPECT_EQ(g.p.L, 1000u);
  EXPECT_EQ(g.p.OL, 1016u);
  EXPECT_EQ(g.p.dy_src0, (std::uintptr_t(1) << 40) + 28);
  EXPECT_EQ(g.p.row_of.div(999), 0u);
  EXPECT_EQ(g.p.row_of.div(1000), 1u);
  ASSERT_TRUE(flat_plan(args(8, 5, 2, 3), g));  // 40 elements: one block, past its end
  EXPECT_EQ(g.blocks, 1u);
  EXPECT_FALSE(g.exact);
  ASSERT_TRUE(flat_plan(args(3, 10, -3, 1, 2), g, 2));  // a negative pad: row 0's source before dy
  EXPECT_EQ(g.p.dy_src0, (std::uintptr_t(1) << 40) - 6);
  EXPECT_EQ(g.p.valid_begin, 3);
  EXPECT_EQ(g.p.valid_end, 10);
  ASSERT_TRUE(flat_plan(args(0, 5, 1, 1), g));
  EXPECT_EQ(g.blocks, 0u);
}

TEST(FlatGrid, LeavesUnalignedDxAndSizesBeyond32BitsToThe64BitPlan) {
  constexpr std::int64_t int_max = std::numeric_limits<std::int32_t>::max();
  flat_grid g;
  pad_args a = args(8, 5, 2, 3);
  a.dx += 4;  // 4-byte aligned: no 16-byte stores
  EXPECT_FALSE(flat_plan(a, g));
  EXPECT_TRUE(plan_flat_grid(a, 4, 4, 256, g));  // 4-byte chunks are aligned there
  EXPECT_TRUE(flat_plan(args(1, int_max - 1024, 0, 0), g));  // the last block's end fits an int
  EXPECT_FALSE(flat_plan(args(1, int_max - 1023, 0, 0), g));
  EXPECT_FALSE(flat_plan(args(65536, 32768, 0, 0), g));  // 2^31 elements
  EXPECT_TRUE(flat_plan(args(1, 10, 0, 0xffffffffll - 10), g));  // OL = 2^32 - 1
  EXPECT_FALSE(flat_plan(args(1, 10, 0, 0xffffffffll - 9), g));  // OL = 2^32
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

const std::vector<candidate>& host_grid_stride_candidates() {
  static const std::vector<candidate> candidates = grid_stride_candidates(backend::host);
  return candidates;
}

/// One test per candidate, so that CTest spreads them over the cores (under the sanitizers they
/// took 96 s as one test).
class GridStrideLaunch : public ::testing::TestWithParam<std::size_t> {};

TEST_P(GridStrideLaunch, MatchesReferenceOnEdgeSuite) {
  const candidate& c = host_grid_stride_candidates().at(GetParam());
  for (const std::string& failure : check_edge_suite([&c](const shape&) { return c; }, backend::host))
    ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(HostCandidates, GridStrideLaunch,
                         ::testing::Range(std::size_t(0), host_grid_stride_candidates().size()),
                         [](const auto& info) {
                           std::string name = host_grid_stride_candidates()[info.param].id;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

TEST(GridStrideCandidates, FortyOnTheHost) { EXPECT_GE(host_grid_stride_candidates().size(), 40u); }

}  // namespace
}  // namespace padtune::test
