#ifndef PADTUNE_C_H
#define PADTUNE_C_H
/* padtune's C ABI (libpadtune_c.so): the tuned ConstantPad1dBackward dispatcher for C, Rust, Python
 * ctypes and anything else that calls C.
 *
 *   dx[b,c,i] = dy[b,c,i+pad_left] where 0 <= i+pad_left < OL = pad_left + L + pad_right, else 0
 *
 * dy is [B, C, OL] and dx is [B, C, L], both contiguous. No function lets an exception out; every
 * function that returns a padtune_status sets this thread's last error on failure and clears it on
 * success. Strings returned are owned by the library: never free them. docs/c-api.md has examples. */
#include <stddef.h>
#include <stdint.h>

#ifndef PADTUNE_C_EXPORT
#if defined(__GNUC__) || defined(__clang__)
#define PADTUNE_C_EXPORT __attribute__((visibility("default")))
#else
#define PADTUNE_C_EXPORT
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this header's ABI; padtune_api_version() gives the library's. */
#define PADTUNE_C_API_VERSION 1

/** Why a call failed. Values 1..14 equal padtune::status (kernels/include/padtune/error.hpp). */
typedef enum padtune_status {
  PADTUNE_OK = 0,
  PADTUNE_ERROR_UNKNOWN_DTYPE = 1,          /**< a dtype value that names no element type */
  PADTUNE_ERROR_NEGATIVE_SIZE = 2,          /**< B, C or L below zero */
  PADTUNE_ERROR_NEGATIVE_OUTPUT_LENGTH = 3, /**< pad_left + L + pad_right below zero */
  PADTUNE_ERROR_SIZE_OVERFLOW = 4,          /**< a size or byte count past 64 bits */
  PADTUNE_ERROR_NULL_POINTER = 5,           /**< dy or dx null while it holds bytes */
  PADTUNE_ERROR_MISALIGNED_POINTER = 6,     /**< dy or dx not aligned to the element size */
  PADTUNE_ERROR_OVERLAPPING_BUFFERS = 7,    /**< dy and dx share bytes */
  PADTUNE_ERROR_DTYPE_MISMATCH = 8,
  PADTUNE_ERROR_UNSUPPORTED_BACKEND = 9,    /**< a backend value that names none */
  PADTUNE_ERROR_LAUNCH_FAILED = 10,         /**< no usable CUDA device, or the launch failed */
  PADTUNE_ERROR_INVALID_CONFIG = 11,
  PADTUNE_ERROR_COMPILE_FAILED = 12,
  PADTUNE_ERROR_SHAPE_MISMATCH = 13,
  PADTUNE_ERROR_INVALID_FILL = 14,          /**< fill bits beyond the element, or a value the dtype cannot hold */
  PADTUNE_ERROR_INTERNAL = 100,             /**< anything else (out of memory, a bug): see padtune_last_error() */
  PADTUNE_STATUS_MAX_ENUM_ = 0x7fffffff     /**< not a status: keeps the type 32 bits wide */
} padtune_status;

/** Element types; the values equal padtune::dtype. f16 and bf16 are passed as their 16-bit patterns. */
typedef enum padtune_dtype {
  PADTUNE_F32 = 0,
  PADTUNE_F64 = 1,
  PADTUNE_F16 = 2,
  PADTUNE_BF16 = 3,
  PADTUNE_DTYPE_MAX_ENUM_ = 0x7fffffff /**< not a dtype: keeps the type 32 bits wide */
} padtune_dtype;

/** Where a call runs: a CUDA device (device pointers), or the host emulation of the same kernels
 * on the CPU (host pointers; works with no GPU, and is slow: for tests). */
typedef enum padtune_backend {
  PADTUNE_BACKEND_CUDA = 0,
  PADTUNE_BACKEND_HOST = 1,
  PADTUNE_BACKEND_MAX_ENUM_ = 0x7fffffff /**< not a backend: keeps the type 32 bits wide */
} padtune_backend;

/** The library's PADTUNE_C_API_VERSION: compare it with the header's before any other call. */
PADTUNE_C_EXPORT int padtune_api_version(void);

