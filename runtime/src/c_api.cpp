// The C ABI (padtune_c.h) over the C++ runtime: every entry point catches everything, maps it to a
// padtune_status and keeps the message in a thread-local string.
#include "padtune_c.h"

#include <cuda_runtime_api.h>

#include <exception>
#include <new>
#include <string>

#include "padtune/detail/input.hpp"
#include "padtune/padtune.hpp"

#ifndef PADTUNE_VERSION_STRING
#error "PADTUNE_VERSION_STRING must be defined by the build (the CMake project version)"
#endif

namespace {

using padtune::status;

// The C values are the C++ ones: a status, dtype or backend crosses the ABI by value.
static_assert(PADTUNE_OK == int(status::ok));
static_assert(PADTUNE_ERROR_UNKNOWN_DTYPE == int(status::unknown_dtype));
static_assert(PADTUNE_ERROR_NEGATIVE_SIZE == int(status::negative_size));
static_assert(PADTUNE_ERROR_NEGATIVE_OUTPUT_LENGTH == int(status::negative_output_length));
static_assert(PADTUNE_ERROR_SIZE_OVERFLOW == int(status::size_overflow));
static_assert(PADTUNE_ERROR_NULL_POINTER == int(status::null_pointer));
static_assert(PADTUNE_ERROR_MISALIGNED_POINTER == int(status::misaligned_pointer));
static_assert(PADTUNE_ERROR_OVERLAPPING_BUFFERS == int(status::overlapping_buffers));
static_assert(PADTUNE_ERROR_DTYPE_MISMATCH == int(status::dtype_mismatch));
static_assert(PADTUNE_ERROR_UNSUPPORTED_BACKEND == int(status::unsupported_backend));
static_assert(PADTUNE_ERROR_LAUNCH_FAILED == int(status::launch_failed));
static_assert(PADTUNE_ERROR_INVALID_CONFIG == int(status::invalid_config));
static_assert(PADTUNE_ERROR_COMPILE_FAILED == int(status::compile_failed));
static_assert(PADTUNE_ERROR_SHAPE_MISMATCH == int(status::shape_mismatch));
static_assert(PADTUNE_ERROR_INVALID_FILL == int(status::invalid_fill));
// A code padtune::status gains later crosses as its number; give it a name here and in padtune_c.h.
static_assert(PADTUNE_ERROR_INTERNAL > int(status::invalid_fill));

static_assert(PADTUNE_F32 == int(padtune::dtype::f32));
static_assert(PADTUNE_F64 == int(padtune::dtype::f64));
static_assert(PADTUNE_F16 == int(padtune::dtype::f16));
static_assert(PADTUNE_BF16 == int(padtune::dtype::bf16));
static_assert(PADTUNE_BACKEND_CUDA == int(padtune::backend::cuda));
static_assert(PADTUNE_BACKEND_HOST == int(padtune::backend::host));
static_assert(sizeof(padtune_status) == sizeof(int) && sizeof(padtune_dtype) == sizeof(int) &&
              sizeof(padtune_backend) == sizeof(int));

thread_local std::string last_error;    // padtune_last_error()
thread_local std::string explain_text;  // padtune_explain()

// Through int: padtune::dtype and padtune::backend hold any int, the C enums need not.
padtune::dtype to_dtype(padtune_dtype t) { return padtune::dtype(static_cast<int>(t)); }
padtune::backend to_backend(padtune_backend b) { return padtune::backend(static_cast<int>(b)); }

/// Runs f, which may throw anything; returns its status and sets or clears last_error.
template <class F>
padtune_status guarded(F&& f) noexcept {
  try {
    try {
      f();
      last_error.clear();
      return PADTUNE_OK;
    } catch (const padtune::error& e) {
      last_error = padtune::safe_text(e.what());
      return padtune_status(int(e.code()));
    } catch (const std::bad_alloc&) {
      last_error = "internal error: out of memory";
    } catch (const std::exception& e) {
      last_error = padtune::safe_text(std::string("internal error: ") + e.what());
    } catch (...) {
      last_error = "internal error: an exception that is not a std::exception";
    }
  } catch (...) {  // the message itself could not be stored
    last_error.clear();
  }
  return PADTUNE_ERROR_INTERNAL;
}

}  // namespace

