// dx set to the fill before an instantiation that writes only the positions with a source (the
// seed): a memset where every byte of the fill is the same (zero among them), else a fill kernel.
#include <cstring>

#include "bits.cuh"
#include "padtune/registry.hpp"

namespace padtune {
namespace {

template <int S>
__global__ void fill_elements(detail::byte* dx, std::uint64_t n, std::uint64_t fill) {
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t e = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += stride)
    detail::store_element<S>(dx + e * S, detail::bits_t<S>(fill));
}

/// The byte every byte of the fill's S-byte element is, or -1 where they differ.
int repeated_byte(std::uint64_t fill, int S) {
  const int b = int(fill & 0xff);
  for (int k = 1; k < S; ++k)
    if (int((fill >> (8 * k)) & 0xff) != b) return -1;
  return b;
}

}  // namespace

cudaError_t prefill_cuda(const problem& p, cudaStream_t stream) {
  const int S = int(size_of(p.type));
  const std::uint64_t n = std::uint64_t(p.B * p.C * p.L);
  if (n == 0) return cudaSuccess;
  if (const int b = repeated_byte(p.fill, S); b >= 0) return cudaMemsetAsync(p.dx, b, n * std::uint64_t(S), stream);
  constexpr unsigned threads = 256;
  const unsigned blocks = unsigned(n / threads < 65536 ? (n + threads - 1) / threads : 65536);
  auto* dx = static_cast<detail::byte*>(p.dx);
  if (S == 2) fill_elements<2><<<blocks, threads, 0, stream>>>(dx, n, p.fill);
  else if (S == 4) fill_elements<4><<<blocks, threads, 0, stream>>>(dx, n, p.fill);
  else fill_elements<8><<<blocks, threads, 0, stream>>>(dx, n, p.fill);
  return cudaGetLastError();
}

void prefill_host(const problem& p) {
  const std::size_t S = size_of(p.type), n = std::size_t(p.B * p.C * p.L);
  auto* dx = static_cast<unsigned char*>(p.dx);
  for (std::size_t e = 0; e < n; ++e) std::memcpy(dx + e * S, &p.fill, S);  // little-endian: the low bytes
}

}  // namespace padtune
