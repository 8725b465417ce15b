#pragma once
// flat staged through shared memory: a block's chunks of dx have their sources in one contiguous span
// of dy (pads included), which the block first copies into shared memory with 16-byte aligned
// asynchronous copies (cp.async: no register holds the data in flight, so a block keeps its whole
// tile in flight), then realigns from there into W-byte stores. For short rows of 16-bit types,
// where flatvec holds two loads per chunk in registers until it realigns them. A block whose span
// does not fit its stage (pads much longer than the rows) reads dy directly, as flatvec does.
//
// Two phases with a barrier between them: the CUDA entry runs them with __syncthreads, the host
// emulation (launch.cuh) runs phase 0 for every thread of a block, then phase 1, on a host stage.
#include "flat.cuh"

namespace padtune::detail {

/// Where the block's sources lie: dy bytes [begin, end), staged at offset (address - base).
struct stage_span {
  std::uintptr_t base = 0, begin = 0, end = 0;
  bool staged = false;  ///< false: nothing to stage, or it does not fit; phase 1 reads dy directly
};

/// An element or a 32-bit word out of the stage (shared memory on the device: never through __ldg).
template <int S>
PADTUNE_HD bits_t<S> stage_element(const byte* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const bits_t<S>*>(p);
#else
  bits_t<S> v;
  std::memcpy(&v, p, S);
  return v;
#endif
}

/// Copies 16 bytes from global to shared memory without a register in between where the device
/// has cp.async (sm_80 and later); both addresses are 16-byte aligned.
PADTUNE_HD void stage_copy_16(byte* to, const byte* from) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(from) : "memory");
#else
  store_vec<16>(to, load_vec<16>(from));
#endif
}

/// Waits for this thread's cp.async copies (the barrier after it makes them the block's).
PADTUNE_HD void stage_copies_done() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

/// A tile's stage: room for sources up to 1.25 times the tile (pads up to a quarter of the rows), the
/// alignment of both ends and the word read past a realigned chunk's end. It is static shared
/// memory, so at most 48 KB. A smaller stage leaves room for more blocks per SM, and so more bytes in
/// flight: on the H200, 16-bit P5 took 1.27x the copy with 64 KB of stages in flight per SM, 1.10x
/// with 96 KB (docs/performance-notes.md v7).
__host__ __device__ constexpr long long stage_bytes_of(int elem, int block_ol) {
  return 5LL * block_ol * elem / 4 + 64;
}
inline constexpr long long max_stage_bytes = 48 * 1024;

template <class T, int BLOCK_OL, int MAX_THREADS, int W> struct staged_kernel;

