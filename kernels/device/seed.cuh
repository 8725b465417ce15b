#pragma once
// The seed's algorithm, kept faithful: one program per (row, output tile) with
// pid = (b*C + c) * num_ol_tiles + ol_tile, BLOCK_OL output positions per tile, and a masked store of
// dy into dx at the input offset. It writes only positions that have a source, so dx must be
// zeroed before launch.
#include "bits.cuh"
#include "plans.cuh"
#include "shapes.cuh"

namespace padtune::detail {

/// One block per (row, tile of BLOCK_OL dy positions); nothing to do when L is 0.
PADTUNE_HD tiled_params plan_seed(const pad_args& a, int block_ol) {
  tiled_params p;
  p.a = a;
  const std::uint64_t num_ol_tiles = ceil_div(a.OL, block_ol);
  p.tiles = fast_divmod(num_ol_tiles ? num_ol_tiles : 1);
  p.num_blocks = a.L == 0 ? 0 : std::uint64_t(a.rows) * num_ol_tiles;
  return p;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int W> struct seed_kernel;

/// The seed's description (variants.cuh).
struct seed_variant {
  static constexpr const char* name = "seed";
  static constexpr const char* idea =
      "faithful to the seed: one block per (row, output tile), a masked store of dy into dx; needs dx zeroed first";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = seed_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{64, 256, 0},   {128, 256, 0},  {256, 256, 0},  {512, 256, 0},
                                       {1024, 256, 0}, {2048, 256, 0}, {4096, 256, 0}, {8192, 256, 0}};
  static constexpr bool needs_zeroed_dx = true;  ///< it writes only the positions that have a source
  static constexpr bool takes_width = false;     ///< one element per access, like the seed
  static constexpr const char* rule = "threads = min(BLOCK_OL, max_threads) must divide BLOCK_OL, at most 1024";
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int) {
    return element_shape(elem, block_ol, max_threads);
  }
  static PADTUNE_HD std::uint64_t logical_blocks(const pad_args& a, int, int block_ol, int) {
    return plan_seed(a, block_ol).num_blocks;
  }
};

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct seed_kernel {
  static_assert(W == 0, "one element per access: the configurations give no access width");
  static constexpr launch_shape shape = seed_variant::shape(sizeof(T), BLOCK_OL, MAX_THREADS, W);
  static constexpr int elem = sizeof(T);
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int items = shape.items;  ///< elements per thread
  static constexpr bool needs_zeroed_dx = seed_variant::needs_zeroed_dx;
  static constexpr bool valid = shape.valid;

  using params = tiled_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_seed(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t pid, unsigned thread) {
    std::uint64_t row, ol_tile;
    p.tiles.divmod(pid, row, ol_tile);
    const pad_args& a = p.a;
    const std::int64_t tile_begin = std::int64_t(ol_tile) * BLOCK_OL;
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::int64_t o = tile_begin + k * threads + thread;  // position in the dy row
      const std::int64_t i = o - a.pad_left;                     // position in the dx row
      if (o < a.OL && i >= 0 && i < a.L)
        store_element<elem>(a.dx + (std::int64_t(row) * a.L + i) * elem,
                            load_element<elem>(a.dy + (std::int64_t(row) * a.OL + o) * elem));
    }
  }
};

}  // namespace padtune::detail