/** The project version ("0.1.0"); a static string. */
PADTUNE_C_EXPORT const char* padtune_version(void);

/** A short stable name of a status ("overlapping_buffers", "internal", or "unknown_status"); a
 * static string. */
PADTUNE_C_EXPORT const char* padtune_status_name(padtune_status status);

/** The message of the last failed call on this thread, "" if the last call succeeded. Owned by the
 * library; valid until the next padtune call on this thread. */
PADTUNE_C_EXPORT const char* padtune_last_error(void);

/** Validates, picks the tuned instantiation for this shape on the current CUDA device, and enqueues
 * it on `stream` (a cudaStream_t; NULL is the default stream). dy and dx are device pointers the
 * caller owns. Asynchronous: the result is ready when the stream is. A shape with no elements does
 * nothing. Thread-safe. */
PADTUNE_C_EXPORT padtune_status padtune_constant_pad1d_backward(const void* dy, void* dx, int64_t B, int64_t C,
                                                                int64_t L, int64_t pad_left, int64_t pad_right,
                                                                padtune_dtype dtype, void* stream);

/** The same on either backend. PADTUNE_BACKEND_HOST takes host pointers, ignores `stream` and
 * returns when dx is written. Thread-safe. */
PADTUNE_C_EXPORT padtune_status padtune_dispatch(padtune_backend backend, const void* dy, void* dx, int64_t B,
                                                 int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                                 padtune_dtype dtype, void* stream);

/** padtune_dispatch with a fill: dx takes the bits `fill` (the low bytes of the element size; the rest
 * zero) where it has no source, instead of +0.0: ConstantPad1d's value, in one pass. padtune_fill_bits
 * makes them from a value. Thread-safe. */
PADTUNE_C_EXPORT padtune_status padtune_dispatch_fill(padtune_backend backend, const void* dy, void* dx, int64_t B,
                                                      int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                                      padtune_dtype dtype, uint64_t fill, void* stream);
/** Sets *bits to `value` in `dtype` as PyTorch converts a Scalar (f16 and bf16 through float, each step
 * to nearest even); a finite value the dtype cannot hold is PADTUNE_ERROR_INVALID_FILL. */
PADTUNE_C_EXPORT padtune_status padtune_fill_bits(double value, padtune_dtype dtype, uint64_t* bits);
/** What the dispatcher takes for this shape and why, as `key: value` lines (instantiation, table,
 * bucket, matched_bucket, served_by: exact, timed, bucket or fallback, reason). Owned by the library; valid
 * until the next padtune call on this thread. NULL on bad input, with padtune_last_error() set. Thread-safe. */
PADTUNE_C_EXPORT const char* padtune_explain(int64_t B, int64_t C, int64_t L, int64_t pad_left, int64_t pad_right,
                                             padtune_dtype dtype, padtune_backend backend);

/** Use this results table for every device from now on; NULL or "" returns to the default lookup
 * (PADTUNE_RESULTS, then the tables embedded at build time). A table of another device model is
 * passed over unless any_device is non-zero. A missing or bad file is reported on stderr at the next
 * lookup, which then uses the next source. `path` is copied. Not thread-safe: call it before other
 * threads dispatch or explain. */
PADTUNE_C_EXPORT padtune_status padtune_set_results_path(const char* path, int any_device);

/** First-use timing on (non-zero) or off; off unless PADTUNE_AUTOTUNE=1. On, the first dispatch of a
 * shape that no exact entry holds times the vote's 12 best-voted kernels on that call's buffers and
 * stream (a few milliseconds on small problems, the stream synchronized, a scratch buffer of twice
 * the L2 meanwhile) and keeps the vote's first unless another is 2% faster, for the process; padtune_explain then says served_by: timed. A stream being
 * captured into a CUDA graph is never timed. Thread-safe. */
PADTUNE_C_EXPORT padtune_status padtune_set_autotune(int on);

#ifdef __cplusplus
}
#endif

#endif /* PADTUNE_C_H */
