#include "padtune/buckets.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstdio>

namespace padtune {

namespace {
int floor_log2(std::int64_t v) { return v <= 1 ? 0 : 63 - std::countl_zero(std::uint64_t(v)); }
}  // namespace

std::string bucket::name() const { return fmt::format("l{}_r{}_a{}", log2_L, log2_rows, align); }

bucket bucket_of(std::int64_t rows, std::int64_t L, std::int64_t pad_left, dtype type) noexcept {
  bucket b;
  b.log2_L = floor_log2(L);
  b.log2_rows = floor_log2(rows);
  // Negated in unsigned arithmetic: -INT64_MIN would overflow.
  const std::uint64_t magnitude = pad_left < 0 ? std::uint64_t(0) - std::uint64_t(pad_left) : std::uint64_t(pad_left);
  const std::uint64_t offset = magnitude * size_of(type);
  b.align = 16;
  while (b.align > 1 && offset % unsigned(b.align) != 0) b.align /= 2;
  return b;
}

bool parse_bucket(const std::string& name, bucket& out) {
  int l = 0, r = 0, a = 0, consumed = 0;
  if (std::sscanf(name.c_str(), "l%d_r%d_a%d%n", &l, &r, &a, &consumed) != 3 || consumed != int(name.size())) return false;
  if (l < 0 || l > 63 || r < 0 || r > 63 || (a != 1 && a != 2 && a != 4 && a != 8 && a != 16)) return false;
  out = bucket{l, r, a};
  return true;
}

}  // namespace padtune
