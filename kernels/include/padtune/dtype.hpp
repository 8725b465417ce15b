#pragma once
/// Element types padtune moves. The kernels only copy bytes, so a dtype is a name and a size.
#include <cstddef>
#include <optional>
#include <string_view>

namespace padtune {

/// The element types of the contract. Values outside this list are "unknown" and rejected.
enum class dtype : int { f32 = 0, f64 = 1, f16 = 2, bf16 = 3 };

inline constexpr dtype all_dtypes[] = {dtype::f32, dtype::f64, dtype::f16, dtype::bf16};

/// Bytes per element; 0 for a value that names no dtype.
constexpr std::size_t size_of(dtype t) noexcept {
  switch (t) {
    case dtype::f32: return 4;
    case dtype::f64: return 8;
    case dtype::f16: return 2;
    case dtype::bf16: return 2;
  }
  return 0;
}

/// Short name used in instantiation ids and on the command line ("f32", "bf16", ...).
constexpr std::string_view name_of(dtype t) noexcept {
  switch (t) {
    case dtype::f32: return "f32";
    case dtype::f64: return "f64";
    case dtype::f16: return "f16";
    case dtype::bf16: return "bf16";
  }
  return "unknown";
}

/// Parses a short name; nullopt if it names no dtype.
constexpr std::optional<dtype> parse_dtype(std::string_view s) noexcept {
  for (dtype t : all_dtypes)
    if (name_of(t) == s) return t;
  return std::nullopt;
}

}  // namespace padtune
