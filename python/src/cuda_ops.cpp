// The CUDA kernels of the padtune torch ops (built when PyTorch has CUDA): on dy's device, on its
// current stream, through padtune's tuned dispatcher. dx comes from PyTorch's caching allocator, and
// nothing here synchronizes: the ops run inside CUDA graph capture.
#include <ATen/ATen.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include "ops.hpp"

namespace padtune::torch_ext {
namespace {

at::Tensor backward_cuda(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right) {
  const c10::cuda::CUDAGuard device(dy.device());
  return constant_pad1d_backward(dy, pad_left, pad_right, PADTUNE_BACKEND_CUDA,
                                 c10::cuda::getCurrentCUDAStream(dy.device().index()).stream());
}

at::Tensor pad_forward_cuda(const at::Tensor& x, std::int64_t pad_left, std::int64_t pad_right, double value) {
  TORCH_CHECK_VALUE(x.dim() >= 1, "padtune.constant_pad1d: x is a scalar; its last dimension is the padded one");
  const c10::cuda::CUDAGuard device(x.device());
  return at::constant_pad_nd(x, {pad_left, pad_right}, value);
}

}  // namespace
}  // namespace padtune::torch_ext

TORCH_LIBRARY_IMPL(padtune, CUDA, m) {
  m.impl("constant_pad1d_backward", &padtune::torch_ext::backward_cuda);
  m.impl("constant_pad1d", &padtune::torch_ext::pad_forward_cuda);
}