/// staged's description (variants.cuh): flat's plan and rule, with a stage that fits static shared
/// memory, so the larger tiles exist for the narrower dtypes only; large tiles on few threads keep the
/// most bytes in flight per SM.
struct staged_variant : flat_variant {
  static constexpr const char* name = "staged";
  static constexpr const char* idea =
      "flat, but a block first copies the span of dy its chunks read into shared memory with cp.async, then realigns "
      "each chunk from there";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = staged_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{256, 64, 16},   {1024, 128, 16}, {2048, 128, 16}, {4096, 128, 16},
                                       {4096, 256, 16}, {8192, 128, 16}, {8192, 256, 16}, {16384, 256, 16}};
  static constexpr const char* rule =
      PADTUNE_CHUNKED_RULE "; the stage, 1.25 * BLOCK_OL * element size + 64 bytes, at most 48 KB";
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int width) {
    launch_shape s = chunked_shape(elem, block_ol, max_threads, width);
    s.valid = s.valid && stage_bytes_of(elem, block_ol) <= max_stage_bytes;
    return s;
  }
};

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct staged_kernel : private flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true> {
 private:
  using direct = flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true>;  // the plan, the ends, the path without a stage

 public:
  using direct::access_width;
  using direct::block_chunks;
  using direct::chunk_elems;
  using direct::elem;
  using direct::items;
  using direct::make_params;
  using direct::needs_zeroed_dx;
  using direct::shape;
  using direct::threads;
  using params = flat_params;

  static constexpr long long stage_bytes = stage_bytes_of(elem, BLOCK_OL);
  static constexpr bool valid = direct::valid && stage_bytes <= max_stage_bytes;

  struct alignas(16) stage {
    byte bytes[stage_bytes];
  };

  static constexpr int phases = 2;

#if defined(__CUDACC__)
  static __device__ __forceinline__ void run(const params& p, std::uint64_t block, unsigned thread) {
    __shared__ stage s;
    run_phase(p, block, thread, 0, s);
    __syncthreads();
    run_phase(p, block, thread, 1, s);
    __syncthreads();  // the next logical block of the grid-stride loop writes the stage again
  }
#endif

  static PADTUNE_HD void run_phase(const params& p, std::uint64_t block, unsigned thread, int phase, stage& s) {
    const std::int64_t c0 = std::int64_t(block) * block_chunks;
    const std::int64_t c1 = c0 + block_chunks < p.chunks ? c0 + block_chunks : p.chunks;
    const stage_span span = span_of(p, c0, c1);
    if (phase == 0) {
      if (span.staged) fill(p.a, span, thread, s);
      return;
    }
    if (block == 0) direct::copy_ends(p, thread);
    byte* const body = p.a.dx + p.head * elem;
    for (std::int64_t c = c0 + thread; c < c1; c += threads)
      store_vec<W>(body + c * W, span.staged ? staged_chunk(p, span, s, c) : direct::load_chunk(p, c));
  }

 private:
  /// The dy bytes that the chunks [c0, c1) read: from the first source of the first chunk's row at
  /// or after its first element, to the last source of the last chunk's row at or before its last
  /// element (every element with a source lies in its own row of dy, so these bound them all).
  static PADTUNE_HD stage_span span_of(const params& p, std::int64_t c0, std::int64_t c1) {
    stage_span sp;
    if (c1 <= c0) return sp;
    const pad_args& a = p.a;
    std::uint64_t row0, i0, row1, i1;
    p.row_len.divmod(std::uint64_t(p.head + c0 * chunk_elems), row0, i0);
    p.row_len.divmod(std::uint64_t(p.head + c1 * chunk_elems - 1), row1, i1);
    auto clamp_row = [&](std::int64_t x) { return x < 0 ? 0 : (x > a.OL ? a.OL : x); };
    const std::int64_t first = std::int64_t(row0) * a.OL + clamp_row(a.pad_left + std::int64_t(i0));
    const std::int64_t last = std::int64_t(row1) * a.OL + clamp_row(a.pad_left + std::int64_t(i1) + 1);
    if (last <= first) return sp;  // no element has a source
    sp.begin = std::uintptr_t(a.dy) + std::uintptr_t(first) * elem;
    sp.end = std::uintptr_t(a.dy) + std::uintptr_t(last) * elem;
    sp.base = sp.begin & ~std::uintptr_t(15);
    sp.staged = ((sp.end + 15) & ~std::uintptr_t(15)) - sp.base + 16 <= std::uintptr_t(stage_bytes);
    return sp;
  }

  /// Phase 0: the span into the stage, 16-byte aligned copies inside it and bytes at its two ends
  /// (never a byte outside dy).
  static PADTUNE_HD void fill(const pad_args& a, const stage_span& sp, unsigned thread, stage& s) {
    const std::uintptr_t a0 = (sp.begin + 15) & ~std::uintptr_t(15), a1 = sp.end & ~std::uintptr_t(15);
    const byte* const dy = a.dy;
    const std::uintptr_t dy_address = std::uintptr_t(dy);  // x is the address of byte dy[x - dy_address]
    // Bytes [from, to) of the span, one at a time.
    auto copy_bytes = [&](std::uintptr_t from, std::uintptr_t to) {
      for (std::uintptr_t x = from; x < to; ++x) s.bytes[x - sp.base] = dy[x - dy_address];
    };
    if (a0 < a1) {
      for (std::uintptr_t x = a0 + std::uintptr_t(thread) * 16; x < a1; x += std::uintptr_t(threads) * 16)
        stage_copy_16(s.bytes + (x - sp.base), dy + (x - dy_address));
      if (thread == 0) copy_bytes(sp.begin, a0);
      if (thread == unsigned(threads) - 1) copy_bytes(a1, sp.end);
    } else if (thread == 0) {  // a span with no whole 16-byte line in it
      copy_bytes(sp.begin, sp.end);
    }
    stage_copies_done();
  }

  /// Phase 1: chunk c of the body from the stage. A chunk inside one row with every element sourced
  /// is W contiguous staged bytes, read as 32-bit words and funnel-shifted; others element by element.
  static PADTUNE_HD vec<W> staged_chunk(const params& p, const stage_span& sp, const stage& s, std::int64_t c) {
    const pad_args& a = p.a;
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(p.head + c * chunk_elems), row, i);
    std::int64_t src = std::int64_t(row) * a.OL + a.pad_left + std::int64_t(i);
    const stage_elements staged{s.bytes, std::uintptr_t(a.dy) - sp.base};
    vec<W> v = zero_vec<W>();
    if (std::int64_t(i) >= a.valid_begin && std::int64_t(i) + chunk_elems <= a.valid_end) {
      const std::uintptr_t o = staged.offset(src);
      const byte* w = s.bytes + (o & ~std::uintptr_t(3));
      const unsigned shift = unsigned(o & 3) * 8;
      std::uint32_t next = stage_element<4>(w);
#pragma unroll
      for (int j = 0; j < vec<W>::words; ++j) {
        const std::uint32_t cur = next;
        // The word after the chunk's last is read only when the chunk straddles it.
        if (j + 1 < vec<W>::words || shift) next = stage_element<4>(w + 4 * (j + 1));
        v.w[j] = funnel_shift_right(cur, next, shift);
      }
      return v;
    }
    direct::template gather<0>(a, staged, v, std::int64_t(i), src);
    return v;
  }

  /// dy element src, read from its copy in the stage; at is the stage offset of dy element 0 (modulo
  /// 2^64: dy may lie below the stage's base), added to the offset before the pointer is formed.
  struct stage_elements {
    const byte* stage;
    std::uintptr_t at;
    /// The stage offset of dy element src's first byte.
    PADTUNE_HD std::uintptr_t offset(std::int64_t src) const { return at + std::uintptr_t(src) * elem; }
    PADTUNE_HD bits_t<elem> operator()(std::int64_t src) const { return stage_element<elem>(stage + offset(src)); }
  };
};

}  // namespace padtune::detail
