// An experiment for lab/bin/same-timer --extra (not part of padtune's library): inductor's
// kernel for P8 f32 (8,128,1000,7,9) ran at 1.011 of the copy against padtune's best 1.043 (one
// timer, --inductor). Its structure: a 1-D grid of 1024 elements a program, 4 warps, each thread 4
// consecutive elements twice (512 apart), row and column by a division by a compile-time L,
// scalar masked loads, 16-byte stores. Here that structure twice: sizes compiled in (as inductor
// specializes on the shape), and the same sizes as run-time parameters (what an ahead-of-time
// kernel has), so the difference says whether an ahead-of-time kernel can reach it. f32 only, and
// rows * L a multiple of 1024 (P8's 1024000): the launchers refuse anything else.
//
//   python3 lab/bin/same-timer 8,128,1000,7,9 f32 --inductor --extra lab/experiments/inductor_like.cu \
//       constant_pad1d_backward__f32__flat__bo4096__t256__w16
#include <cstdint>

namespace {

struct rt_sizes {
  const float* dy;
  float* dx;
  std::uint32_t L, OL, magic;  // row = (mulhi(e, magic) + e) >> shift, column = e - row * L
  int pad_left;
  unsigned shift;
};

__device__ __forceinline__ float4 four(const float* dy, std::uint32_t e0, std::uint32_t L, std::uint32_t OL, int pl,
                                       std::uint32_t magic, unsigned shift) {
  float v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const std::uint32_t e = e0 + k;
    const std::uint32_t row = (__umulhi(e, magic) + e) >> shift, col = e - row * L;
    const int src = int(col) + pl;
    v[k] = (src >= 0 && src < int(OL)) ? __ldg(dy + std::uint64_t(row) * OL + unsigned(src)) : 0.0f;
  }
  return make_float4(v[0], v[1], v[2], v[3]);
}

template <std::uint32_t L, std::uint32_t OL, int PL>
__global__ void __launch_bounds__(128) compiled_in(const float* __restrict__ dy, float* __restrict__ dx) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::uint32_t e0 = blockIdx.x * 1024u + r * 512u + threadIdx.x * 4u;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const std::uint32_t e = e0 + k, row = e / L, col = e % L;
      const int src = int(col) + PL;
      v[k] = (src >= 0 && src < int(OL)) ? __ldg(dy + std::uint64_t(row) * OL + unsigned(src)) : 0.0f;
    }
    *reinterpret_cast<float4*>(dx + e0) = make_float4(v[0], v[1], v[2], v[3]);
  }
}

__global__ void __launch_bounds__(128) run_time(const __grid_constant__ rt_sizes p) {
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const std::uint32_t e0 = blockIdx.x * 1024u + r * 512u + threadIdx.x * 4u;
    *reinterpret_cast<float4*>(p.dx + e0) = four(p.dy, e0, p.L, p.OL, p.pad_left, p.magic, p.shift);
  }
}

/// Granlund-Montgomery for 32-bit dividends below 2^31 (so mulhi + e does not overflow).
void magic_of(std::uint32_t d, std::uint32_t& magic, unsigned& shift) {
  shift = 0;
  while ((1ull << shift) < d) ++shift;
  magic = std::uint32_t((1ull << 32) * ((1ull << shift) - d) / d + 1);
}

bool p8(long long rows, long long L, long long pl, long long pr) { return rows == 1024 && L == 1000 && pl == 7 && pr == 9; }

}  // namespace

extern "C" int same_timer_inductor_like_compiled_in(const void* dy, void* dx, long long rows, long long L, long long pl,
                                                    long long pr, void* stream) {
  if (!p8(rows, L, pl, pr)) return 1;
  compiled_in<1000, 1016, 7><<<1000, 128, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const float*>(dy),
                                                                                   static_cast<float*>(dx));
  return int(cudaGetLastError());
}

extern "C" int same_timer_inductor_like_run_time(const void* dy, void* dx, long long rows, long long L, long long pl,
                                                 long long pr, void* stream) {
  if ((rows * L) % 1024 != 0 || rows * (pl + L + pr) >= (1ll << 31) || pl < 0) return 1;
  rt_sizes p{static_cast<const float*>(dy), static_cast<float*>(dx), std::uint32_t(L), std::uint32_t(pl + L + pr), 0,
             int(pl), 0};
  magic_of(std::uint32_t(L), p.magic, p.shift);
  run_time<<<unsigned(rows * L / 1024), 128, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}
