#include "edge_suite.hpp"

#include <fmt/format.h>

#include <limits>

namespace padtune::test {

std::string shape::str() const {
  return fmt::format("(B={}, C={}, L={}, pad_left={}, pad_right={}{})", B, C, L, pad_left, pad_right,
                     fill ? fmt::format(", fill bits from {:#x}", fill) : "");
}

std::vector<shape> edge_suite(pad_range pads) {
  std::vector<shape> s = {
      {2, 4, 8, 2, 3},          // the seed's own test (with BLOCK_OL 16 in the seed)
      {1, 1, 1, 0, 0},       {1, 3, 3, 2, 2},       {0, 3, 3, 1, 2},       // B = 0: no elements
      {3, 5, 0, 1, 1},                                                      // L = 0: no elements
      {2, 3, 7, 0, 0},       {4, 16, 1000, 7, 9},   {2, 8, 4096, 3, 0},    {1, 2, 65, -1, 2},
      {1, 2, 5, -3, 1},      // a negative pad: each row's first elements are zeros
      {2, 3, 5, -7, 4},      {2, 3, 5, 4, -8},     // crops beyond the row (pad < -L): every element is zero
      {2, 2, 10, -2, -3},    {1, 1, 5, -5, 0},      // OL = 0
      {1, 70000, 3, 1, 1},   // more rows than a grid dimension of 65535
      {1, 2, 8191, 1, 0},    {3, 1, 262147, 5, 11},
      {2, 512, 4, 30, 33},   // pads 16x the rows: a tile's sources outgrow staged's stage
      // Sources a fixed 8 or 4 bytes off 16-byte alignment in every row (flatvec's aligned pieces,
      // flat.cuh: source_piece): f16 pieces of 8, of 4; f32 and f64 pieces of 4, of 8; a negative pad.
      {2, 8, 64, 4, 4},      {2, 8, 64, 2, 2},      {2, 8, 64, 1, 3},      {4, 16, 520, -4, 12},
  };
  for (std::int64_t p = 0; p <= 16; ++p) s.push_back({1, 3, 1023, p, 5});
  if (pads == pad_range::int64) {
    constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max(), min = std::numeric_limits<std::int64_t>::min();
    s.push_back({2, 3, 5, max - 10, 12 - max});  // OL = 7, every source past the row's end
    s.push_back({2, 3, 5, min, max});            // OL = 4, every source before the row
  }
  return s;
}

}  // namespace padtune::test
