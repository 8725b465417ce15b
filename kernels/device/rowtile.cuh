#pragma once
// Row-tiled copy: one block per (row, tile of BLOCK_OL dx elements). It reads only the part of the
// dy row that reaches dx and writes every dx element, the fill included, so no memset is needed.
//
// Stores are W-byte aligned chunks of dx. The matching source bytes sit at a shift s from a
// W-aligned dy address that is the same for the whole row, so each chunk loads the two aligned dy
// chunks around its source and realigns them in registers (no narrow fallback when
// pad_left*sizeof(T) is not a multiple of W). The few elements before the first and after the
// last aligned chunk of a tile are copied one by one.
#include "bits.cuh"
#include "plans.cuh"
#include "shapes.cuh"

namespace padtune::detail {

template <class T, int BLOCK_OL, int MAX_THREADS, int W> struct rowtile_kernel;

/// rowtile's description (variants.cuh).
struct rowtile_variant {
  static constexpr const char* name = "rowtile";
  static constexpr const char* idea =
      "one block per (row, tile of dx); W-byte aligned stores, the source realigned in registers with funnel shifts";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = rowtile_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{64, 256, 16},   {256, 256, 16},  {512, 256, 16},  {1024, 256, 16},
                                       {2048, 256, 16}, {4096, 256, 16}, {8192, 256, 16}, {8192, 512, 16},
                                       {2048, 256, 8},  {2048, 256, 4}};
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool takes_width = true;
  static constexpr const char* rule = PADTUNE_CHUNKED_RULE;
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int width) {
    return chunked_shape(elem, block_ol, max_threads, width);
  }
  static PADTUNE_HD std::uint64_t logical_blocks(const pad_args& a, int, int block_ol, int) {
    return plan_rowtile(a, block_ol).num_blocks;
  }
};

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct rowtile_kernel {
  static constexpr launch_shape shape = rowtile_variant::shape(sizeof(T), BLOCK_OL, MAX_THREADS, W);
  static constexpr int elem = sizeof(T);
  static constexpr int access_width = W;
  static constexpr int chunk_elems = W / elem;
  static constexpr int tile_chunks = BLOCK_OL * elem / W;
  static constexpr int threads = shape.threads;
  static constexpr int items = shape.items;  ///< chunks per thread
  static constexpr bool needs_zeroed_dx = rowtile_variant::needs_zeroed_dx;
  static constexpr bool valid = shape.valid;

  using params = tiled_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_rowtile(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    std::uint64_t urow, tile;
    p.tiles.divmod(block, urow, tile);
    const pad_args& a = p.a;
    const std::int64_t row = std::int64_t(urow);
    const std::int64_t e_begin = std::int64_t(tile) * BLOCK_OL;
    const std::int64_t e_end = e_begin + BLOCK_OL < a.L ? e_begin + BLOCK_OL : a.L;

    // Aligned chunks of the tile: dx elements [e_begin + head, e_begin + head + n*chunk_elems).
    const std::uintptr_t d_begin = std::uintptr_t(a.dx + (row * a.L + e_begin) * elem);
    const std::uintptr_t d_end = d_begin + std::uintptr_t(e_end - e_begin) * elem;
    const std::uintptr_t a_begin = (d_begin + W - 1) & ~std::uintptr_t(W - 1);
    const std::uintptr_t a_end = d_end & ~std::uintptr_t(W - 1);
    std::int64_t head = std::int64_t(e_end - e_begin), n = 0;
    if (a_begin < a_end) {
      head = std::int64_t(a_begin - d_begin) / elem;
      n = std::int64_t(a_end - a_begin) / W;
    }
    const std::int64_t body_end = e_begin + head + n * chunk_elems;
    for (std::int64_t e = e_begin + thread; e < e_begin + head; e += threads) copy_element<elem>(a, row, e);
    for (std::int64_t e = body_end + thread; e < e_end; e += threads) copy_element<elem>(a, row, e);
    if (n == 0) return;

    // Address of the first chunk's source byte; the distance to its destination is the same for the
    // row. An address, not a pointer: with a negative pad it lies before dy on dy's first row.
    const std::uintptr_t src_begin =
        std::uintptr_t(a.dy) + std::uintptr_t((row * a.OL + e_begin + head + a.pad_left) * elem);
    body(p, row, e_begin + head, n, src_begin, thread);
  }

 private:
  static PADTUNE_HD void body(const params& p, std::int64_t row, std::int64_t e0, std::int64_t n,
                              std::uintptr_t src_begin, unsigned thread) {
    const pad_args& a = p.a;
    byte* dst_begin = a.dx + (row * a.L + e0) * elem;
    const unsigned shift = unsigned(src_begin & (W - 1));
    // Chunks [c_lo, c_hi) have a source for every element. A negative pad leaves only the chunks at
    // a row's ends without, so those take the cold path and the rest keep every load in flight.
    std::int64_t c_lo = a.valid_begin > e0 ? (a.valid_begin - e0 + chunk_elems - 1) / chunk_elems : 0;
    std::int64_t c_hi = a.valid_end > e0 ? (a.valid_end - e0) / chunk_elems : 0;
    c_lo = c_lo < n ? c_lo : n;
    c_hi = c_hi < n ? c_hi : n;
    // A sourced chunk's aligned loads can pass an end of dy only where dy's first or last W bytes are
    // (its first and last rows): then only the range's first or last chunk, which goes cold instead.
    if (c_lo < c_hi && !aligned_loads_in_bounds<W>(a, src_begin + c_lo * W, src_begin + c_lo * W)) ++c_lo;
    if (c_lo < c_hi && !aligned_loads_in_bounds<W>(a, src_begin + (c_hi - 1) * W, src_begin + (c_hi - 1) * W)) --c_hi;
    c_hi = c_hi < c_lo ? c_lo : c_hi;
    if (c_lo < c_hi) {
      // Hot path: every load of the thread in flight before the first store.
      const std::uintptr_t aligned_src = src_begin - shift;
      vec<W> lo[items] = {}, hi[items] = {};
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const std::int64_t c = std::int64_t(k) * threads + thread;
        if (c >= c_lo && c < c_hi) {
          const byte* s = reinterpret_cast<const byte*>(aligned_src + c * W);  // inside dy: checked above
          lo[k] = load_vec<W>(s);
          if (shift) hi[k] = load_vec<W>(s + W);
        }
      }
#pragma unroll
      for (int k = 0; k < items; ++k) {
        const std::int64_t c = std::int64_t(k) * threads + thread;
        if (c >= c_lo && c < c_hi) store_vec<W>(dst_begin + c * W, shift ? realign(lo[k], hi[k], shift) : lo[k]);
      }
    }
    // The cold chunks after the hot path. Before it, 16-bit tiles of one chunk a thread (bo512-bo2048
    // w16) took 32 registers instead of 56 and ran 10-13% faster, but the tiles the tables pick
    // (bo4096 w16) ran 0.5-2% slower, P7 16-bit 2%, and 16-bit w8 20% slower: an A/B of both
    // orders on one H200 (docs/performance-notes.md v11).
    for (std::int64_t c = thread; c < c_lo; c += threads) cold_chunk(a, row, e0, c, src_begin, dst_begin);
    for (std::int64_t c = c_hi + thread; c < n; c += threads) cold_chunk(a, row, e0, c, src_begin, dst_begin);
  }

  /// A chunk outside the hot path's range: all fill, all sourced (near an end of dy), or mixed.
  static PADTUNE_HD void cold_chunk(const pad_args& a, std::int64_t row, std::int64_t e0, std::int64_t c,
                                    std::uintptr_t src_begin, byte* dst_begin) {
    const std::int64_t e = e0 + c * chunk_elems;
    const std::uintptr_t s = src_begin + c * W;
    if (e + chunk_elems <= a.valid_begin || e >= a.valid_end) {
      store_vec<W>(dst_begin + c * W, fill_vec<W, elem>(a.fill));
    } else if (e >= a.valid_begin && e + chunk_elems <= a.valid_end && aligned_loads_in_bounds<W>(a, s, s)) {
      store_vec<W>(dst_begin + c * W, load_unaligned<W>(reinterpret_cast<const byte*>(s)));
    } else {
      for (int j = 0; j < chunk_elems; ++j) copy_element<elem>(a, row, e + j);
    }
  }
};

}  // namespace padtune::detail
