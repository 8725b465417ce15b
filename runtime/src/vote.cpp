#include "vote.hpp"

#include <algorithm>
#include <bit>

namespace padtune::detail {
namespace {

/// log2 of the largest of 16, 8, 4, 2, 1 that divides the byte count.
float log2_align(std::uint64_t bytes) noexcept { return float(std::min(4, std::countr_zero(bytes | 16u))); }

float log2_at_least_1(std::int64_t v) noexcept { return v <= 1 ? 0.0f : float(std::log2(double(v))); }

}  // namespace

vote_point point_of(std::int64_t rows, std::int64_t L, std::int64_t pad_left, dtype type) noexcept {
  // Negated in unsigned arithmetic: -INT64_MIN would overflow.
  const std::uint64_t pad = pad_left < 0 ? std::uint64_t(0) - std::uint64_t(pad_left) : std::uint64_t(pad_left);
  const std::uint64_t size = size_of(type);
  return {log2_at_least_1(L), log2_at_least_1(rows), log2_align(std::uint64_t(L) * size), log2_align(pad * size)};
}

}  // namespace padtune::detail
