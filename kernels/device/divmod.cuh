#pragma once
// Division by run-time constants as a multiply and a shift, so that no kernel divides per element
// or per tile: 64-bit (fast_divmod) and, for flat's direct grid, 32-bit (divmod32).
#include "host_device.cuh"

namespace padtune::detail {

PADTUNE_HD std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// floor(r * 2^64 / d) for r < d, without 128-bit arithmetic (NVRTC has none unless asked): two
/// 64-bit division steps where d < 2^32 (every divisor of a JIT launch, whose sizes are int32), one
/// quotient bit per step otherwise.
PADTUNE_HD std::uint64_t div_shifted_64(std::uint64_t r, std::uint64_t d) {
  if (d >> 32 == 0) {
    const std::uint64_t hi = (r << 32) / d, rem = (r << 32) % d;
    return hi << 32 | (rem << 32) / d;
  }
  std::uint64_t q = 0;
  for (int bit = 0; bit < 64; ++bit) {
    const bool carry = r >> 63;
    r <<= 1, q <<= 1;
    if (carry || r >= d) r -= d, q |= 1;
  }
  return q;
}

/// Division by a run-time constant as a multiply and a shift (Granlund-Montgomery), so that no
/// kernel divides per element or per tile. Exact for dividends below 2^63 and divisors >= 1.
struct fast_divmod {
  std::uint64_t divisor = 1;
  std::uint64_t magic = 0;
  unsigned shift = 0;

  fast_divmod() = default;
  /// Pre: 1 <= d <= 2^63. The ahead-of-time launch plans on the host; a JIT kernel plans on the
  /// device, once per thread, where a loop over the shift and a 128-bit division would cost most.
  PADTUNE_HD explicit fast_divmod(std::uint64_t d) : divisor(d) {
#if defined(__CUDA_ARCH__)
    shift = d > 1 ? unsigned(64 - __clzll(static_cast<long long>(d - 1))) : 0;  // ceil(log2 d)
    magic = d == 1 ? 0 : div_shifted_64((std::uint64_t(1) << shift) - d, d) + 1;
#else
    while (shift < 63 && (std::uint64_t(1) << shift) < d) ++shift;  // shift = ceil(log2 d)
    const unsigned __int128 two_64 = static_cast<unsigned __int128>(1) << 64;
    magic = d == 1 ? 0 : static_cast<std::uint64_t>(two_64 * ((std::uint64_t(1) << shift) - d) / d) + 1;
#endif
  }

  PADTUNE_HD std::uint64_t div(std::uint64_t n) const { return (mul_hi(magic, n) + n) >> shift; }
  PADTUNE_HD void divmod(std::uint64_t n, std::uint64_t& q, std::uint64_t& r) const {
    q = div(n);
    r = n - q * divisor;
  }
};

/// The high 32 bits of a * b: one IMAD.HI on the device.
PADTUNE_HD std::uint32_t mul_hi32(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return std::uint32_t((std::uint64_t(a) * b) >> 32);
#endif
}

/// Division by d (1 <= d < 2^31) as (mul_hi32(e, magic) + e) >> shift, exact for every e < 2^31
/// (the sum then fits 32 bits): fast_divmod's method in 32 bits.
struct divmod32 {
  std::uint32_t magic = 0, shift = 0;
  divmod32() = default;
  PADTUNE_HD explicit divmod32(std::uint32_t d) {
    while ((std::uint64_t(1) << shift) < d) ++shift;  // ceil(log2 d)
    magic = std::uint32_t((std::uint64_t(1) << 32) * ((std::uint64_t(1) << shift) - d) / d + 1);
  }
  PADTUNE_HD std::uint32_t div(std::uint32_t e) const { return (mul_hi32(e, magic) + e) >> shift; }
};

PADTUNE_HD std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }
}  // namespace padtune::detail
