#pragma once
// Building blocks shared by every variant. Everything here is __host__ __device__: the host
// backend runs the very same kernel bodies on the CPU, so device-only intrinsics sit behind
// __CUDA_ARCH__ with a portable twin. NVRTC compiles these files too (kernels/jit), so they include
// nothing but each other: NVRTC has no C++ standard library.
#if defined(__CUDACC_RTC__)
namespace std {  // the fixed-width names the kernels use, from the built-in types of the CUDA target
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using int32_t = int;
using uint64_t = unsigned long long;
using int64_t = long long;
using uintptr_t = unsigned long long;
}  // namespace std
#else
#include <cstdint>
#include <cstring>
#endif

#define PADTUNE_HD __host__ __device__ __forceinline__

namespace padtune::detail {

using byte = unsigned char;

/// An unsigned integer of S bytes: the kernels move bits, never values (NaN payloads, -0.0).
template <int S> struct bits_of;
template <> struct bits_of<2> { using type = std::uint16_t; };
template <> struct bits_of<4> { using type = std::uint32_t; };
template <> struct bits_of<8> { using type = std::uint64_t; };
template <int S> using bits_t = typename bits_of<S>::type;

/// W bytes as 32-bit words, aligned to W: one global access.
template <int W> struct alignas(W) vec {
  static_assert(W == 4 || W == 8 || W == 16, "access width is 4, 8 or 16 bytes");
  static constexpr int words = W / 4;
  std::uint32_t w[words];
};

template <int S> PADTUNE_HD bits_t<S> load_element(const byte* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(reinterpret_cast<const bits_t<S>*>(p));
#else
  bits_t<S> v;
  std::memcpy(&v, p, S);
  return v;
#endif
}

template <int S> PADTUNE_HD void store_element(byte* p, bits_t<S> v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<bits_t<S>*>(p) = v;
#else
  std::memcpy(p, &v, S);
#endif
}

/// Loads W bytes from a W-aligned address through the read-only path.
template <int W> PADTUNE_HD vec<W> load_vec(const byte* p) {
  vec<W> v;
#if defined(__CUDA_ARCH__)
  if constexpr (W == 16) {
    const uint4 u = __ldg(reinterpret_cast<const uint4*>(p));
    v.w[0] = u.x, v.w[1] = u.y, v.w[2] = u.z, v.w[3] = u.w;
  } else if constexpr (W == 8) {
    const uint2 u = __ldg(reinterpret_cast<const uint2*>(p));
    v.w[0] = u.x, v.w[1] = u.y;
  } else {
    v.w[0] = __ldg(reinterpret_cast<const unsigned*>(p));
  }
#else
  std::memcpy(&v, p, W);
#endif
  return v;
}

/// Stores W bytes to a W-aligned address.
template <int W> PADTUNE_HD void store_vec(byte* p, const vec<W>& v) {
#if defined(__CUDA_ARCH__)
  if constexpr (W == 16) {
    *reinterpret_cast<uint4*>(p) = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
  } else if constexpr (W == 8) {
    *reinterpret_cast<uint2*>(p) = make_uint2(v.w[0], v.w[1]);
  } else {
    *reinterpret_cast<unsigned*>(p) = v.w[0];
  }
#else
  std::memcpy(p, &v, W);
#endif
}

template <int W> PADTUNE_HD vec<W> zero_vec() {
  vec<W> v;
#pragma unroll
  for (int j = 0; j < vec<W>::words; ++j) v.w[j] = 0;
  return v;
}

/// Places element J (of S bytes) into a vector; J is a compile-time index so v stays in registers.
template <int S, int J, int W> PADTUNE_HD void set_element(vec<W>& v, bits_t<S> x) {
  if constexpr (S == 8) {
    v.w[2 * J] = static_cast<std::uint32_t>(x);
    v.w[2 * J + 1] = static_cast<std::uint32_t>(x >> 32);
  } else if constexpr (S == 4) {
    v.w[J] = x;
  } else {
    constexpr int shift = (J & 1) * 16;
    v.w[J / 2] = (v.w[J / 2] & ~(0xFFFFu << shift)) | (std::uint32_t(x) << shift);
  }
}

/// Low 32 bits of (hi:lo) >> (shift % 32): one SHF instruction on the device.
PADTUNE_HD std::uint32_t funnel_shift_right(std::uint32_t lo, std::uint32_t hi, std::uint32_t shift) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, shift);
#else
  return static_cast<std::uint32_t>(((std::uint64_t(hi) << 32) | lo) >> (shift & 31));