extern "C" {

PADTUNE_C_EXPORT int padtune_api_version(void) { return PADTUNE_C_API_VERSION; }

PADTUNE_C_EXPORT const char* padtune_version(void) { return PADTUNE_VERSION_STRING; }

PADTUNE_C_EXPORT const char* padtune_status_name(padtune_status s) {
  if (s == PADTUNE_ERROR_INTERNAL) return "internal";
  return padtune::name_of(status(static_cast<int>(s)));
}

PADTUNE_C_EXPORT const char* padtune_last_error(void) { return last_error.c_str(); }

PADTUNE_C_EXPORT padtune_status padtune_constant_pad1d_backward(const void* dy, void* dx, int64_t B, int64_t C,
                                                                int64_t L, int64_t pad_left, int64_t pad_right,
                                                                padtune_dtype dtype, void* stream) {
  return guarded([&] {
    padtune::constant_pad1d_backward(dy, dx, B, C, L, pad_left, pad_right, to_dtype(dtype),
                                     static_cast<cudaStream_t>(stream));
  });
}

PADTUNE_C_EXPORT padtune_status padtune_dispatch(padtune_backend backend, const void* dy, void* dx, int64_t B,
                                                 int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                                 padtune_dtype dtype, void* stream) {
  return guarded([&] {
    padtune::dispatch(padtune::problem{dy, dx, B, C, L, pad_left, pad_right, to_dtype(dtype)}, to_backend(backend),
                      static_cast<cudaStream_t>(stream));
  });
}

PADTUNE_C_EXPORT padtune_status padtune_dispatch_fill(padtune_backend backend, const void* dy, void* dx, int64_t B,
                                                      int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                                      padtune_dtype dtype, uint64_t fill, void* stream) {
  return guarded([&] {
    padtune::problem p{dy, dx, B, C, L, pad_left, pad_right, to_dtype(dtype)};
    p.fill = fill;
    padtune::dispatch(p, to_backend(backend), static_cast<cudaStream_t>(stream));
  });
}

PADTUNE_C_EXPORT padtune_status padtune_fill_bits(double value, padtune_dtype dtype, uint64_t* bits) {
  return guarded([&] {
    std::string why;
    std::uint64_t b = 0;
    if (const status s = padtune::fill_bits(value, to_dtype(dtype), &b, &why); s != status::ok) throw padtune::error(s, why);
    if (!bits) throw padtune::error(status::null_pointer, "bits is null");
    *bits = b;
  });
}

PADTUNE_C_EXPORT const char* padtune_explain(int64_t B, int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                             padtune_dtype dtype, padtune_backend backend) {
  const padtune_status s = guarded([&] {
    const padtune::dispatch_choice c = padtune::explain_dispatch(B, C, L, pad_left, pad_right, to_dtype(dtype),
                                                                 to_backend(backend));
    std::string text = "instantiation: " + c.inst->id + "\ntable: " + c.table + "\nbucket: " + c.bucket +
                       "\nmatched_bucket: " + (c.matched_bucket.empty() ? "none" : c.matched_bucket) +
                       "\nserved_by: " + c.served_by +
                       "\nreason: " + c.reason + "\n";
    explain_text = padtune::safe_text(text);  // valid UTF-8 whatever path it names
  });
  return s == PADTUNE_OK ? explain_text.c_str() : nullptr;
}

PADTUNE_C_EXPORT padtune_status padtune_set_results_path(const char* path, int any_device) {
  return guarded([&] { padtune::set_results_path(path ? path : "", any_device != 0); });
}

PADTUNE_C_EXPORT padtune_status padtune_set_autotune(int on) {
  return guarded([&] { padtune::set_autotune(on != 0); });
}

}  // extern "C"
