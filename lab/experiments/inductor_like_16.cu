// An experiment for lab/bin/same-timer --extra (not part of padtune's library): inductor's
// layout at P8 16-bit (8,128,1000,7,9), where its kernel ran at 1.006 of the copy and the library's
// best, flatvec, at 1.045 (one timer, docs/performance-notes.md v15). Its Triton config there is 1024
// elements a program, 4 warps: 8 consecutive elements a thread, row and column by a division by L,
// scalar masked loads, one 16-byte store. Here that layout with the sizes compiled in and as
// run-time parameters (what an ahead-of-time kernel has), and a 2048-element form (two passes).
// 16-bit elements move as bits, so f16 and bf16 are one kernel. The launchers refuse problems whose
// rows * L is not a multiple of the block's elements, and compiled_in any shape but P8 (same_timer
// stops at a refusal: run this file on P8). Outcome: docs/performance-notes.md, "P8 16-bit".
//
//   python3 lab/bin/same-timer 8,128,1000,7,9 f16 --inductor --extra lab/experiments/inductor_like_16.cu \
//       constant_pad1d_backward__f16__flatvec__bo1024__t128__w16
#include <cstdint>

namespace {

using u16 = unsigned short;

struct rt_sizes {
  const u16* dy;
  u16* dx;
  std::uint32_t L, OL, magic;  // row = (mulhi(e, magic) + e) >> shift, column = e - row * L
  int pad_left;
  unsigned shift;
};

/// Eight elements from e0 on, packed into one 16-byte word.
__device__ __forceinline__ uint4 eight(const u16* dy, std::uint32_t e0, std::uint32_t L, std::uint32_t OL, int pl,
                                       std::uint32_t magic, unsigned shift) {
  unsigned v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const std::uint32_t e = e0 + k;
    const std::uint32_t row = (__umulhi(e, magic) + e) >> shift, col = e - row * L;
    const int src = int(col) + pl;
    v[k] = (src >= 0 && src < int(OL)) ? unsigned(__ldg(dy + std::uint64_t(row) * OL + unsigned(src))) : 0u;
  }
  return make_uint4(v[0] | v[1] << 16, v[2] | v[3] << 16, v[4] | v[5] << 16, v[6] | v[7] << 16);
}

template <std::uint32_t L, std::uint32_t OL, int PL>
__global__ void __launch_bounds__(128) compiled_in(const u16* __restrict__ dy, u16* __restrict__ dx) {
  const std::uint32_t e0 = blockIdx.x * 1024u + threadIdx.x * 8u;
  unsigned v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const std::uint32_t e = e0 + k, row = e / L, col = e % L;
    const int src = int(col) + PL;
    v[k] = (src >= 0 && src < int(OL)) ? unsigned(__ldg(dy + std::uint64_t(row) * OL + unsigned(src))) : 0u;
  }
  *reinterpret_cast<uint4*>(dx + e0) = make_uint4(v[0] | v[1] << 16, v[2] | v[3] << 16, v[4] | v[5] << 16, v[6] | v[7] << 16);
}

template <int PASSES>
__global__ void __launch_bounds__(128) run_time(const __grid_constant__ rt_sizes p) {
#pragma unroll
  for (int r = 0; r < PASSES; ++r) {
    const std::uint32_t e0 = blockIdx.x * (1024u * PASSES) + r * 1024u + threadIdx.x * 8u;
    *reinterpret_cast<uint4*>(p.dx + e0) = eight(p.dy, e0, p.L, p.OL, p.pad_left, p.magic, p.shift);
  }
}

/// Granlund-Montgomery for 32-bit dividends below 2^31 (so mulhi + e does not overflow).
void magic_of(std::uint32_t d, std::uint32_t& magic, unsigned& shift) {
  shift = 0;
  while ((1ull << shift) < d) ++shift;
  magic = std::uint32_t((1ull << 32) * ((1ull << shift) - d) / d + 1);
}

bool p8(long long rows, long long L, long long pl, long long pr) { return rows == 1024 && L == 1000 && pl == 7 && pr == 9; }

template <int PASSES>
int launch_run_time(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  if ((rows * L) % (1024 * PASSES) != 0 || rows * (pl + L + pr) >= (1ll << 31) || pl < 0) return 1;
  rt_sizes p{static_cast<const u16*>(dy), static_cast<u16*>(dx), std::uint32_t(L), std::uint32_t(pl + L + pr), 0, int(pl), 0};
  magic_of(std::uint32_t(L), p.magic, p.shift);
  run_time<PASSES><<<unsigned(rows * L / (1024 * PASSES)), 128, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace

extern "C" int same_timer_inductor16_compiled_in(const void* dy, void* dx, long long rows, long long L, long long pl,
                                                 long long pr, void* stream) {
  if (!p8(rows, L, pl, pr)) return 1;
  compiled_in<1000, 1016, 7><<<1000, 128, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const u16*>(dy),
                                                                                   static_cast<u16*>(dx));
  return int(cudaGetLastError());
}

extern "C" int same_timer_inductor16_run_time(const void* dy, void* dx, long long rows, long long L, long long pl,
                                              long long pr, void* stream) {
  return launch_run_time<1>(dy, dx, rows, L, pl, pr, stream);
}

extern "C" int same_timer_inductor16_run_time_x2(const void* dy, void* dx, long long rows, long long L, long long pl,
                                                 long long pr, void* stream) {
  return launch_run_time<2>(dy, dx, rows, L, pl, pr, stream);
}
