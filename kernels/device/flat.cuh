#pragma once
// Flat copy for short rows: dx is one flat index space of W-byte aligned chunks, so a block is
// busy however short the rows are. Each chunk finds its first (row, i) with one multiply-shift
// division and walks the row counter from there: no hardware divide per element. Sources are
// gathered element by element; stores are W bytes wide. Writes every dx element, the fill included.
// flat (not flatvec) also has a direct launch where dx is W-aligned and the sizes fit 32 bits
// (plans.cuh: flat_grid): 32-bit parameters in one constant line, each element's row by a 32-bit
// multiply-high, no head or tail loop in block 0; inductor's layout for short rows.
#include "bits.cuh"
#include "divmod.cuh"
#include "pad_args.cuh"
#include "plans.cuh"
#include "shapes.cuh"

namespace padtune::detail {

/// The plan of flat and flatvec: dx as [head elements][chunks of W bytes, W-aligned][tail elements].
struct flat_params {
  pad_args a;
  fast_divmod row_len;     ///< L
  std::int64_t head = 0;   ///< elements before the first W-aligned dx address
  std::int64_t chunks = 0; ///< aligned chunks after them
  std::int64_t tail = 0;   ///< elements after the last chunk
  std::uint64_t num_blocks = 0;
  /// 8 or 4: every chunk's source lies a multiple of it from W-alignment (flatvec then reads it in
  /// aligned pieces, bits.cuh: load_source); 0: the shift varies, or is 0 everywhere.
  int piece = 0;
};

/// The widest piece (8 or 4 bytes, under W) that every chunk's source address is aligned to: the
/// source's distance from its W-aligned chunk of dx is base at row 0 and grows by drift a row.
PADTUNE_HD int source_piece(const pad_args& a, int elem, int w) {
  const std::uintptr_t base = std::uintptr_t(a.dy) - std::uintptr_t(a.dx) + std::uintptr_t(a.pad_left) * elem;
  const std::uintptr_t drift = std::uintptr_t(a.OL - a.L) * elem, m = base | drift;
  if (m % w == 0) return 0;
  if (w == 16 && m % 8 == 0) return 8;
  if (w >= 8 && m % 4 == 0) return 4;
  return 0;
}

/// block_chunks chunks per block; block 0 also copies the head and the tail.
PADTUNE_HD flat_params plan_flat(const pad_args& a, int elem, int w, int block_chunks) {
  flat_params p;
  p.a = a;
  const std::int64_t n = a.rows * a.L;
  if (n == 0) return p;
  p.row_len = fast_divmod(std::uint64_t(a.L));
  p.piece = source_piece(a, elem, w);
  const std::uintptr_t begin = std::uintptr_t(a.dx), end = begin + std::uintptr_t(n) * elem;
  const std::uintptr_t a_begin = (begin + w - 1) & ~std::uintptr_t(w - 1), a_end = end & ~std::uintptr_t(w - 1);
  if (a_begin < a_end) {
    p.head = std::int64_t(a_begin - begin) / elem;
    p.chunks = std::int64_t(a_end - a_begin) / w;
  } else {
    p.head = n;
  }
  p.tail = n - p.head - p.chunks * (w / elem);
  const std::uint64_t body_blocks = ceil_div(std::uint64_t(p.chunks), block_chunks);
  p.num_blocks = body_blocks ? body_blocks : 1;
  return p;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int W, bool WIDE_LOADS = false> struct flat_kernel;

/// flat's description (variants.cuh).
struct flat_variant {
  static constexpr const char* name = "flat";
  static constexpr const char* idea =
      "for short rows: dx as one flat space of aligned W-byte chunks, one multiply-shift division per chunk, gathered "
      "loads, wide stores";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = flat_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{64, 256, 16},   {256, 256, 16},  {512, 256, 16}, {1024, 256, 16},
                                       {2048, 256, 16}, {4096, 256, 16}, {1024, 256, 8}};
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool takes_width = true;
  static constexpr const char* rule = PADTUNE_CHUNKED_RULE;
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int width) {
    return chunked_shape(elem, block_ol, max_threads, width);
  }
  static PADTUNE_HD std::uint64_t logical_blocks(const pad_args& a, int elem, int block_ol, int width) {
    return plan_flat(a, elem, width, block_ol * elem / width).num_blocks;
  }
};

/// WIDE_LOADS: a chunk whose elements lie in one row and all have a source reads it with one or two
/// aligned W-byte loads realigned in registers, instead of element by element (the flatvec variant).
template <class T, int BLOCK_OL, int MAX_THREADS, int W, bool WIDE_LOADS>
struct flat_kernel {
  static constexpr launch_shape shape = flat_variant::shape(sizeof(T), BLOCK_OL, MAX_THREADS, W);
  static constexpr int elem = sizeof(T);
  static constexpr int access_width = W;
  static constexpr int chunk_elems = W / elem;
  static constexpr int block_chunks = BLOCK_OL * elem / W;
  static constexpr int threads = shape.threads;
  static constexpr int items = shape.items;
  static constexpr bool needs_zeroed_dx = flat_variant::needs_zeroed_dx;
  static constexpr bool valid = shape.valid;

