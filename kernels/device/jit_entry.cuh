#pragma once
// What every JIT entry point (kernels/jit) runs. The launch arguments are the seed's tuple
// (dy, dx, B, C, L, OL); the pads and the fill are compile-time constants, so the planning below folds them. The
// plan is the one the ahead-of-time launch makes on the host (K::make_params), made here by each
// thread, and the blocks are walked by the same run_grid.
#include "grid_walk.cuh"
#include "pad_args.cuh"

namespace padtune::detail {

/// Storage for the 16-bit types: the kernels only move bits (they use sizeof(T) alone), and NVRTC
/// has no cuda_fp16.h of its own, so a JIT kernel needs no toolkit header at run time.
struct alignas(2) f16_storage { std::uint16_t bits; };
struct alignas(2) bf16_storage { std::uint16_t bits; };

/// Pre (checked by the host): B, C, L >= 0 and OL == PAD_LEFT + L + PAD_RIGHT; FILL has no bits
/// beyond sizeof(T) bytes.
template <class K, long long PAD_LEFT, long long PAD_RIGHT, unsigned long long FILL, class T>
__device__ __forceinline__ void jit_entry(const T* dy, T* dx, int B, int C, int L) {
  const pad_args a = make_pad_args(reinterpret_cast<const byte*>(dy), reinterpret_cast<byte*>(dx),
                                   std::int64_t(B) * C, L, PAD_LEFT, PAD_RIGHT, std::int64_t(sizeof(T)), FILL);
  run_grid<K>(K::make_params(a));
}

}  // namespace padtune::detail