#endif
}

/// Bytes [shift, shift + W) of the 2W bytes a:b, for 0 <= shift < W. The word part of the shift
/// picks registers through a chain of selects with constant indices, never a run-time index into a
/// register array (that would go to local memory); the byte part is one funnel shift per word.
template <int W>
PADTUNE_HD vec<W> realign(const vec<W>& a, const vec<W>& b, unsigned shift) {
  constexpr int N = vec<W>::words;
  std::uint32_t cat[2 * N];
#pragma unroll
  for (int j = 0; j < N; ++j) cat[j] = a.w[j], cat[N + j] = b.w[j];
  const unsigned word_shift = shift / 4, bit_shift = (shift % 4) * 8;
  std::uint32_t moved[N + 1];  // cat[j + word_shift] for j = 0..N
#pragma unroll
  for (int j = 0; j <= N; ++j) {
    moved[j] = cat[j];
#pragma unroll
    for (int q = 1; q < N; ++q)
      if (word_shift == unsigned(q)) moved[j] = cat[j + q];
  }
  vec<W> r;
#pragma unroll
  for (int j = 0; j < N; ++j) r.w[j] = funnel_shift_right(moved[j], moved[j + 1], bit_shift);
  return r;
}

PADTUNE_HD std::uint64_t mul_hi(std::uint64_t a, std::uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
#endif
}

/// floor(r * 2^64 / d) for r < d, without 128-bit arithmetic (NVRTC has none unless asked): two
/// 64-bit division steps where d < 2^32 (every divisor of a JIT launch, whose sizes are int32), one
/// quotient bit per step otherwise.
PADTUNE_HD std::uint64_t div_shifted_64(std::uint64_t r, std::uint64_t d) {
  if (d >> 32 == 0) {
    const std::uint64_t hi = (r << 32) / d, rem = (r << 32) % d;
    return hi << 32 | (rem << 32) / d;
  }
  std::uint64_t q = 0;
  for (int bit = 0; bit < 64; ++bit) {
    const bool carry = r >> 63;
    r <<= 1, q <<= 1;
    if (carry || r >= d) r -= d, q |= 1;
  }
  return q;
}

/// Division by a run-time constant as a multiply and a shift (Granlund-Montgomery), so that no
/// kernel divides per element or per tile. Exact for dividends below 2^63 and divisors >= 1.
struct fast_divmod {
  std::uint64_t divisor = 1;
  std::uint64_t magic = 0;
  unsigned shift = 0;

  fast_divmod() = default;
  /// Pre: 1 <= d <= 2^63. The ahead-of-time launch plans on the host; a JIT kernel plans on the
  /// device, once per thread, where a loop over the shift and a 128-bit division would cost most.
  PADTUNE_HD explicit fast_divmod(std::uint64_t d) : divisor(d) {
#if defined(__CUDA_ARCH__)
    shift = d > 1 ? unsigned(64 - __clzll(static_cast<long long>(d - 1))) : 0;  // ceil(log2 d)
    magic = d == 1 ? 0 : div_shifted_64((std::uint64_t(1) << shift) - d, d) + 1;
#else
    while (shift < 63 && (std::uint64_t(1) << shift) < d) ++shift;  // shift = ceil(log2 d)
    const unsigned __int128 two_64 = static_cast<unsigned __int128>(1) << 64;
    magic = d == 1 ? 0 : static_cast<std::uint64_t>(two_64 * ((std::uint64_t(1) << shift) - d) / d) + 1;
#endif
  }

  PADTUNE_HD std::uint64_t div(std::uint64_t n) const { return (mul_hi(magic, n) + n) >> shift; }
  PADTUNE_HD void divmod(std::uint64_t n, std::uint64_t& q, std::uint64_t& r) const {
    q = div(n);
    r = n - q * divisor;
  }
};

PADTUNE_HD std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

/// The problem as every kernel sees it: byte pointers and 64-bit sizes, no dtype.
struct pad_args {
  const byte* __restrict__ dy = nullptr;
  byte* __restrict__ dx = nullptr;
  std::int64_t rows = 0;  ///< B*C
  std::int64_t L = 0, OL = 0, pad_left = 0;
  /// dx positions [valid_begin, valid_end) of a row have a source in dy; the rest are zeros.
  std::int64_t valid_begin = 0, valid_end = 0;
  const byte* dy_end = nullptr;  ///< one past the last byte of dy: no load may pass it
};