  using params = flat_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_flat(a, elem, W, block_chunks); }

  /// flat launches its direct grid where plan_flat_grid takes the problem (launch.cuh); flatvec's
  /// wide loads need the 64-bit plan's bounds.
  static constexpr bool direct_flat = !WIDE_LOADS;
  static PADTUNE_HD bool plan_direct(const pad_args& a, flat_grid& g) {
    return plan_flat_grid(a, elem, W, block_chunks, g);
  }

  /// The direct launch: block `block`'s chunks, every load before any store. TAIL: the grid's
  /// last block runs past n, so each chunk tests its end; a chunk that n cuts goes element by element.
  template <bool TAIL>
  static PADTUNE_HD void run_direct(const flat_grid_params& p, std::uint32_t block, unsigned thread) {
    const std::uint32_t first = block * std::uint32_t(block_chunks) + thread;  // plan_flat_grid: fits
    vec<W> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::uint32_t e0 = (first + std::uint32_t(k * threads)) * chunk_elems;
      v[k] = zero_vec<W>();
      if (!TAIL || e0 + chunk_elems <= p.n) gather_direct<0>(p, v[k], e0);
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::uint32_t e0 = (first + std::uint32_t(k * threads)) * chunk_elems;
      if (!TAIL || e0 + chunk_elems <= p.n)
        store_vec<W>(p.dx + std::uint64_t(e0) * elem, v[k]);
      else
        for (std::uint32_t e = e0; e < p.n; ++e) store_element<elem>(p.dx + std::uint64_t(e) * elem, direct_element(p, e));
    }
  }

  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    const pad_args& a = p.a;
    if (block == 0) copy_ends(p, thread);
    // Every load of the thread's chunks first, then every store: a load from dy cannot move above
    // a store to dx (the compiler must assume they alias), so a load-store loop would keep one
    // chunk in flight per thread; this keeps `items`.
    byte* const body = a.dx + p.head * elem;
    const std::int64_t first = std::int64_t(block) * block_chunks + thread;
    vec<W> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k)
      if (first + std::int64_t(k) * threads < p.chunks) v[k] = load_chunk(p, first + std::int64_t(k) * threads);
#pragma unroll
    for (int k = 0; k < items; ++k)
      if (first + std::int64_t(k) * threads < p.chunks) store_vec<W>(body + (first + std::int64_t(k) * threads) * W, v[k]);
  }

  /// Block 0's share besides its chunks: the unaligned ends of dx, element by element.
  static PADTUNE_HD void copy_ends(const params& p, unsigned thread) {
    const std::int64_t tail_begin = p.head + p.chunks * chunk_elems;
    for (std::int64_t e = thread; e < p.head; e += threads) copy_flat_element(p, e);
    for (std::int64_t e = tail_begin + thread; e < tail_begin + p.tail; e += threads) copy_flat_element(p, e);
  }

  /// The W bytes of body chunk c: its source elements, the fill where they have none (staged.cuh's
  /// path for a block it cannot stage).
  static PADTUNE_HD vec<W> load_chunk(const params& p, std::int64_t c) {
    const pad_args& a = p.a;
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(p.head + c * chunk_elems), row, i);
    const std::int64_t src = std::int64_t(row) * a.OL + a.pad_left + std::int64_t(i);
    if constexpr (WIDE_LOADS) {
      if (std::int64_t(i) >= a.valid_begin && std::int64_t(i) + chunk_elems <= a.valid_end) {
        const byte* s = a.dy + src * elem;  // formed only once i is known to have a source
        if (aligned_loads_in_bounds<W>(a, std::uintptr_t(s), std::uintptr_t(s))) return load_source<W>(s, p.piece);
      }
    }
    vec<W> v = zero_vec<W>();
    gather<0>(a, dy_elements{a.dy}, v, std::int64_t(i), src);
    return v;
  }

  /// dy element src, read from global memory.
  struct dy_elements {
    const byte* dy;
    PADTUNE_HD bits_t<elem> operator()(std::int64_t src) const { return load_element<elem>(dy + src * elem); }
  };

  /// Element J of a chunk and those after it: dx position i of its row, whose source is dy element
  /// src, read by `source` (dy itself, or staged.cuh's copy of it).
  template <int J, class Source>
  static PADTUNE_HD void gather(const pad_args& a, const Source& source, vec<W>& v, std::int64_t i, std::int64_t src) {
    if constexpr (J < chunk_elems) {
      bits_t<elem> x = bits_t<elem>(a.fill);
      if (i >= a.valid_begin && i < a.valid_end) x = source(src);
      set_element<elem, J>(v, x);
      ++i, ++src;
      if (i == a.L) i = 0, src += a.OL - a.L;  // next row
      gather<J + 1>(a, source, v, i, src);
    }
  }

  /// dx element e of the direct launch: its source, or the fill where it has none.
  static PADTUNE_HD bits_t<elem> direct_element(const flat_grid_params& p, std::uint32_t e) {
    const std::uint32_t row = p.row_of.div(e), i = e - row * p.L;
    if (int(i) < p.valid_begin || int(i) >= p.valid_end) return flat_fill_element<elem>(p.fill);
    return load_element<elem>(reinterpret_cast<const byte*>(p.dy_src0 + (std::uint64_t(row) * p.OL + i) * elem));
  }

  /// Elements J.. of the chunk at dx element e0, each from its own row and column (a chunk may span rows).
  template <int J>
  static PADTUNE_HD void gather_direct(const flat_grid_params& p, vec<W>& v, std::uint32_t e0) {
    if constexpr (J < chunk_elems) {
      set_element<elem, J>(v, direct_element(p, e0 + J));
      gather_direct<J + 1>(p, v, e0);
    }
  }

 private:
  static PADTUNE_HD void copy_flat_element(const params& p, std::int64_t e) {
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(e), row, i);
    copy_element<elem>(p.a, std::int64_t(row), std::int64_t(i));
  }
};

}  // namespace padtune::detail
