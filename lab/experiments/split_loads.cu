// An experiment for lab/bin/same-timer --extra (not part of padtune's library): 16-bit rows whose
// source sits at a shift of 4 or 8 bytes from 16-byte alignment (P2 f16, pads 4 and 4: 8 bytes). rowtile
// and flatvec realign a 16-byte chunk from two aligned 16-byte loads (twice the load instructions and
// registers of a copy); inductor's kernel for P2 16-bit, which ran at 1.003 of the copy against rowtile's
// 1.028-1.034, can read 8-byte pieces there (its source is 8-byte aligned; its code was not dumped). Here
// the same kernels read a chunk whose source is 8-byte (4-byte) aligned as two 8-byte (four 4-byte) aligned
// loads: no realignment, no byte loaded twice; other shifts realign as before. Each chunk picks its loads
// from its own shift: the branch is uniform only where pad_left + pad_right keeps the shift from row to row
// (P2; not P6, whose rows of 8 move it 10 bytes a row and whose warps then diverge: 1.29 -> 1.41). Elements
// move as bits, so the f16 kernels serve bf16 too. flat_realign is flatvec as it was before (realigned
// everywhere). Outcome: docs/performance-notes.md v15 (the library's flatvec now takes the piece once
// per problem: kernels/device/flat.cuh, source_piece).
//
//   python3 lab/bin/same-timer 32,256,8192,4,4 f16 --inductor --extra lab/experiments/split_loads.cu \
//       constant_pad1d_backward__f16__rowtile__bo8192__t512__w16 constant_pad1d_backward__f16__flatvec__bo1024__t128__w16
#include <cuda_fp16.h>

namespace {

namespace pd = padtune::detail;

/// W source bytes at any element-aligned address: the widest aligned pieces its shift allows
/// (bits.cuh: load_pieces), realigned from two W-byte loads only at a shift of 2 (mod 4).
template <int W>
__device__ __forceinline__ pd::vec<W> load_split(const pd::byte* s) {
  const unsigned shift = unsigned(std::uintptr_t(s) & (W - 1));
  if (shift == 0) return pd::load_vec<W>(s);
  if constexpr (W == 16)
    if (shift % 8 == 0) return pd::load_pieces<16, 8>(s);
  if constexpr (W >= 8)
    if (shift % 4 == 0) return pd::load_pieces<W, 4>(s);
  return pd::load_unaligned<W>(s);
}

/// flatvec with split loads (SPLIT false: realigned everywhere, the library's flatvec before v15).
template <int BLOCK_OL, int MAX_THREADS, int W, bool SPLIT = true>
struct flat_split : pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false> {
  using base = pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false>;
  using typename base::params;
  using base::chunk_elems;
  using base::elem;
  using base::items;
  using base::threads;

  static __device__ void run(const params& p, std::uint64_t block, unsigned thread) {
    const pd::pad_args& a = p.a;
    if (block == 0) base::copy_ends(p, thread);
    pd::byte* const body = a.dx + p.head * elem;
    const std::int64_t first = std::int64_t(block) * base::block_chunks + thread;
    pd::vec<W> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k)
      if (first + std::int64_t(k) * threads < p.chunks) v[k] = load_chunk(p, first + std::int64_t(k) * threads);
#pragma unroll
    for (int k = 0; k < items; ++k)
      if (first + std::int64_t(k) * threads < p.chunks) pd::store_vec<W>(body + (first + std::int64_t(k) * threads) * W, v[k]);
  }

  static __device__ pd::vec<W> load_chunk(const params& p, std::int64_t c) {
    const pd::pad_args& a = p.a;
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(p.head + c * chunk_elems), row, i);
    const std::int64_t src = std::int64_t(row) * a.OL + a.pad_left + std::int64_t(i);
    if (std::int64_t(i) >= a.valid_begin && std::int64_t(i) + chunk_elems <= a.valid_end) {
      const pd::byte* s = a.dy + src * elem;
      if (pd::aligned_loads_in_bounds<W>(a, std::uintptr_t(s), std::uintptr_t(s))) {
        if constexpr (SPLIT) return load_split<W>(s);
        return pd::load_unaligned<W>(s);
      }
    }
    pd::vec<W> v = pd::zero_vec<W>();
    base::template gather<0>(a, typename base::dy_elements{a.dy}, v, std::int64_t(i), src);
    return v;
  }
};