/// The kernel-side view of a problem whose sizes passed validation (elem: bytes per element). The
/// host builds it from a padtune::problem; a JIT entry point from its launch arguments and constants.
PADTUNE_HD pad_args make_pad_args(const byte* dy, byte* dx, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                                  std::int64_t pad_right, std::int64_t elem) {
  pad_args a;
  a.dy = dy;
  a.dx = dx;
  a.rows = rows;
  a.L = L;
  a.OL = pad_left + L + pad_right;
  a.pad_left = pad_left;
  // check() accepts pads near int64's limits as long as OL comes out in range: -pad_left would
  // overflow for INT64_MIN, and OL - pad_left (the end of the sources) is L + pad_right.
  a.valid_begin = pad_left >= 0 ? 0 : (pad_left < -L ? L : -pad_left);
  const std::int64_t end = pad_right >= 0 ? L : L + pad_right;
  a.valid_end = end < a.valid_begin ? a.valid_begin : end;
  if (a.valid_begin == a.valid_end) {
    // No element has a source, so any pad_left with none copies the same zeros; OL keeps the source
    // indices the kernels form (row * OL + pad_left + i) far from overflow. Where some element has
    // a source, -L < pad_left < OL already does.
    a.pad_left = a.OL;
    a.valid_begin = a.valid_end = 0;
  }
  a.dy_end = dy + rows * a.OL * elem;
  return a;
}

/// What a configuration launches, from one constexpr rule per variant: the kernel templates read it
/// at compile time, the JIT's host code (which learns the configuration at run time) the same rule.
struct launch_shape {
  int threads = 0;       ///< threads per block
  int access_width = 0;  ///< bytes per global access in the hot loop
  int items = 0;         ///< accesses (elements or chunks) per thread per tile
  bool valid = false;    ///< false: not compiled, and the JIT refuses it
};

/// The rule of the variants that move W-byte chunks (rowtile, flat, flatvec): a tile of BLOCK_OL
/// elements is BLOCK_OL * elem / W chunks, spread over min(chunks, MAX_THREADS) threads, at most 16
/// chunks each; a thread must hold at least one element per chunk.
__host__ __device__ constexpr launch_shape chunked_shape(int elem, int block_ol, int max_threads, int w) {
  launch_shape s;
  if (block_ol < 1 || max_threads < 1 || elem < 1 || !(w == 4 || w == 8 || w == 16)) return s;
  const long long chunks = static_cast<long long>(block_ol) * elem / w;
  const long long threads = chunks < max_threads ? chunks : max_threads;
  s.threads = int(threads);
  s.access_width = w;
  s.items = threads > 0 ? int(chunks / threads) : 0;
  s.valid = w >= elem && chunks >= 1 && threads >= w / elem && chunks % threads == 0 && s.items <= 16 &&
            threads <= 1024;
  return s;
}

/// Tiles and blocks of a variant that walks (row, tile) pairs: seed and rowtile.
struct tiled_params {
  pad_args a;
  fast_divmod tiles;  ///< tiles per row
  std::uint64_t num_blocks = 0;
};

/// One block per (row, tile of BLOCK_OL dx elements): rowtile and rowelem.
PADTUNE_HD tiled_params plan_rowtile(const pad_args& a, int block_ol) {
  tiled_params p;
  p.a = a;
  const std::uint64_t tiles = ceil_div(a.L, block_ol);
  p.tiles = fast_divmod(tiles ? tiles : 1);
  p.num_blocks = std::uint64_t(a.rows) * tiles;
  return p;
}

/// The direct launch of a variant with a block per (row, tile): block (x, y, z) is tile x of row
/// z * gridDim.y + y, so a block finds its work in its index (no division, no grid-stride loop),
/// and with 32-bit sizes the parameters fit the 48 bytes of the first 64-byte constant line a
/// kernel reads (on sm_90 they start at c[0x0][0x210]). L2-cold, each of those costs time before
/// the first load of a small problem (docs/performance-notes.md v12-v13).
struct row_grid_params {
  std::uintptr_t dy_row0 = 0;  ///< address of dy element pad_left: row 0's source of dx element 0 (maybe outside dy)
  byte* dx = nullptr;
  std::uint32_t rows = 0, L = 0, OL = 0;
  std::int32_t valid_begin = 0, valid_end = 0;  ///< as in pad_args, in [0, L]
};
static_assert(sizeof(row_grid_params) <= 48, "the parameters of a direct launch fit one constant line");

