#pragma once
// Moving bits: elements and W-byte vectors in and out of memory, and realigning two vectors in
// registers. The kernels move bits, never values, so NaN payloads and -0.0 come through unchanged.
#include "host_device.cuh"

namespace padtune::detail {

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

/// W zero bytes: the start of a chunk that set_element fills (its 16-bit form reads the word it sets).
template <int W> PADTUNE_HD vec<W> zero_vec() {
  vec<W> v;
#pragma unroll
  for (int j = 0; j < vec<W>::words; ++j) v.w[j] = 0;
  return v;
}

/// W bytes of the S-byte element `fill` repeated: the fill's chunk (all zeros for the value +0.0).
template <int W, int S> PADTUNE_HD vec<W> fill_vec(std::uint64_t fill) {
  static_assert(S == 2 || S == 4 || S == 8, "elements of 2, 4 or 8 bytes");
  std::uint32_t lo, hi;  // the 8-byte pattern, as two words
  if constexpr (S == 8) {
    lo = std::uint32_t(fill), hi = std::uint32_t(fill >> 32);
  } else if constexpr (S == 4) {
    lo = hi = std::uint32_t(fill);
  } else {
    lo = hi = std::uint32_t(fill & 0xFFFFu) * 0x10001u;
  }
  vec<W> v;
#pragma unroll
  for (int j = 0; j < vec<W>::words; ++j) v.w[j] = (j & 1) ? hi : lo;
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

/// W bytes from a V-aligned address as W / V aligned V-byte loads: no byte loaded twice.
template <int W, int V>
PADTUNE_HD vec<W> load_pieces(const byte* p) {
  static_assert(V >= 4 && V < W && W % V == 0, "pieces of 4 or 8 bytes, narrower than W");
  vec<W> v;
#pragma unroll
  for (int j = 0; j < W / V; ++j) {
    const vec<V> piece = load_vec<V>(p + j * V);
#pragma unroll
    for (int q = 0; q < vec<V>::words; ++q) v.w[j * vec<V>::words + q] = piece.w[q];
  }
  return v;
}

/// W source bytes from an address that is PIECE-aligned (8 or 4; 0: only element-aligned), in
/// aligned pieces where PIECE allows, else as load_unaligned. PIECE must be the same for a whole
/// problem: a per-chunk choice diverged within warps where the shift changes from row to row (P6
/// 16-bit 1.29 -> 1.35, docs/performance-notes.md v15).
template <int W>
PADTUNE_HD vec<W> load_source(const byte* src, int piece);

/// W source bytes from any element-aligned address: one or two aligned loads, realigned in registers.
/// Pre: the loads stay inside the input (pad_args.cuh: aligned_loads_in_bounds<W>(a, src, src)).
template <int W>
PADTUNE_HD vec<W> load_unaligned(const byte* src) {
  const unsigned shift = unsigned(std::uintptr_t(src) & (W - 1));
  const vec<W> lo = load_vec<W>(src - shift);
  return shift ? realign(lo, load_vec<W>(src - shift + W), shift) : lo;
}

template <int W>
PADTUNE_HD vec<W> load_source(const byte* src, int piece) {
  if constexpr (W == 16)
    if (piece == 8) return load_pieces<16, 8>(src);
  if constexpr (W >= 8)
    if (piece == 4) return load_pieces<W, 4>(src);
  return load_unaligned<W>(src);
}
}  // namespace padtune::detail
