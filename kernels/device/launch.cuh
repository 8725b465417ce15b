#pragma once
// Grid math and launch, for both backends, from one kernel description K (see seed.cuh):
// K::make_params plans the logical grid once, and the CUDA entry and the host emulation walk the
// same logical blocks through the same K::run, so the two backends cannot disagree. A persistent
// kernel (staged.cuh) runs the same K::run_persistent on both, over a grid of its own on each.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <memory>

#include "common.cuh"
#include "padtune/detail/resident_blocks.hpp"
#include "padtune/problem.hpp"

namespace padtune::detail {

/// The kernel-side view of a validated problem.
inline pad_args make_pad_args(const problem& p) {
  return make_pad_args(static_cast<const byte*>(p.dy), static_cast<byte*>(p.dx), p.B * p.C, p.L, p.pad_left,
                       p.pad_right, std::int64_t(size_of(p.type)));
}

template <class K>
__global__ void __launch_bounds__(K::threads) cuda_entry(const __grid_constant__ typename K::params p) {
  run_grid<K>(p);
}

/// resident_blocks for a persistent kernel, which asks for the most shared memory per SM, once per
/// device and kernel: the answer is a property of both.
template <class K>
std::uint64_t resident_blocks_of() {
  constexpr int max_devices = 64;
  static std::atomic<std::uint64_t> known[max_devices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return cudaGetLastError(), 0;
  const auto ask = [] { return resident_blocks(reinterpret_cast<const void*>(&cuda_entry<K>), K::threads, true); };
  if (device < 0 || device >= max_devices) return ask();
  std::uint64_t n = known[device].load(std::memory_order_relaxed);
  if (n == 0) known[device].store(n = ask(), std::memory_order_relaxed);
  return n;
}

template <class K>
cudaError_t launch_cuda(const problem& prob, cudaStream_t stream) {
  const typename K::params p = K::make_params(make_pad_args(prob));
  if (p.num_blocks == 0) return cudaSuccess;
  std::uint64_t grid = std::min<std::uint64_t>(p.num_blocks, INT_MAX);
  if constexpr (is_persistent<K>::value) {  // one wave: every block resident, each with its share
    if (const std::uint64_t wave = resident_blocks_of<K>()) grid = std::min(grid, wave);
  }
  cuda_entry<K><<<unsigned(grid), K::threads, 0, stream>>>(p);
  return cudaGetLastError();
}

/// Runs fn(ctx, first, last) over [0, n) split across the host's cores.
void for_each_block_range(std::uint64_t n, void (*fn)(const void*, std::uint64_t, std::uint64_t), const void* ctx);

/// The host emulation's grid for a persistent kernel: a fixed size, so that every machine runs the
/// same schedule, and small, so that the host tests' shapes give each block several tiles.
inline constexpr std::uint64_t host_persistent_grid = 8;

template <class K>
void launch_host(const problem& prob) {
  if constexpr (is_persistent<K>::value) {
    struct plan {
      typename K::params p;
      std::uint64_t grid;
    };
    const typename K::params p = K::make_params(make_pad_args(prob));
    const plan pl{p, std::min(p.num_blocks, host_persistent_grid)};
    for_each_block_range(
        pl.grid,
        [](const void* ctx, std::uint64_t first, std::uint64_t last) {
          const auto& q = *static_cast<const plan*>(ctx);
          const auto shared = std::make_unique<typename K::shared_storage>();  // the block's shared memory
          for (std::uint64_t b = first; b < last; ++b)
            K::run_persistent(q.p, b, q.grid, block_team{0, unsigned(K::threads)}, *shared);
        },
        &pl);
  } else {
    const typename K::params p = K::make_params(make_pad_args(prob));
    for_each_block_range(
        p.num_blocks,
        [](const void* ctx, std::uint64_t first, std::uint64_t last) {
          const auto& q = *static_cast<const typename K::params*>(ctx);
          for (std::uint64_t b = first; b < last; ++b)
            for (unsigned t = 0; t < unsigned(K::threads); ++t) K::run(q, b, t);
        },
        &p);
  }
}

}  // namespace padtune::detail
