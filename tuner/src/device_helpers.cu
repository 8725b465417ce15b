#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/mismatch.h>

#include "device_helpers.hpp"

namespace padtune::tuner {
namespace {

__global__ void fill_random_kernel(std::uint32_t* p, std::uint64_t words, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < words;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t x = (i + seed) * 0x9E3779B97F4A7C15ull;  // splitmix64
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    p[i] = std::uint32_t(x) | 0x00010001u;
  }
}

}  // namespace

cudaError_t fill_random_words(void* p, std::uint64_t words, std::uint64_t seed) {
  fill_random_kernel<<<2048, 256>>>(static_cast<std::uint32_t*>(p), words, seed);
  return cudaGetLastError();
}

std::int64_t first_difference(const void* a, const void* b, std::size_t n) {
  const auto x = thrust::device_pointer_cast(static_cast<const unsigned char*>(a));
  const auto y = thrust::device_pointer_cast(static_cast<const unsigned char*>(b));
  const auto at = thrust::mismatch(thrust::device, x, x + n, y).first;
  return at == x + n ? -1 : std::int64_t(at - x);
}

}  // namespace padtune::tuner
