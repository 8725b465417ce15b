#include "padtune/error.hpp"

namespace padtune {

const char* name_of(status s) noexcept {
  switch (s) {
    case status::ok: return "ok";
    case status::unknown_dtype: return "unknown_dtype";
    case status::negative_size: return "negative_size";
    case status::negative_output_length: return "negative_output_length";
    case status::size_overflow: return "size_overflow";
    case status::null_pointer: return "null_pointer";
    case status::misaligned_pointer: return "misaligned_pointer";
    case status::overlapping_buffers: return "overlapping_buffers";
    case status::dtype_mismatch: return "dtype_mismatch";
    case status::unsupported_backend: return "unsupported_backend";
    case status::launch_failed: return "launch_failed";
    case status::invalid_config: return "invalid_config";
    case status::compile_failed: return "compile_failed";
    case status::shape_mismatch: return "shape_mismatch";
    case status::invalid_fill: return "invalid_fill";
  }
  return "unknown_status";
}

}  // namespace padtune
