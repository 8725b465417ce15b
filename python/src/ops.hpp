#pragma once
// The padtune torch ops' shared parts: the C ABI call on a plan, for the CPU and CUDA kernels.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

#include "padtune_c.h"

namespace padtune::torch_ext {

/// dx for dy through padtune on `backend` (`stream`: a cudaStream_t for CUDA, ignored for the host).
/// Checks the pads and the dtype; makes dy contiguous only when no plan reads it in place.
at::Tensor constant_pad1d_backward(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right,
                                   padtune_backend backend, void* stream);

/// How padtune runs dy: its layout plan as numbers (the describe op; padtune.explain words them).
std::vector<std::int64_t> describe(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right);

}  // namespace padtune::torch_ext
