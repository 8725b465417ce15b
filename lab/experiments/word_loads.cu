// An experiment for lab/bin/same-timer --extra (not part of padtune's library): 16-bit P5
// (short rows at every 2-byte shift) with 4-byte loads. flatvec realigns a 16-byte chunk from two
// aligned 16-byte loads (8 registers held per chunk, a chain of selects for the word shift); f32
// flat gathers 4-byte elements and reaches 1.02-1.04 of the copy on P5 where 16-bit flatvec and
// staged take 1.06-1.09. Here a 16-bit chunk of W bytes is read as W/4 + 1 aligned 4-byte words
// (W/4 where its source is 4-byte aligned) and funnel-shifted by 0 or 16 bits: f32 flat's loads
// plus one, no select chain. Elements move as bits, so the f16 kernels serve bf16 too.
//
//   python3 lab/bin/same-timer 64,4096,64,2,1 f16 --extra lab/experiments/word_loads.cu \
//       constant_pad1d_backward__f16__flatvec__bo1024__t128__w16 constant_pad1d_backward__f16__staged__bo8192__t128__w16
#include <cuda_fp16.h>

namespace {

namespace pd = padtune::detail;

/// HINT: 0 plain __ldg; 1 ld.global.nc.L2::256B (a 256-byte L2 prefetch per load: DRAM fetched in
/// larger pieces); 2 the same and streaming stores (st.global.cs).
template <int HINT>
__device__ __forceinline__ unsigned load_word(const unsigned* p) {
  if constexpr (HINT == 0) {
    return __ldg(p);
  } else {
    unsigned v;
    asm volatile("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
  }
}

template <int BLOCK_OL, int MAX_THREADS, int W, int HINT = 0>
struct word_loads : pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false> {
  using base = pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false>;
  using typename base::params;
  using base::chunk_elems;
  using base::elem;
  using base::items;
  using base::threads;
  static constexpr int words = W / 4;

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
      if (first + std::int64_t(k) * threads < p.chunks) store(body + (first + std::int64_t(k) * threads) * W, v[k]);
  }

  static __device__ void store(pd::byte* d, const pd::vec<W>& v) {
    if constexpr (HINT == 2 && W == 16) {
      __stcs(reinterpret_cast<uint4*>(d), make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]));
    } else {
      pd::store_vec<W>(d, v);
    }
  }

  static __device__ pd::vec<W> load_chunk(const params& p, std::int64_t c) {
    const pd::pad_args& a = p.a;
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(p.head + c * chunk_elems), row, i);
    const std::int64_t src = std::int64_t(row) * a.OL + a.pad_left + std::int64_t(i);
    if (std::int64_t(i) >= a.valid_begin && std::int64_t(i) + chunk_elems <= a.valid_end) {
      const std::uintptr_t s = std::uintptr_t(a.dy) + std::uintptr_t(src) * elem;
      const std::uintptr_t w0 = s & ~std::uintptr_t(3);
      const unsigned shift = unsigned(s & 3) * 8;
      if (w0 >= std::uintptr_t(a.dy) && w0 + W + (shift ? 4 : 0) <= std::uintptr_t(a.dy_end)) {
        const auto* w = reinterpret_cast<const unsigned*>(w0);
        unsigned x[words + 1];
#pragma unroll
        for (int j = 0; j < words; ++j) x[j] = load_word<HINT>(w + j);
        x[words] = shift ? load_word<HINT>(w + words) : 0u;
        pd::vec<W> v;
#pragma unroll
        for (int j = 0; j < words; ++j) v.w[j] = __funnelshift_r(x[j], x[j + 1], shift);
        return v;
      }
    }
    pd::vec<W> v = pd::zero_vec<W>();
    base::template gather<0>(a, typename base::dy_elements{a.dy}, v, std::int64_t(i), src);
    return v;
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
extern "C" int same_timer_words_bo512_t64(ARGS) { return launch<word_loads<512, 64, 16>>(PASS); }
extern "C" int same_timer_words_bo1024_t128(ARGS) { return launch<word_loads<1024, 128, 16>>(PASS); }
extern "C" int same_timer_words_bo2048_t256(ARGS) { return launch<word_loads<2048, 256, 16>>(PASS); }
extern "C" int same_timer_words_bo2048_t128(ARGS) { return launch<word_loads<2048, 128, 16>>(PASS); }
extern "C" int same_timer_words_bo4096_t256(ARGS) { return launch<word_loads<4096, 256, 16>>(PASS); }
extern "C" int same_timer_words_w8_bo1024_t256(ARGS) { return launch<word_loads<1024, 256, 8>>(PASS); }
extern "C" int same_timer_words_bo1024_t128_l2_256(ARGS) { return launch<word_loads<1024, 128, 16, 1>>(PASS); }
extern "C" int same_timer_words_bo1024_t128_l2_256_cs(ARGS) { return launch<word_loads<1024, 128, 16, 2>>(PASS); }
extern "C" int same_timer_words_bo4096_t256_l2_256(ARGS) { return launch<word_loads<4096, 256, 16, 1>>(PASS); }
