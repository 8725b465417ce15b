#pragma once
// What a kernel of the family is, as a C++20 concept: the launchers (kernels/launch) and the JIT
// entry (jit_entry.cuh) use nothing else of a kernel, and register.cuh checks every instantiation
// against it. Host code only: NVRTC never includes this file.
#include <concepts>
#include <cstdint>

#include "pad_args.cuh"
#include "plans.cuh"

namespace padtune::detail {

/// A kernel K<T, BLOCK_OL, MAX_THREADS, W>:
/// - its launch shape: elem (bytes per element), threads (per block), access_width (bytes per global
///   access), items (accesses per thread per logical block), valid (false: not compiled);
/// - needs_zeroed_dx: it writes only the positions that have a source (the seed);
/// - params, made once per launch by make_params(pad_args), holding num_blocks, the logical blocks;
/// - the work of one logical block for one thread: run(params, block, thread), or, for a kernel whose
///   threads meet at barriers, phases and run_phase(params, block, thread, phase, stage), the host
///   emulation running each phase for every thread of a block before the next;
/// - optionally a direct launch over a row grid: block_ol and run_tile(row_grid_params, row, tile, thread);
///   or over a flat grid of chunks: direct_flat, plan_direct(pad_args, flat_grid&) and
///   run_direct<TAIL>(flat_grid_params, block, thread).
template <class K>
concept kernel_of_the_family =
    requires(const pad_args& a, const typename K::params& p, std::uint64_t block, unsigned thread) {
      { K::elem } -> std::convertible_to<int>;
      { K::threads } -> std::convertible_to<int>;
      { K::access_width } -> std::convertible_to<int>;
      { K::items } -> std::convertible_to<int>;
      { K::valid } -> std::convertible_to<bool>;
      { K::needs_zeroed_dx } -> std::convertible_to<bool>;
      { K::make_params(a) } -> std::same_as<typename K::params>;
      { p.num_blocks } -> std::convertible_to<std::uint64_t>;
    } &&
    (requires(const typename K::params& p, std::uint64_t block, unsigned thread) { K::run(p, block, thread); } ||
     requires(const typename K::params& p, std::uint64_t block, unsigned thread, typename K::stage& s) {
       { K::phases } -> std::convertible_to<int>;
       K::run_phase(p, block, thread, 0, s);
     });

/// A kernel with a direct launch: a block per (row, tile), its index the row and tile.
template <class K>
concept has_row_grid = requires(const row_grid_params& p) {
  K::run_tile(p, 0u, 0u, 0u);
  { K::block_ol } -> std::convertible_to<int>;
};

/// A kernel with a direct launch over flat chunks (flat.cuh): a block per BLOCK_OL elements of dx.
template <class K>
concept has_flat_grid = requires(const pad_args& a, flat_grid& g, const flat_grid_params& p) {
  requires K::direct_flat;
  { K::plan_direct(a, g) } -> std::same_as<bool>;
  K::template run_direct<true>(p, 0u, 0u);
  K::template run_direct<false>(p, 0u, 0u);
};

}  // namespace padtune::detail
