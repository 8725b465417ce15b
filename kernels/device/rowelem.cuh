#pragma once
// Row-tiled, element by element: one block per (row, tile of BLOCK_OL dx elements), each thread
// moving BLOCK_OL / threads elements at a stride of the block (a warp's accesses are consecutive),
// every load before any store. The row and tile come from one division per block; within the tile
// an element is a 32-bit offset and two compares: no division, no realignment, no wide access.
// This is what the Triton peer runs; on latency-bound problems of about a million elements it beat
// the chunked variants in the dirty L2 the timings see (bench/NOTES.md v12).
#include "rowtile.cuh"
#include "seed.cuh"

namespace padtune::detail {

/// The seed's launch shape with at most 16 elements a thread (they wait in registers for the stores).
__host__ __device__ constexpr launch_shape rowelem_shape(int elem, int block_ol, int max_threads) {
  launch_shape s = seed_shape(elem, block_ol, max_threads);
  s.valid = s.valid && s.items <= 16;
  return s;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int /*W: one element per access*/>
struct rowelem_kernel {
  static constexpr launch_shape shape = rowelem_shape(sizeof(T), BLOCK_OL, MAX_THREADS);
  static constexpr int elem = sizeof(T);
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int items = shape.items;  ///< elements per thread
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool valid = shape.valid;

  using params = tiled_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_rowtile(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    std::uint64_t row, tile;
    p.tiles.divmod(block, row, tile);
    const pad_args& a = p.a;
    const std::int64_t e0 = std::int64_t(tile) * BLOCK_OL;  // the tile's first dx element in its row
    // Tile-relative bounds in [0, BLOCK_OL]: elements [0, n) exist, [lo, hi) have a source.
    auto in_tile = [](std::int64_t x) { return int(x < 0 ? 0 : (x > BLOCK_OL ? BLOCK_OL : x)); };
    const int n = in_tile(a.L - e0), lo = in_tile(a.valid_begin - e0), hi = in_tile(a.valid_end - e0);
    byte* const dst = a.dx + (std::int64_t(row) * a.L + e0) * elem;
    // dy element of tile offset 0, as an address: with a negative pad it can lie before dy, so a
    // pointer is formed only for an offset in [lo, hi), whose source is inside dy.
    const std::uintptr_t src = std::uintptr_t(a.dy) + std::uintptr_t(std::int64_t(row) * a.OL + a.pad_left + e0) * elem;
    bits_t<elem> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + int(thread);
      v[k] = 0;
      if (j >= lo && j < hi) v[k] = load_element<elem>(reinterpret_cast<const byte*>(src + std::uintptr_t(j) * elem));
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + int(thread);
      if (j < n) store_element<elem>(dst + std::int64_t(j) * elem, v[k]);
    }
  }
};

}  // namespace padtune::detail
