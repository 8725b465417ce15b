#pragma once
// The few device routines the tuner needs that are not kernels of the family: test data and a
// byte comparison, on the device so gigabyte shapes stay cheap. (Kept apart from workspace_cuda.cpp
// because nvcc does not compile fmt.)
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace padtune::tuner {

/// Fills `words` 32-bit words with random bits from `seed`; no half-word is zero, so no element of
/// any dtype is +0 (an unwritten zero cannot pass for a copied one).
cudaError_t fill_random_words(void* p, std::uint64_t words, std::uint64_t seed);

/// The first byte where a and b (device memory, n bytes) differ, or -1. Synchronizes.
std::int64_t first_difference(const void* a, const void* b, std::size_t n);

}  // namespace padtune::tuner
