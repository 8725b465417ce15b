#pragma once
// Test data: fresh random bytes with special values planted, poison and guard patterns.
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "padtune/dtype.hpp"

namespace padtune::test {

inline constexpr unsigned char poison_byte = 0xA5;
inline constexpr unsigned char guard_byte = 0xCD;
inline constexpr std::size_t guard_bytes = 64;

/// A generator seeded from the OS; its seed goes into failure messages so a case can be replayed.
struct random_source {
  std::uint64_t seed;
  std::mt19937_64 gen;
  random_source();
};

/// n elements of random bits for `type`: no element is +0, and -0.0, NaNs with payloads (quiet and
/// signalling), infinities and denormals are planted at random places.
std::vector<unsigned char> random_elements(dtype type, std::size_t n, std::mt19937_64& gen);

}  // namespace padtune::test
