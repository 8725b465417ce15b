#pragma once
// The padtune torch ops' shared parts: the C ABI call on a plan, for the CPU and CUDA kernels.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>

#include <cstdint>
#include <vector>

#include "padtune_c.h"

namespace padtune::torch_ext {

/// A second stream for a plan that runs its last row apart (layout.hpp): the CUDA kernel's, so that
/// the row's small launch overlaps the others instead of queueing behind them.
class side_stream {
 public:
  virtual ~side_stream() = default;
  /// A stream ordered after the work the main stream holds so far.
  virtual void* fork() = 0;
  /// Orders the main stream after the work given to the forked stream.
  virtual void join() = 0;
};

struct plan;

/// padtune's dtype of a torch dtype; TypeError naming `what` for any other.
padtune_dtype dtype_of(at::ScalarType type, const char* what);
/// Whether padtune runs this dtype (float32, float64, float16, bfloat16).
bool served_dtype(at::ScalarType type);
/// L = OL - pad_left - pad_right, checked: no overflow, not negative (ValueError naming `what`).
std::int64_t dx_length(std::int64_t OL, std::int64_t pad_left, std::int64_t pad_right, const char* what);
/// Whether no i in [0, L) reads dy (pads at least a row long): dx is all zeros, and no plan is made
/// (its products could overflow).
bool all_padding(std::int64_t OL, std::int64_t L, std::int64_t pad_left);

/// Runs plan p of dy into dx, which the caller allocated in the plan's order (layout.hpp): the fill
/// (bits of dx's dtype; 0 is +0.0) where nothing is read, else the kernels on `backend`, the last row
/// apart on `side` where the plan says. `what` names the caller in errors.
void run_plan(const at::Tensor& dy, const plan& p, std::int64_t pad_left, std::int64_t pad_right, at::Tensor& dx,
              padtune_backend backend, void* stream, side_stream* side, const char* what, std::uint64_t fill = 0);

/// The bits of `value` in `type` as PyTorch's fill_ converts it (c10::Scalar::to), or false where
/// PyTorch refuses it (a value the type overflows, a complex value).
bool fill_bits_of(const c10::Scalar& value, at::ScalarType type, std::uint64_t& bits);

/// dx for dy through padtune on `backend` (`stream`: a cudaStream_t for CUDA, ignored for the host;
/// `side`: where a last row apart runs, or nullptr for `stream`; it is launched before the others).
/// Checks the pads and the dtype; makes dy contiguous only when no plan reads it in place.
at::Tensor constant_pad1d_backward(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right,
                                   padtune_backend backend, void* stream, side_stream* side = nullptr);

/// How padtune runs dy: its layout plan as numbers (the describe op; padtune.explain words them).
std::vector<std::int64_t> describe(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right);

}  // namespace padtune::torch_ext
