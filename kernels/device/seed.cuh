#pragma once
// The seed's algorithm, kept faithful: one program per (row, output tile) with
// pid = (b*C + c) * num_ol_tiles + ol_tile, BLOCK_OL output positions per tile, and a masked store of
// dy into dx at the input offset. It writes only positions that have a source, so dx must be
// zeroed before launch.
#include "common.cuh"

namespace padtune::detail {

template <class T, int BLOCK_OL, int MAX_THREADS, int /*W: one element per access, like the seed*/>
struct seed_kernel {
  static constexpr int elem = sizeof(T);
  static constexpr int threads = BLOCK_OL < MAX_THREADS ? BLOCK_OL : MAX_THREADS;
  static constexpr int access_width = elem;
  static constexpr int per_thread = BLOCK_OL / threads;
  static constexpr bool needs_zeroed_dx = true;
  static constexpr bool valid = BLOCK_OL % threads == 0;

  struct params {
    pad_args a;
    fast_divmod tiles;  ///< num_ol_tiles
    std::uint64_t num_blocks = 0;
  };

  static params make_params(const pad_args& a) {
    params p;
    p.a = a;
    const std::uint64_t num_ol_tiles = ceil_div(a.OL, BLOCK_OL);
    p.tiles = fast_divmod(num_ol_tiles ? num_ol_tiles : 1);
    p.num_blocks = a.L == 0 ? 0 : std::uint64_t(a.rows) * num_ol_tiles;
    return p;
  }

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