/// rowtile with split loads: the hot path picks its pieces once per tile (the shift is the row's).
template <int BLOCK_OL, int MAX_THREADS, int W>
struct row_split : pd::rowtile_kernel<__half, BLOCK_OL, MAX_THREADS, W> {
  using base = pd::rowtile_kernel<__half, BLOCK_OL, MAX_THREADS, W>;
  using typename base::params;
  using base::chunk_elems;
  using base::elem;
  using base::items;
  using base::threads;

  static __device__ void run(const params& p, std::uint64_t block, unsigned thread) {
    std::uint64_t urow, tile;
    p.tiles.divmod(block, urow, tile);
    const pd::pad_args& a = p.a;
    const std::int64_t row = std::int64_t(urow);
    const std::int64_t e_begin = std::int64_t(tile) * BLOCK_OL;
    const std::int64_t e_end = e_begin + BLOCK_OL < a.L ? e_begin + BLOCK_OL : a.L;
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
    for (std::int64_t e = e_begin + thread; e < e_begin + head; e += threads) pd::copy_element<elem>(a, row, e);
    for (std::int64_t e = body_end + thread; e < e_end; e += threads) pd::copy_element<elem>(a, row, e);
    if (n == 0) return;
    const std::int64_t e0 = e_begin + head;
    const std::uintptr_t src_begin = std::uintptr_t(a.dy) + std::uintptr_t((row * a.OL + e0 + a.pad_left) * elem);
    pd::byte* dst_begin = a.dx + (row * a.L + e0) * elem;
    const unsigned shift = unsigned(src_begin & (W - 1));
    std::int64_t c_lo = a.valid_begin > e0 ? (a.valid_begin - e0 + chunk_elems - 1) / chunk_elems : 0;
    std::int64_t c_hi = a.valid_end > e0 ? (a.valid_end - e0) / chunk_elems : 0;
    c_lo = c_lo < n ? c_lo : n;
    c_hi = c_hi < n ? c_hi : n;
    if (c_lo < c_hi && !pd::aligned_loads_in_bounds<W>(a, src_begin + c_lo * W, src_begin + c_lo * W)) ++c_lo;
    if (c_lo < c_hi && !pd::aligned_loads_in_bounds<W>(a, src_begin + (c_hi - 1) * W, src_begin + (c_hi - 1) * W)) --c_hi;
    c_hi = c_hi < c_lo ? c_lo : c_hi;
    if (c_lo < c_hi) {
      if (shift == 0) {
        hot<W>(src_begin, dst_begin, c_lo, c_hi, thread);
      } else if (W == 16 && shift % 8 == 0) {
        hot<W == 16 ? 8 : W>(src_begin, dst_begin, c_lo, c_hi, thread);
      } else if (W >= 8 && shift % 4 == 0) {
        hot<4>(src_begin, dst_begin, c_lo, c_hi, thread);
      } else {
        realigned(src_begin - shift, shift, dst_begin, c_lo, c_hi, thread);
      }
    }
    for (std::int64_t c = thread; c < c_lo; c += threads) cold(a, row, e0, c, src_begin, dst_begin);
    for (std::int64_t c = c_hi + thread; c < n; c += threads) cold(a, row, e0, c, src_begin, dst_begin);
  }

  template <int V>
  static __device__ void hot(std::uintptr_t src, pd::byte* dst, std::int64_t c_lo, std::int64_t c_hi, unsigned thread) {
    pd::vec<W> v[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::int64_t c = std::int64_t(k) * threads + thread;
      if (c >= c_lo && c < c_hi) {
        const pd::byte* s = reinterpret_cast<const pd::byte*>(src + c * W);
        if constexpr (V == W) v[k] = pd::load_vec<W>(s);  // aligned: one load
        else v[k] = pd::load_pieces<W, V>(s);
      }
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::int64_t c = std::int64_t(k) * threads + thread;
      if (c >= c_lo && c < c_hi) pd::store_vec<W>(dst + c * W, v[k]);
    }
  }

