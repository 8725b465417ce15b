#pragma once
// padtune as the kernel of PyTorch's own constant pads (padtune.enable()): aten::constant_pad_nd,
// forward and backward alike (its autograd backward is constant_pad_nd with the pads negated), and
// aten::slice_backward along the last dimension with step 1 (zeros, then a copy: a pad too).
//
// A call is served when padtune's kernels give exactly what PyTorch would: the same values, bit for
// bit, in an output of the very sizes and strides PyTorch's composite makes, the fill value converted
// as PyTorch's fill_ converts it. Anything else (pads on other dimensions, other dtypes, layouts
// padtune would copy first, arguments PyTorch refuses, a fill value the dtype overflows) goes to
// PyTorch's composite implementation, called directly, never through the dispatcher again.
#include <ATen/core/Tensor.h>
#include <c10/core/Scalar.h>
#include <torch/library.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layout.hpp"
#include "ops.hpp"

namespace padtune::torch_ext {

/// What padtune does with one call: serve it, as the backward problem (rows of the input, pads
/// negated) into an output of PyTorch's sizes and strides, or leave it to PyTorch, and why.
struct pad_call {
  bool served = false;
  std::string why;  ///< fallback: the reason; served: how
  std::int64_t pad_left = 0, pad_right = 0;  ///< the backward problem's pads: the forward pads negated
  plan how;                                  ///< the input's layout plan (layout.hpp)
  bool zeros = false;                        ///< every output element is padding: no plan
  std::uint64_t fill = 0;                    ///< the fill value's bits in the dtype (ops.hpp: fill_bits_of)
  std::vector<std::int64_t> sizes, strides;  ///< the output, as PyTorch makes it
  /// How PyTorch allocates it: at::empty in this memory format, else at::empty_strided (a clone's).
  /// The same call, so that an allocation that fails fails with PyTorch's own message.
  std::optional<c10::MemoryFormat> format;
};

/// aten::constant_pad_nd(self, pad, value).
pad_call decide_constant_pad(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value);
/// aten::slice_backward(grad_output, input_sizes, dim, start, end, step).
pad_call decide_slice_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                               std::int64_t end, std::int64_t step);

/// Runs a served call of input `in` on `backend`.
at::Tensor run_served(const at::Tensor& in, const pad_call& c, padtune_backend backend, void* stream, side_stream* side);

/// Serves the call if decide_* says so, on `backend` (and `stream`, `side`), else runs PyTorch's
/// composite implementation; counts either way.
at::Tensor constant_pad_nd(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value, padtune_backend backend,
                           void* stream, side_stream* side);
at::Tensor slice_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                          std::int64_t end, std::int64_t step, padtune_backend backend, void* stream, side_stream* side);

/// Whether enable() has the aten kernels of this device type serve now (they stay registered once
/// registered; disable() turns them off: aten_pads.cpp says why).
bool aten_serving(c10::DeviceType device);

/// Adds the CUDA kernels of both ops to an IMPL library of aten for CUDA: set by cuda_ops.cpp where
/// PyTorch has CUDA, else null.
using library_filler = void (*)(torch::Library&);
library_filler& cuda_aten_pads();

}  // namespace padtune::torch_ext
