#pragma once
// Grid math and launch, for both backends, from one kernel K (device/protocol.cuh): K::make_params
// plans the logical grid once, and the CUDA entry and the host emulation walk the same logical
// blocks through the same K::run (K::run_phase, one phase at a time, for a kernel whose threads meet
// at barriers: staged.cuh), so the two backends cannot disagree. A kernel with a row grid
// (K::run_tile) takes it on both backends where plan_row_grid accepts the problem; on CUDA the others
// get a block per logical block where the plan fits gridDim.x, the grid-stride loop beyond.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "grid_walk.cuh"
#include "pad_args.cuh"
#include "padtune/problem.hpp"
#include "plans.cuh"
#include "protocol.cuh"

namespace padtune::detail {

/// The kernel-side view of a validated problem.
inline pad_args make_pad_args(const problem& p) {
  return make_pad_args(static_cast<const byte*>(p.dy), static_cast<byte*>(p.dx), p.B * p.C, p.L, p.pad_left,
                       p.pad_right, std::int64_t(size_of(p.type)), p.fill);
}

/// A CUDA block per logical block: no loop. L2-cold, even a grid-stride loop that runs once cost a
/// small problem 0.13-0.27 us (docs/performance-notes.md v13), so every plan that fits gridDim.x launches this.
template <class K>
__global__ void __launch_bounds__(K::threads) cuda_exact_entry(const __grid_constant__ typename K::params p) {
  K::run(p, blockIdx.x, threadIdx.x);
}

/// The logical blocks beyond the grid walked by run_grid's loop: plans of more than INT_MAX blocks.
template <class K>
__global__ void __launch_bounds__(K::threads) cuda_entry(const __grid_constant__ typename K::params p) {
  run_grid<K>(p);
}

/// ROW_TEST: the grid has rows past the last (rows_y * rows_z > rows). Where it has none, the
/// block starts without the test: L2-cold, a branch on a parameter waits for its constant load
/// before the block loads the others (docs/performance-notes.md v10, v14).
template <class K, bool ROW_TEST>
__global__ void __launch_bounds__(K::threads) cuda_row_grid_entry(const __grid_constant__ row_grid_params p) {
  const std::uint32_t row = blockIdx.z * gridDim.y + blockIdx.y;
  if (!ROW_TEST || row < p.rows) K::run_tile(p, row, blockIdx.x, threadIdx.x);
}

/// TAIL: the last block runs past dx's end (flat_grid::exact is false).
template <class K, bool TAIL>
__global__ void __launch_bounds__(K::threads) cuda_flat_grid_entry(const __grid_constant__ flat_grid_params p) {
  K::template run_direct<TAIL>(p, blockIdx.x, threadIdx.x);
}

/// The grid-stride loop over a plan, on a grid of min(num_blocks, max_blocks) blocks: the launch of
/// plans beyond gridDim.x, and of the tests that walk the loop on small problems.
template <class K>
cudaError_t launch_cuda_grid_stride(const typename K::params& p, std::uint64_t max_blocks, cudaStream_t stream) {
  if (p.num_blocks == 0) return cudaSuccess;
  cuda_entry<K><<<unsigned(std::min<std::uint64_t>(p.num_blocks, max_blocks)), K::threads, 0, stream>>>(p);
  return cudaGetLastError();
}

/// The row grid or flat grid where the kernel has one and the problem fits it, else a block per
/// logical block, else the grid-stride loop.
template <class K>
cudaError_t launch_cuda(const problem& prob, cudaStream_t stream) {
  static_assert(kernel_of_the_family<K>);
  const pad_args a = make_pad_args(prob);
  if constexpr (has_row_grid<K>) {
    row_grid g;
    if (plan_row_grid(a, K::block_ol, K::elem, g)) {
      if (g.tiles == 0) return cudaSuccess;
      const dim3 grid(g.tiles, g.rows_y, g.rows_z);
      if (std::uint64_t(g.rows_y) * g.rows_z == g.p.rows)
        cuda_row_grid_entry<K, false><<<grid, K::threads, 0, stream>>>(g.p);
      else
        cuda_row_grid_entry<K, true><<<grid, K::threads, 0, stream>>>(g.p);
      return cudaGetLastError();
    }
  }
  if constexpr (has_flat_grid<K>) {
    flat_grid g;
    if (K::plan_direct(a, g)) {
      if (g.blocks == 0) return cudaSuccess;
      if (g.exact)
        cuda_flat_grid_entry<K, false><<<g.blocks, K::threads, 0, stream>>>(g.p);
      else
        cuda_flat_grid_entry<K, true><<<g.blocks, K::threads, 0, stream>>>(g.p);
      return cudaGetLastError();
    }
  }
  const typename K::params p = K::make_params(a);
  if (p.num_blocks == 0) return cudaSuccess;
  if (p.num_blocks > INT_MAX) return launch_cuda_grid_stride<K>(p, INT_MAX, stream);
  cuda_exact_entry<K><<<unsigned(p.num_blocks), K::threads, 0, stream>>>(p);
  return cudaGetLastError();
}

/// Runs fn(ctx, first, last) over [0, n) split across the host's cores.
void for_each_block_range(std::uint64_t n, void (*fn)(const void*, std::uint64_t, std::uint64_t), const void* ctx);

/// Every logical block of a plan on the host, thread by thread (phase by phase where the kernel's
/// threads meet at barriers): the host emulation of the grid-stride launch.
template <class K>
void run_host_blocks(const typename K::params& p) {
  for_each_block_range(
      p.num_blocks,
      [](const void* ctx, std::uint64_t first, std::uint64_t last) {
        const auto& q = *static_cast<const typename K::params*>(ctx);
        if constexpr (requires { K::phases; }) {  // a block's threads meet at barriers between phases
          typename K::stage s;  // the block's shared memory
          for (std::uint64_t b = first; b < last; ++b) {
            std::memset(&s, 0xA5, sizeof s);  // poison: a staged byte the block did not copy in shows in dx
            for (int phase = 0; phase < K::phases; ++phase)
              for (unsigned t = 0; t < unsigned(K::threads); ++t) K::run_phase(q, b, t, phase, s);
          }
        } else {
          for (std::uint64_t b = first; b < last; ++b)
            for (unsigned t = 0; t < unsigned(K::threads); ++t) K::run(q, b, t);
        }
      },
      &p);
}

/// The host emulation of launch_cuda: the row grid or flat grid where CUDA takes it, else every
/// logical block.
template <class K>
void launch_host(const problem& prob) {
  const pad_args a = make_pad_args(prob);
  if constexpr (has_row_grid<K>) {
    row_grid g;
    if (plan_row_grid(a, K::block_ol, K::elem, g)) {
      for_each_block_range(
          std::uint64_t(g.tiles) * g.p.rows,
          [](const void* ctx, std::uint64_t first, std::uint64_t last) {
            const auto& q = *static_cast<const row_grid*>(ctx);
            for (std::uint64_t b = first; b < last; ++b)
              for (unsigned t = 0; t < unsigned(K::threads); ++t)
                K::run_tile(q.p, std::uint32_t(b / q.tiles), std::uint32_t(b % q.tiles), t);
          },
          &g);
      return;
    }
  }
  if constexpr (has_flat_grid<K>) {
    flat_grid g;
    if (K::plan_direct(a, g)) {
      for_each_block_range(
          g.blocks,
          [](const void* ctx, std::uint64_t first, std::uint64_t last) {
            const auto& q = *static_cast<const flat_grid*>(ctx);
            for (std::uint64_t b = first; b < last; ++b)
              for (unsigned t = 0; t < unsigned(K::threads); ++t) {
                if (q.exact)
                  K::template run_direct<false>(q.p, std::uint32_t(b), t);
                else
                  K::template run_direct<true>(q.p, std::uint32_t(b), t);
              }
          },
          &g);
      return;
    }
  }
  run_host_blocks<K>(K::make_params(a));
}

}  // namespace padtune::detail
