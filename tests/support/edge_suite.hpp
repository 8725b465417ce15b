#pragma once
// The edge suite every instantiation must pass, on every backend (issue: the kernel family).
#include <cstdint>
#include <string>
#include <vector>

namespace padtune::test {

struct shape {
  std::int64_t B, C, L, pad_left, pad_right;
  /// Random bits a case's fill value comes from (checker.hpp: fill_of); 0: the backward's zeros.
  std::uint64_t fill = 0;
  std::string str() const;
};

/// Which pads a suite may hold: the JIT takes 32-bit pads only.
enum class pad_range { int64, int32 };

/// (B, C, L, pad_left, pad_right): the seed's own test first, then tails, crops, empty problems,
/// many rows, long rows, every pad_left from 0 to 16 and, for pad_range::int64, pads at int64's
/// limits (valid while OL is: nothing has a source, and a kernel that forms row * OL + pad_left + i
/// overflows, which UBSan reports on the host).
std::vector<shape> edge_suite(pad_range pads = pad_range::int64);

}  // namespace padtune::test
