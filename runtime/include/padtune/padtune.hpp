#pragma once
/// padtune's runtime API: launch the tuned ConstantPad1dBackward kernel for the current GPU.
///
///   dx[b,c,i] = dy[b,c,i+pad_left] where 0 <= i+pad_left < OL = pad_left + L + pad_right, else 0
///
/// The table is looked up once per device, in this order: an explicit path (set_results_path) or
/// the PADTUNE_RESULTS environment variable, if it is a table of this device model; the tables embedded at build time from results/*.json
/// for this device model; else the embedded table nearest in compute capability (a model without a
/// table of its own borrows it, with first-use timing on unless set_autotune or PADTUNE_AUTOTUNE
/// says otherwise); the built-in default (kernels/device/variants.cuh: one variant for long rows,
/// one for short ones). Lookup never fails: a bad file is reported once on stderr and the next
/// source is used.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "padtune/dtype.hpp"
#include "padtune/error.hpp"
#include "padtune/registry.hpp"

namespace padtune {

/// Validates, picks the tuned instantiation for this shape on the current device, zeroes dx first
/// if that instantiation needs it, and enqueues it on `stream`. Throws padtune::error on bad input
/// (see padtune::check) or a failed launch. A problem with no elements does nothing.
void constant_pad1d_backward(const void* dy, void* dx, std::int64_t B, std::int64_t C, std::int64_t L,
                             std::int64_t pad_left, std::int64_t pad_right, dtype type, cudaStream_t stream = nullptr);

/// Typed overloads: T is float, double, __half or __nv_bfloat16.
template <class T>
void constant_pad1d_backward(const T* dy, T* dx, std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                             std::int64_t pad_right, cudaStream_t stream = nullptr);

/// The same for a padtune::problem, on either backend: the host backend looks up the table of the
/// host emulation (results/host-emulation.json) and runs the emulation.
void dispatch(const problem& p, backend b = backend::cuda, cudaStream_t stream = nullptr);

/// What the dispatcher takes for a shape, and why.
struct dispatch_choice {
  const instantiation* inst = nullptr;  ///< never null
  std::string table;   ///< where the table came from: a path, "embedded:<file>", or "built-in default"
  std::string bucket;  ///< the shape's bucket
  std::string matched_bucket;  ///< the bucket of the exact entry, or of the nearest entry in the vote ("" when
                               ///< the built-in default is used: no table, or no entry of this dtype in it)
  std::string served_by;  ///< "exact" (an exact entry of this shape), "rule" (a tiny problem on a GPU:
                          ///< at most 32 KB in at most 64 rows, one kernel for all), "timed" (the fastest of the vote's
                          ///< finalists, timed on this shape's first dispatch: set_autotune), "bucket" (the
                          ///< vote, its nearest entry of the shape's own bucket) or "fallback" (the vote, its
                          ///< nearest entry of another bucket; or the built-in default)
  std::string reason;  ///< one line in words
  /// served_by "timed": each finalist and its median time in microseconds, in the vote's order.
  std::vector<std::pair<const instantiation*, double>> timings;
};

/// The choice for this shape on backend b (for cuda: the current device). Throws padtune::error on
/// bad input.
dispatch_choice explain_dispatch(std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                                 std::int64_t pad_right, dtype type, backend b = backend::cuda);

/// Use this results file for every device from now on ("" returns to the default lookup order).
/// A table of another device model than the one a call runs on is passed over (with a warning
/// naming both) unless `any_device` is true or PADTUNE_RESULTS_ANY_DEVICE=1. Tables already loaded
/// are dropped, so PADTUNE_RESULTS is read again on the next lookup. Not to be called while another
/// thread dispatches or explains: call it at start-up (or in tests).
void set_results_path(const std::string& path, bool any_device = false);

/// First-use timing, off unless turned on here or by PADTUNE_AUTOTUNE=1 (as cuDNN's benchmark
/// mode), or, where neither says, for a device that borrows another model's table. On: the first dispatch of a shape that no exact entry holds times the vote's 12 best-voted
/// kernels on that call's own buffers and stream (a first round that sizes the others, then 10 to
/// 30 rounds, twice the L2 written before each run on CUDA: 130 to 370 runs, a few milliseconds on
/// small problems, an estimated 35 ms on a 1 GB one; on the host backend as many runs of the emulation),
/// synchronizing the stream, with a scratch buffer of twice the L2 taken from CUDA's stream-ordered
/// pool and given back before the call returns. It keeps the vote's first unless another finalist
/// is at least 2% faster, for that shape on that device, for the rest of the process. dx is written
/// by those runs and then by the call. A call on a stream being captured into a CUDA graph is never
/// timed: it takes the vote's choice and leaves the shape to the next call outside capture. A
/// failed timing is reported on stderr and leaves the shape to the vote's choice. Safe to call at
/// any time.
void set_autotune(bool on);
/// Whether first-use timing was turned on (set_autotune, PADTUNE_AUTOTUNE=1); a device that borrows
/// another model's table also times when neither said no.
bool autotune_enabled();
/// How many shapes this process has timed on first use (each at most once per device).
std::size_t autotuned_shapes();

/// The tables this build embedded from results/*.json, by file name ("nvidia-h200.json").
std::vector<std::string> embedded_table_files();

}  // namespace padtune
