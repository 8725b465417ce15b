#pragma once
// The seed's algorithm, kept faithful: one program per (row, output tile) with
// pid = (b*C + c) * num_ol_tiles + ol_tile, BLOCK_OL output positions per tile, and a masked store of
// dy into dx at the input offset. It writes only positions that have a source, so dx must be
// zeroed before launch.
#include "common.cuh"

namespace padtune::detail {

/// threads = min(BLOCK_OL, MAX_THREADS), each moving BLOCK_OL / threads elements one at a time.
__host__ __device__ constexpr launch_shape seed_shape(int elem, int block_ol, int max_threads) {
  launch_shape s;
  if (block_ol < 1 || max_threads < 1) return s;
  s.threads = block_ol < max_threads ? block_ol : max_threads;
  s.access_width = elem;
  s.items = block_ol / s.threads;
  s.valid = block_ol % s.threads == 0 && s.threads <= 1024;
  return s;
}

/// One block per (row, tile of BLOCK_OL dy positions); nothing to do when L is 0.
PADTUNE_HD tiled_params plan_seed(const pad_args& a, int block_ol) {
  tiled_params p;
  p.a = a;
  const std::uint64_t num_ol_tiles = ceil_div(a.OL, block_ol);
  p.tiles = fast_divmod(num_ol_tiles ? num_ol_tiles : 1);
  p.num_blocks = a.L == 0 ? 0 : std::uint64_t(a.rows) * num_ol_tiles;
  return p;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int /*W: one element per access, like the seed*/>
struct seed_kernel {
  static constexpr launch_shape shape = seed_shape(sizeof(T), BLOCK_OL, MAX_THREADS);
  static constexpr int elem = sizeof(T);
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int per_thread = shape.items;
  static constexpr bool needs_zeroed_dx = true;
  static constexpr bool valid = shape.valid;

  using params = tiled_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_seed(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t pid, unsigned thread) {
    std::uint64_t row, ol_tile;
    p.tiles.divmod(pid, row, ol_tile);
    const pad_args& a = p.a;
    const std::int64_t tile_begin = std::int64_t(ol_tile) * BLOCK_OL;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) {
      const std::int64_t o = tile_begin + k * threads + thread;  // position in the dy row
      const std::int64_t i = o - a.pad_left;                     // position in the dx row
      if (o < a.OL && i >= 0 && i < a.L)
        store_element<elem>(a.dx + (std::int64_t(row) * a.L + i) * elem,
                            load_element<elem>(a.dy + (std::int64_t(row) * a.OL + o) * elem));
    }
  }
};

}  // namespace padtune::detail
