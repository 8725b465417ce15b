#include "padtune/measure/device_helpers.hpp"

#include <algorithm>

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

/// The lowest byte index where x and y differ into *first (left alone where they agree): bytes
/// [0, head) one at a time, then `words` 16-byte words, then the rest of the n bytes one at a time.
/// One pass, no early exit: a copy that passes reads every byte anyway.
__global__ void first_difference_kernel(const unsigned char* x, const unsigned char* y, std::uint64_t n, std::uint64_t head,
                                        std::uint64_t words, unsigned long long* first) {
  const std::uint64_t body_end = head + words * 16, units = head + words + (n - body_end);
  for (std::uint64_t u = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; u < units;
       u += std::uint64_t(gridDim.x) * blockDim.x) {
    if (u >= head && u < head + words) {
      const std::uint64_t at = head + (u - head) * 16;
      const uint4 p = *reinterpret_cast<const uint4*>(x + at), q = *reinterpret_cast<const uint4*>(y + at);
      if (p.x == q.x && p.y == q.y && p.z == q.z && p.w == q.w) continue;
      for (int k = 0; k < 16; ++k)
        if (x[at + k] != y[at + k]) {
          atomicMin(first, static_cast<unsigned long long>(at + k));
          break;
        }
    } else {
      const std::uint64_t at = u < head ? u : body_end + (u - head - words);
      if (x[at] != y[at]) atomicMin(first, static_cast<unsigned long long>(at));
    }
  }
}

}  // namespace

cudaError_t fill_random_words(void* p, std::uint64_t words, std::uint64_t seed) {
  fill_random_kernel<<<2048, 256>>>(static_cast<std::uint32_t*>(p), words, seed);
  return cudaGetLastError();
}

cudaError_t first_difference(const void* a, const void* b, std::size_t n, unsigned long long* answer, std::int64_t* at) {
  *at = -1;
  if (n == 0) return cudaSuccess;
  const auto* x = static_cast<const unsigned char*>(a);
  const auto* y = static_cast<const unsigned char*>(b);
  // 16-byte words where a and b agree in alignment (always, for the tuner's buffers), bytes around them.
  std::uint64_t head = n;
  if ((reinterpret_cast<std::uintptr_t>(x) - reinterpret_cast<std::uintptr_t>(y)) % 16 == 0)
    head = std::min<std::uint64_t>(n, (16 - reinterpret_cast<std::uintptr_t>(x) % 16) % 16);
  const std::uint64_t words = (n - head) / 16;
  if (const cudaError_t e = cudaMemset(answer, 0xFF, sizeof *answer); e != cudaSuccess) return e;
  const std::uint64_t units = head + words + (n - head - words * 16);
  first_difference_kernel<<<unsigned(std::min<std::uint64_t>(2048, (units + 255) / 256)), 256>>>(x, y, n, head, words, answer);
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  unsigned long long found = 0;
  if (const cudaError_t e = cudaMemcpy(&found, answer, sizeof found, cudaMemcpyDeviceToHost); e != cudaSuccess) return e;
  if (found != ~0ull) *at = std::int64_t(found);
  return cudaSuccess;
}

}  // namespace padtune::tuner
