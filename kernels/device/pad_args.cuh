#pragma once
// The problem as every kernel sees it, and the accesses that depend on it: bounds of wide loads,
// one element of dx. The fill (ConstantPad1d's value) is bits like everything else: the host turns a
// value into its dtype's bits once (padtune::fill_bits), the kernels only place them.
#include "bits.cuh"

namespace padtune::detail {

/// The problem as every kernel sees it: byte pointers, 64-bit sizes and the fill as bits, no dtype.
struct pad_args {
  const byte* __restrict__ dy = nullptr;
  byte* __restrict__ dx = nullptr;
  std::int64_t rows = 0;  ///< B*C
  std::int64_t L = 0, OL = 0, pad_left = 0;
  /// dx positions [valid_begin, valid_end) of a row have a source in dy; the rest take the fill.
  std::int64_t valid_begin = 0, valid_end = 0;
  const byte* dy_end = nullptr;  ///< one past the last byte of dy: no load may pass it
  std::uint64_t fill = 0;        ///< the bits of the fill value in the low elem bytes (0: +0.0)
};

/// The kernel-side view of a problem whose sizes passed validation (elem: bytes per element). The
/// host builds it from a padtune::problem; a JIT entry point from its launch arguments and constants.
PADTUNE_HD pad_args make_pad_args(const byte* dy, byte* dx, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                                  std::int64_t pad_right, std::int64_t elem, std::uint64_t fill = 0) {
  pad_args a;
  a.dy = dy;
  a.dx = dx;
  a.rows = rows;
  a.L = L;
  a.OL = pad_left + L + pad_right;
  a.pad_left = pad_left;
  a.fill = fill;
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

/// True if the W-aligned loads that cover W source bytes starting at each of the addresses
/// src_first..src_last (W apart, so at one shift; two loads when it is not 0) stay inside dy: the
/// kernels never read past their input. Addresses, not pointers: a source the test rejects may lie
/// outside dy, and forming a pointer there would be undefined.
template <int W>
PADTUNE_HD bool aligned_loads_in_bounds(const pad_args& a, std::uintptr_t src_first, std::uintptr_t src_last) {
  const std::uintptr_t shift = src_first & (W - 1), first = src_first - shift, last = src_last - shift;
  return first >= std::uintptr_t(a.dy) && last + (shift ? 2 * W : W) <= std::uintptr_t(a.dy_end);
}

/// dx[row, i] from dy, or the fill where i has no source.
template <int S> PADTUNE_HD void copy_element(const pad_args& a, std::int64_t row, std::int64_t i) {
  bits_t<S> v = bits_t<S>(a.fill);
  if (i >= a.valid_begin && i < a.valid_end) v = load_element<S>(a.dy + (row * a.OL + i + a.pad_left) * S);
  store_element<S>(a.dx + (row * a.L + i) * S, v);
}
}  // namespace padtune::detail
