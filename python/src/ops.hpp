#pragma once
// The padtune torch ops' shared parts: the C ABI call on a plan, for the CPU and CUDA kernels.
#include <ATen/core/Tensor.h>

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

/// dx for dy through padtune on `backend` (`stream`: a cudaStream_t for CUDA, ignored for the host;
/// `side`: where a last row apart runs, or nullptr for `stream`; it is launched before the others).
/// Checks the pads and the dtype; makes dy contiguous only when no plan reads it in place.
at::Tensor constant_pad1d_backward(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right,
                                   padtune_backend backend, void* stream, side_stream* side = nullptr);

/// How padtune runs dy: its layout plan as numbers (the describe op; padtune.explain words them).
std::vector<std::int64_t> describe(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right);

}  // namespace padtune::torch_ext
