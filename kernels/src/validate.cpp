// The one input validation behind every entry point (launch, reference, dispatcher, CLI).
#include <fmt/format.h>

#include <cstdint>

#include "padtune/problem.hpp"

namespace padtune {
namespace {

status fail(std::string* why, status code, std::string message) {
  if (why) *why = std::move(message);
  return code;
}

bool mul_overflows(std::int64_t a, std::int64_t b, std::int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

status check_shape(std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right,
                   dtype type, std::string* why, problem_sizes* sizes) noexcept try {
  const std::int64_t S = std::int64_t(size_of(type));
  if (S == 0) return fail(why, status::unknown_dtype, fmt::format("unknown dtype (value {})", int(type)));
  if (B < 0) return fail(why, status::negative_size, fmt::format("B must be >= 0, got {}", B));
  if (C < 0) return fail(why, status::negative_size, fmt::format("C must be >= 0, got {}", C));
  if (L < 0) return fail(why, status::negative_size, fmt::format("L must be >= 0, got {}", L));
  std::int64_t OL = 0;
  if (__builtin_add_overflow(pad_left, L, &OL) || __builtin_add_overflow(OL, pad_right, &OL))
    return fail(why, status::size_overflow,
                fmt::format("OL = pad_left + L + pad_right = {} + {} + {} overflows 64 bits", pad_left, L, pad_right));
  if (OL < 0)
    return fail(why, status::negative_output_length,
                fmt::format("OL = pad_left + L + pad_right = {} + {} + {} = {} is negative", pad_left, L, pad_right, OL));
  problem_sizes z;
  z.OL = OL;
  z.elem_bytes = S;
  std::int64_t bytes = 0;
  if (mul_overflows(B, C, &z.rows) || mul_overflows(z.rows, L, &z.dx_elems) || mul_overflows(z.rows, OL, &z.dy_elems) ||
      mul_overflows(z.dx_elems, S, &bytes) || mul_overflows(z.dy_elems, S, &bytes) || mul_overflows(bytes, 2, &bytes))
    return fail(why, status::size_overflow,
                fmt::format("the byte count of B={} C={} L={} OL={} {} overflows 64 bits", B, C, L, OL, name_of(type)));
  if (sizes) *sizes = z;
  return status::ok;
} catch (...) {  // fmt may throw bad_alloc; this entry point promises noexcept
  return status::size_overflow;
}

status check(const problem& p, std::string* why, problem_sizes* sizes) noexcept try {
  problem_sizes z;
  if (const status s = check_shape(p.B, p.C, p.L, p.pad_left, p.pad_right, p.type, why, &z); s != status::ok) return s;
  if (z.elem_bytes < 8 && (p.fill >> (8 * z.elem_bytes)) != 0)
    return fail(why, status::invalid_fill,
                fmt::format("fill {:#x} has bits beyond a {}-byte {} element", p.fill, z.elem_bytes, name_of(p.type)));
  const auto dy = reinterpret_cast<std::uintptr_t>(p.dy), dx = reinterpret_cast<std::uintptr_t>(p.dx);
  if (z.dx_elems > 0) {  // no elements to write: nothing is read either, so the pointers do not matter
    if (!p.dy && z.dy_bytes() > 0)
      return fail(why, status::null_pointer, fmt::format("dy is null but holds {} bytes", z.dy_bytes()));
    if (!p.dx) return fail(why, status::null_pointer, fmt::format("dx is null but holds {} bytes", z.dx_bytes()));
    const auto S = std::uintptr_t(z.elem_bytes);
    if (dy % S)
      return fail(why, status::misaligned_pointer,
                  fmt::format("dy = {:#x} is not aligned to {} bytes for {}", dy, S, name_of(p.type)));
    if (dx % S)
      return fail(why, status::misaligned_pointer,
                  fmt::format("dx = {:#x} is not aligned to {} bytes for {}", dx, S, name_of(p.type)));
    const auto dy_end = dy + std::uintptr_t(z.dy_bytes()), dx_end = dx + std::uintptr_t(z.dx_bytes());
    if (z.dy_bytes() > 0 && dy < dx_end && dx < dy_end)
      return fail(why, status::overlapping_buffers,
                  fmt::format("dy [{:#x}, {:#x}) and dx [{:#x}, {:#x}) overlap", dy, dy_end, dx, dx_end));
  }
  if (sizes) *sizes = z;
  return status::ok;
} catch (...) {
  return status::size_overflow;
}

problem_sizes validate(const problem& p) {
  std::string why;
  problem_sizes sizes;
  if (const status s = check(p, &why, &sizes); s != status::ok) throw error(s, why);
  return sizes;
}

}  // namespace padtune
