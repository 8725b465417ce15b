// An experiment for lab/bin/same-timer --extra (not part of padtune's library): flat's
// gather with 32-bit element arithmetic. At P8 16-bit (8, 128, 1000, 7, 9), flat bo1024 t128 has
// inductor's layout (one 16-byte chunk a thread, eight 2-byte loads) but measured 1.163 of the copy
// (the H200 cache), while lab/experiments/inductor_like_16.cu with run-time sizes ran at 1.013. In
// flat's PTX each element costs about ten 64-bit operations (index, row test, bounds, address);
// ptxas splits each into two. The loads issue only after that arithmetic, and P8 is short enough
// for that to show. Here the same kernel (flat's plan, copy_ends and chunk loop) gathers with
// int32 row positions and source indices: one 64-bit divmod per chunk as before, then 32-bit.
// The launchers refuse a dy of 2^30 elements or more, and pads of 2^30. Elements move as bits, so the f16 kernels
// serve bf16 too.
// Measured on the H200 (that command, one timer): flat32 bo1024 1.039, the library's flat 1.078,
// flatvec 1.045, inductor 1.006. The int32 gather helps flat but does not pass flatvec by more than
// an event step (docs/performance-notes.md, "P8 16-bit"), so flat_int32_library.patch did not land.
//
//   python3 lab/bin/same-timer 8,128,1000,7,9 f16 --inductor --extra lab/experiments/flat32.cu \
//       constant_pad1d_backward__f16__flat__bo1024__t128__w16 constant_pad1d_backward__f16__flatvec__bo1024__t128__w16
#include <cuda_fp16.h>

namespace {

namespace pd = padtune::detail;

template <int BLOCK_OL, int MAX_THREADS, int W>
struct flat32 : pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false> {
  using base = pd::flat_kernel<__half, BLOCK_OL, MAX_THREADS, W, false>;
  using typename base::params;
  using base::chunk_elems;
  using base::elem;
  using base::items;
  using base::threads;

  static __device__ void run(const params& p, std::uint64_t block, unsigned thread) {
    if (block == 0) base::copy_ends(p, thread);
    pd::byte* const body = p.a.dx + p.head * elem;
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
    const int L = int(a.L), drift = int(a.OL - a.L), vb = int(a.valid_begin), ve = int(a.valid_end);
    int col = int(i), src = int(row) * int(a.OL) + int(a.pad_left) + col;  // in int32: the launcher checks
    const unsigned short* dy = reinterpret_cast<const unsigned short*>(a.dy);
    unsigned x[chunk_elems];
#pragma unroll
    for (int j = 0; j < chunk_elems; ++j) {
      x[j] = (col >= vb && col < ve) ? unsigned(__ldg(dy + unsigned(src))) : 0u;
      ++col, ++src;
      if (col == L) col = 0, src += drift;  // next row
    }
    pd::vec<W> v;
#pragma unroll
    for (int q = 0; q < pd::vec<W>::words; ++q) v.w[q] = x[2 * q] | x[2 * q + 1] << 16;
    return v;
  }
};

template <class K>
int launch(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  // Every source index, and row * OL + pad_left on the way to it, stays inside int32.
  if (rows * (pl + L + pr) >= (1ll << 30) || L >= (1ll << 30) || pl <= -(1ll << 30) || pl >= (1ll << 30)) return 1;
  padtune::problem p;
  p.dy = dy, p.dx = dx, p.B = 1, p.C = rows, p.L = L, p.pad_left = pl, p.pad_right = pr;
  p.type = padtune::dtype::f16;  // the bytes per element: bf16 moves the same
  return int(pd::launch_cuda<K>(p, static_cast<cudaStream_t>(stream)));
}

}  // namespace

#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_flat32_bo512_t64(ARGS) { return launch<flat32<512, 256, 16>>(PASS); }
extern "C" int same_timer_flat32_bo1024_t128(ARGS) { return launch<flat32<1024, 256, 16>>(PASS); }
extern "C" int same_timer_flat32_bo2048_t256(ARGS) { return launch<flat32<2048, 256, 16>>(PASS); }
