#include "vote.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

namespace padtune::detail {
namespace {

/// log2 of the largest of 16, 8, 4, 2, 1 that divides the byte count.
float log2_align(std::uint64_t bytes) noexcept { return float(std::min(4, std::countr_zero(bytes | 16u))); }

float log2_at_least_1(std::int64_t v) noexcept { return v <= 1 ? 0.0f : float(std::log2(double(v))); }

}  // namespace

vote_point point_of(std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right, dtype type) noexcept {
  // Negated in unsigned arithmetic: -INT64_MIN would overflow.
  const std::uint64_t pad = pad_left < 0 ? std::uint64_t(0) - std::uint64_t(pad_left) : std::uint64_t(pad_left);
  const std::uint64_t size = size_of(type);
  // OL in double: the shapes that reach here were checked, but the vote must not overflow on any.
  const double OL = double(L) + double(pad_left) + double(pad_right);
  const float span = float(std::log2(std::max(OL, 1.0) / std::max(double(L), 1.0)));
  return {log2_at_least_1(L), log2_at_least_1(rows), log2_align(std::uint64_t(L) * size), log2_align(pad * size), span};
}

}  // namespace padtune::detail
