#pragma once
/// One ConstantPad1dBackward problem and the single validation every entry point uses.
#include <cstdint>
#include <string>

#include "padtune/dtype.hpp"
#include "padtune/error.hpp"

namespace padtune {

/// dy is [B, C, OL], dx is [B, C, L], both contiguous; OL = pad_left + L + pad_right.
/// dx[b,c,i] = dy[b,c,i+pad_left] where 0 <= i+pad_left < OL, else the fill (0 unless set).
struct problem {
  const void* dy = nullptr;  ///< gradient of the padded output, B*C*OL elements
  void* dx = nullptr;        ///< gradient of the input, B*C*L elements (written)
  std::int64_t B = 0, C = 0, L = 0;
  std::int64_t pad_left = 0, pad_right = 0;  ///< negative pads crop, as in PyTorch
  dtype type = dtype::f32;
  /// The bits of the value dx takes where it has no source, in the low size_of(type) bytes (the
  /// rest zero): 0 is +0.0, the backward's zeros; fill_bits(value, type) makes it from a value.
  std::uint64_t fill = 0;
};

/// Sets *bits to `value` in `type`, converted as PyTorch converts a Scalar, so that a pad through
/// padtune and through PyTorch write the same bits: through float for f16 and bf16, each step to
/// nearest even; a NaN is f16's 0x7e00 with value's sign, bf16's 0x7fc0. A finite value beyond the
/// type's largest is refused (invalid_fill), as PyTorch refuses it.
status fill_bits(double value, dtype type, std::uint64_t* bits, std::string* why = nullptr) noexcept;

/// Sizes derived from a problem that passed validation.
struct problem_sizes {
  std::int64_t rows = 0;      ///< B*C
  std::int64_t OL = 0;        ///< pad_left + L + pad_right
  std::int64_t dx_elems = 0;  ///< rows*L
  std::int64_t dy_elems = 0;  ///< rows*OL
  std::int64_t elem_bytes = 0;
  std::int64_t dx_bytes() const { return dx_elems * elem_bytes; }
  std::int64_t dy_bytes() const { return dy_elems * elem_bytes; }
  /// Bytes the contract must move: dx written once and the same count read from dy.
  std::int64_t payload_bytes() const { return 2 * dx_bytes(); }
};

/// Checks shape, sizes and pointers. On failure returns the code and sets *why (if given) to a
/// message that names the problem; on success fills *sizes (if given).
status check(const problem& p, std::string* why = nullptr, problem_sizes* sizes = nullptr) noexcept;

/// Checks the shape only (no pointers); used where buffers do not exist yet (sweeps, the CLI).
status check_shape(std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                   std::int64_t pad_right, dtype type, std::string* why = nullptr,
                   problem_sizes* sizes = nullptr) noexcept;

/// Throwing form of check(): returns the sizes or throws padtune::error.
problem_sizes validate(const problem& p);

}  // namespace padtune
