#pragma once
// Row-tiled, element by element: one block per (row, tile of BLOCK_OL dx elements), each thread
// moving BLOCK_OL / threads elements at a stride of the block (a warp's accesses are consecutive),
// every load before any store. Within the tile an element is a 32-bit offset and two compares: no
// division, no realignment, no wide access. This is the Triton peer's kernel. Where the sizes fit
// 32 bits the launch is direct (row_grid: the block's index is its row and tile, the parameters
// one constant line); otherwise a grid-stride loop over a 64-bit plan, one division per block.
#include "bits.cuh"
#include "plans.cuh"
#include "shapes.cuh"

namespace padtune::detail {

template <class T, int BLOCK_OL, int MAX_THREADS, int W> struct rowelem_kernel;

/// rowelem's description (variants.cuh): the element rule with at most 16 elements a thread (they
/// wait in registers for the stores).
struct rowelem_variant {
  static constexpr const char* name = "rowelem";
  static constexpr const char* idea =
      "one block per (row, tile), element by element, every load before any store; a direct launch where the sizes fit "
      "32 bits";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = rowelem_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{64, 64, 0},    {256, 128, 0},  {512, 128, 0},  {1024, 128, 0},
                                       {1024, 256, 0}, {2048, 256, 0}, {4096, 256, 0}, {4096, 512, 0}};
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool takes_width = false;
  static constexpr const char* rule =
      "threads = min(BLOCK_OL, max_threads) must divide BLOCK_OL, at most 1024, with at most 16 elements each";
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int) {
    launch_shape s = element_shape(elem, block_ol, max_threads);
    s.valid = s.valid && s.items <= 16;
    return s;
  }
  static PADTUNE_HD std::uint64_t logical_blocks(const pad_args& a, int, int block_ol, int) {
    return plan_rowtile(a, block_ol).num_blocks;
  }
};

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct rowelem_kernel {
  static_assert(W == 0, "one element per access: the configurations give no access width");
  static constexpr launch_shape shape = rowelem_variant::shape(sizeof(T), BLOCK_OL, MAX_THREADS, W);
  static constexpr int elem = sizeof(T);
  static constexpr int block_ol = BLOCK_OL;
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int items = shape.items;  ///< elements per thread
  static constexpr bool needs_zeroed_dx = rowelem_variant::needs_zeroed_dx;
  static constexpr bool valid = shape.valid;

  using params = tiled_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_rowtile(a, BLOCK_OL); }

  /// The grid-stride launch: block `block` of the 64-bit plan.
  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    std::uint64_t row, tile;
    p.tiles.divmod(block, row, tile);
    const pad_args& a = p.a;
    const std::int64_t e0 = std::int64_t(tile) * BLOCK_OL;  // the tile's first dx element in its row
    byte* const dst = a.dx + (std::int64_t(row) * a.L + e0) * elem;
    // make_pad_args keeps -L < pad_left < OL where an element has a source: no overflow here.
    const std::uintptr_t src = std::uintptr_t(a.dy) + std::uintptr_t(std::int64_t(row) * a.OL + a.pad_left + e0) * elem;
    copy_tile(dst, src, in_tile(a.L - e0), in_tile(a.valid_begin - e0), in_tile(a.valid_end - e0), a.fill, thread);
  }

  /// The direct launch (row_grid): tile `tile` of row `row`, offsets within the row in 32 bits.
  static PADTUNE_HD void run_tile(const row_grid_params& p, std::uint32_t row, std::uint32_t tile, unsigned thread) {
    const int e0 = int(tile) * BLOCK_OL;  // plan_row_grid: L + BLOCK_OL fits an int
    byte* const dst = p.dx + (std::uint64_t(row) * p.L + unsigned(e0)) * elem;
    const std::uintptr_t src = p.dy_row0 + (std::uint64_t(row) * p.OL + unsigned(e0)) * elem;
    copy_tile(dst, src, in_tile(int(p.L) - e0), in_tile(p.valid_begin - e0), in_tile(p.valid_end - e0), p.fill, thread);
  }

 private:
  /// x relative to a tile, clamped to [0, BLOCK_OL].
  template <class I> static PADTUNE_HD int in_tile(I x) { return int(x < 0 ? 0 : (x > BLOCK_OL ? BLOCK_OL : x)); }

  /// The tile's elements [0, n) to dst, those in [lo, hi) from their source, the rest the fill. src
  /// is the address of the source of element 0, which may lie outside dy (a negative pad): a pointer
  /// is formed only for an element in [lo, hi), whose source is inside dy.
  static PADTUNE_HD void copy_tile(byte* dst, std::uintptr_t src, int n, int lo, int hi, std::uint64_t fill,
                                   unsigned thread) {
    bits_t<elem> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + int(thread);
      v[k] = bits_t<elem>(fill);
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
