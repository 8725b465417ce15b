// Kernels of the launch-floor benchmark: the least a kernel can do on a tiny copy, to compare a
// kernel launch's L2-cold latency with cudaMemcpyAsync's (issue 5's P9 target is 1.10x the copy).
#include "launch_floor_kernels.hpp"

#include <cstdint>

namespace padtune::bench {
namespace {

__global__ void empty_kernel() {}

/// One 4-byte word per thread, nothing else: the smallest code that copies.
__global__ void word_copy_kernel(const unsigned* __restrict__ src, unsigned* __restrict__ dst, unsigned words) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < words) dst[i] = src[i];
}

/// The same copy with a parameter block as large as padtune's (about 128 bytes).
struct big_params {
  const unsigned* src;
  unsigned* dst;
  unsigned words;
  unsigned long long unused[14];
};
__global__ void word_copy_big_params_kernel(const __grid_constant__ big_params p) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < p.words) p.dst[i] = p.src[i];
}

unsigned blocks_of(unsigned words) { return unsigned((std::uint64_t(words) + 255) / 256); }

}  // namespace

cudaError_t launch_empty(cudaStream_t s) {
  empty_kernel<<<1, 32, 0, s>>>();
  return cudaGetLastError();
}

cudaError_t launch_word_copy(const void* src, void* dst, unsigned words, cudaStream_t s) {
  word_copy_kernel<<<blocks_of(words), 256, 0, s>>>(static_cast<const unsigned*>(src), static_cast<unsigned*>(dst), words);
  return cudaGetLastError();
}

cudaError_t launch_word_copy_big_params(const void* src, void* dst, unsigned words, cudaStream_t s) {
  big_params p{static_cast<const unsigned*>(src), static_cast<unsigned*>(dst), words, {}};
  word_copy_big_params_kernel<<<blocks_of(words), 256, 0, s>>>(p);
  return cudaGetLastError();
}

}  // namespace padtune::bench
