// A fill value as the bits of its dtype, converted the way PyTorch converts a Scalar.
#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "padtune/problem.hpp"

namespace padtune {
namespace {

/// float to f16, to nearest even; NaN to 0x7e00 with its sign (PyTorch's c10::Half(float)).
std::uint16_t f16_of(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return std::uint16_t(sign | 0x7e00u);
  if (ax >= 0x477ff000u) return std::uint16_t(sign | 0x7c00u);  // 65520 and above round to infinity
  if (ax < 0x38800000u)  // below 2^-14: a subnormal in units of 2^-24 (the product is exact); 0x400 is 2^-14
    return std::uint16_t(sign | std::uint32_t(std::nearbyint(std::fabs(f) * 0x1p24f)));
  const std::uint32_t rounded = ax + 0xfffu + ((ax >> 13) & 1u);  // to nearest even at the 10th fraction bit
  return std::uint16_t(sign | ((rounded - (112u << 23)) >> 13));  // exponent bias 127 to 15
}

/// float to bf16, to nearest even; NaN to 0x7fc0 (PyTorch's c10::BFloat16(float)).
std::uint16_t bf16_of(float f) {
  if (std::isnan(f)) return 0x7fc0u;
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  return std::uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

}  // namespace

status fill_bits(double value, dtype type, std::uint64_t* bits, std::string* why) noexcept try {
  // PyTorch's check (c10::overflows): a finite value past the type's largest, either sign.
  const double largest = type == dtype::f16 ? 65504.0 : type == dtype::bf16 ? 0x1.fep127 : std::numeric_limits<float>::max();
  if (type != dtype::f64 && size_of(type) != 0 && std::isfinite(value) && std::fabs(value) > largest) {
    if (why) *why = fmt::format("fill value {} overflows {} (largest {})", value, name_of(type), largest);
    return status::invalid_fill;
  }
  const float f = static_cast<float>(value);  // in range here: rounds to nearest
  std::uint64_t b = 0;
  switch (type) {
    case dtype::f64: b = std::bit_cast<std::uint64_t>(value); break;
    case dtype::f32: b = std::bit_cast<std::uint32_t>(f); break;
    case dtype::f16: b = f16_of(f); break;
    case dtype::bf16: b = bf16_of(f); break;
    default:
      if (why) *why = fmt::format("unknown dtype (value {})", int(type));
      return status::unknown_dtype;
  }
  if (bits) *bits = b;
  return status::ok;
} catch (...) {  // fmt may throw bad_alloc; this entry point promises noexcept
  return status::invalid_fill;
}

}  // namespace padtune
