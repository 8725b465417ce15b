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

/// Sets *at to the first byte where a and b (device memory, n bytes) differ, or -1: one kernel and
/// one 8-byte read back, no allocation. (thrust::mismatch took 18 ms a verification on an H200,
/// 60% of a tune's time, and two processes on two GPUs took as long as one.) `answer` is one
/// device word the caller owns. Synchronizes.
cudaError_t first_difference(const void* a, const void* b, std::size_t n, unsigned long long* answer, std::int64_t* at);

}  // namespace padtune::tuner