/// The direct grid: (tiles, rows_y, rows_z) blocks, rows_y * rows_z >= rows (the blocks past the
/// last row return at once).
struct row_grid {
  row_grid_params p;
  std::uint32_t tiles = 0, rows_y = 0, rows_z = 0;
};

/// False where a size needs 64 bits (a row of 2^31 elements or more, more than 65535^2 rows, OL
/// of 2^32 or more): the variant's grid-stride launch takes those. True with tiles = 0 where there
/// is nothing to do.
PADTUNE_HD bool plan_row_grid(const pad_args& a, int block_ol, int elem, row_grid& g) {
  constexpr std::int64_t max_y = 65535;  // and max z: CUDA's limit on gridDim.y and gridDim.z
  if (a.rows > max_y * max_y || a.L > 0x7fffffff - block_ol || a.OL > 0xffffffffll) return false;
  g = row_grid{};
  if (a.rows == 0 || a.L == 0) return true;
  g.p.dy_row0 = std::uintptr_t(a.dy) + std::uintptr_t(a.pad_left) * std::uintptr_t(elem);  // modulo 2^64
  g.p.dx = a.dx;
  g.p.rows = std::uint32_t(a.rows), g.p.L = std::uint32_t(a.L), g.p.OL = std::uint32_t(a.OL);
  g.p.valid_begin = std::int32_t(a.valid_begin), g.p.valid_end = std::int32_t(a.valid_end);
  g.tiles = std::uint32_t(ceil_div(a.L, block_ol));
  g.rows_y = std::uint32_t(a.rows < max_y ? a.rows : max_y);
  g.rows_z = std::uint32_t(ceil_div(a.rows, g.rows_y));
  return true;
}

/// The grid-stride loop: the CUDA side of a JIT launch, and of an ahead-of-time launch whose plan
/// has more blocks than gridDim.x can hold (or that a test forces onto a small grid); every other
/// ahead-of-time launch gives each logical block its own CUDA block (launch.cuh).
/// Pre: 1 <= gridDim.x <= p.num_blocks (every launcher takes min(num_blocks, a cap) from the same plan,
/// and launches nothing when it is 0). So the first block runs without testing num_blocks: the test
/// waits for a parameter load, and L2-cold that serialized a constant-cache miss before the first
/// load of dy (P9: 2.40 us in Nsight Compute against Triton's 2.14, docs/performance-notes.md v10).
template <class K> __device__ __forceinline__ void run_grid(const typename K::params& p) {
  std::uint64_t b = blockIdx.x;
  do K::run(p, b, threadIdx.x);
  while ((b += gridDim.x) < p.num_blocks);
}

/// True if the W-aligned loads that cover W source bytes starting at each of the addresses
/// src_first..src_last (W apart, so at one shift; two loads when it is not 0) stay inside dy: the
/// kernels never read past their input. Addresses, not pointers: a source the test rejects may lie
/// outside dy, and forming a pointer there would be undefined.
template <int W>
PADTUNE_HD bool aligned_loads_in_bounds(const pad_args& a, std::uintptr_t src_first, std::uintptr_t src_last) {
  const std::uintptr_t shift = src_first & (W - 1), first = src_first - shift, last = src_last - shift;
  return first >= std::uintptr_t(a.dy) && last + (shift ? 2 * W : W) <= std::uintptr_t(a.dy_end);
}

/// W source bytes from any element-aligned address: one or two aligned loads, realigned in registers.
/// Pre: aligned_loads_in_bounds<W>(a, src, src).
template <int W>
PADTUNE_HD vec<W> load_unaligned(const byte* src) {
  const unsigned shift = unsigned(std::uintptr_t(src) & (W - 1));
  const vec<W> lo = load_vec<W>(src - shift);
  return shift ? realign(lo, load_vec<W>(src - shift + W), shift) : lo;
}

/// dx[row, i] from dy, or zero bits where i has no source.
template <int S> PADTUNE_HD void copy_element(const pad_args& a, std::int64_t row, std::int64_t i) {
  bits_t<S> v = 0;
  if (i >= a.valid_begin && i < a.valid_end) v = load_element<S>(a.dy + (row * a.OL + i + a.pad_left) * S);
  store_element<S>(a.dx + (row * a.L + i) * S, v);
}

}  // namespace padtune::detail