  static __device__ void realigned(std::uintptr_t aligned_src, unsigned shift, pd::byte* dst, std::int64_t c_lo,
                                   std::int64_t c_hi, unsigned thread) {
    pd::vec<W> lo[items] = {}, hi[items] = {};
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::int64_t c = std::int64_t(k) * threads + thread;
      if (c >= c_lo && c < c_hi) {
        const pd::byte* s = reinterpret_cast<const pd::byte*>(aligned_src + c * W);
        lo[k] = pd::load_vec<W>(s);
        hi[k] = pd::load_vec<W>(s + W);
      }
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const std::int64_t c = std::int64_t(k) * threads + thread;
      if (c >= c_lo && c < c_hi) pd::store_vec<W>(dst + c * W, pd::realign(lo[k], hi[k], shift));
    }
  }

  static __device__ void cold(const pd::pad_args& a, std::int64_t row, std::int64_t e0, std::int64_t c,
                              std::uintptr_t src_begin, pd::byte* dst_begin) {
    const std::int64_t e = e0 + c * chunk_elems;
    const std::uintptr_t s = src_begin + c * W;
    if (e + chunk_elems <= a.valid_begin || e >= a.valid_end) {
      pd::store_vec<W>(dst_begin + c * W, pd::zero_vec<W>());
    } else if (e >= a.valid_begin && e + chunk_elems <= a.valid_end && pd::aligned_loads_in_bounds<W>(a, s, s)) {
      pd::store_vec<W>(dst_begin + c * W, load_split<W>(reinterpret_cast<const pd::byte*>(s)));
    } else {
      for (int j = 0; j < chunk_elems; ++j) pd::copy_element<elem>(a, row, e + j);
    }
  }
};

template <class K>
int launch(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  padtune::problem p;
  p.dy = dy, p.dx = dx, p.B = 1, p.C = rows, p.L = L, p.pad_left = pl, p.pad_right = pr;
  p.type = padtune::dtype::f16;  // the bytes per element: bf16 moves the same
  return int(pd::launch_cuda<K>(p, static_cast<cudaStream_t>(stream)));
}

}  // namespace

#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_flat_split_bo1024_t128(ARGS) { return launch<flat_split<1024, 256, 16>>(PASS); }
extern "C" int same_timer_flat_split_bo2048_t256(ARGS) { return launch<flat_split<2048, 256, 16>>(PASS); }
extern "C" int same_timer_flat_split_bo4096_t256(ARGS) { return launch<flat_split<4096, 256, 16>>(PASS); }
extern "C" int same_timer_flat_split_bo8192_t256(ARGS) { return launch<flat_split<8192, 256, 16>>(PASS); }
extern "C" int same_timer_flat_realign_bo1024_t128(ARGS) { return launch<flat_split<1024, 256, 16, false>>(PASS); }
extern "C" int same_timer_flat_realign_bo2048_t256(ARGS) { return launch<flat_split<2048, 256, 16, false>>(PASS); }
extern "C" int same_timer_flat_realign_bo4096_t256(ARGS) { return launch<flat_split<4096, 256, 16, false>>(PASS); }
extern "C" int same_timer_row_split_bo2048_t256(ARGS) { return launch<row_split<2048, 256, 16>>(PASS); }
extern "C" int same_timer_row_split_bo4096_t256(ARGS) { return launch<row_split<4096, 256, 16>>(PASS); }
extern "C" int same_timer_row_split_bo8192_t512(ARGS) { return launch<row_split<8192, 512, 16>>(PASS); }
extern "C" int same_timer_row_split_bo8192_t256(ARGS) { return launch<row_split<8192, 256, 16>>(PASS); }
