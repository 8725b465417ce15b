#pragma once
// The edge suite every instantiation must pass, on every backend (issue: the kernel family).
#include <cstdint>
#include <string>
#include <vector>

namespace padtune::test {

struct shape {
  std::int64_t B, C, L, pad_left, pad_right;
  std::string str() const;
};

/// (B, C, L, pad_left, pad_right): the seed's own test first, then tails, crops, empty problems,
/// many rows, long rows and every pad_left from 0 to 16.
std::vector<shape> edge_suite();

}  // namespace padtune::test
