#pragma once
/// Status codes and the exception that carries them.
#include <stdexcept>
#include <string>

namespace padtune {

/// Why a call failed. The numeric values are stable: the CLI maps them to exit codes.
enum class status : int {
  ok = 0,
  unknown_dtype,
  negative_size,
  negative_output_length,
  size_overflow,
  null_pointer,
  misaligned_pointer,
  overlapping_buffers,
  dtype_mismatch,
  unsupported_backend,
  launch_failed,
  invalid_config,  ///< a JIT kernel's parameters that its variant does not accept
  compile_failed,  ///< NVRTC rejected a JIT kernel's source (the message holds its log)
  shape_mismatch,  ///< launch arguments that disagree with a JIT kernel's constants
  invalid_fill,    ///< fill bits beyond the element's size
};

/// A short stable name of a status ("overlapping_buffers").
const char* name_of(status s) noexcept;

/// Thrown by the throwing entry points; what() names the problem in words.
class error : public std::runtime_error {
 public:
  error(status code, const std::string& message) : std::runtime_error(message), code_(code) {}
  status code() const noexcept { return code_; }

 private:
  status code_;
};

}  // namespace padtune
