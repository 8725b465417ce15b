// The CUDA kernels of the padtune torch ops (built when PyTorch has CUDA): on dy's device, on its
// current stream, through padtune's tuned dispatcher. dx comes from PyTorch's caching allocator, and
// nothing here synchronizes: the ops run inside CUDA graph capture. A plan's last row apart runs on
// a pooled stream beside the current one, forked and joined by events.
#include <ATen/ATen.h>
#include <ATen/ops/constant_pad_nd_compositeexplicitautograd_dispatch.h>
#include <ATen/ops/slice_backward_compositeexplicitautograd_dispatch.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/core/Event.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/library.h>

#include <cstddef>
#include <optional>
#include <vector>

#include "aten_pads.hpp"
#include "ops.hpp"

namespace padtune::torch_ext {
namespace {

/// The side stream of a call: one of PyTorch's pooled streams, forked from and joined into the
/// current one by events (which CUDA graph capture records as edges).
class pooled_side_stream final : public side_stream {
 public:
  explicit pooled_side_stream(c10::cuda::CUDAStream main) : main_(main) {}
  void* fork() override {
    side_ = c10::cuda::getStreamFromPool(false, main_.device_index());
    events().forked.record(main_);
    events().forked.block(*side_);
    return side_->stream();
  }
  void join() override {
    events().joined.record(*side_);
    events().joined.block(main_);
  }

 private:
  struct event_pair {
    c10::Event forked{c10::DeviceType::CUDA}, joined{c10::DeviceType::CUDA};
  };
  /// This thread's events on main_'s device: a record and its wait must not meet another thread's
  /// record of the same event. Never freed (a few per thread and device): CUDA may be gone when a
  /// thread_local would destroy them at exit.
  event_pair& events() const {
    thread_local std::vector<event_pair*> per_device;
    const auto d = static_cast<std::size_t>(main_.device_index());
    if (per_device.size() <= d) per_device.resize(d + 1, nullptr);
    if (!per_device[d]) per_device[d] = new event_pair;
    return *per_device[d];
  }

  c10::cuda::CUDAStream main_;
  std::optional<c10::cuda::CUDAStream> side_;
};

at::Tensor backward_cuda(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right) {
  const c10::cuda::CUDAGuard device(dy.device());
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(dy.device().index());
  pooled_side_stream side(stream);
  return constant_pad1d_backward(dy, pad_left, pad_right, PADTUNE_BACKEND_CUDA, stream.stream(), &side);
}

/// The forward: padtune's where it serves the pad (aten_pads.hpp), PyTorch's composite where it does not.
at::Tensor pad_forward_cuda(const at::Tensor& x, std::int64_t pad_left, std::int64_t pad_right, double value) {
  TORCH_CHECK_VALUE(x.dim() >= 1, "padtune.constant_pad1d: x is a scalar; its last dimension is the padded one");
  const c10::cuda::CUDAGuard device(x.device());
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(x.device().index());
  pooled_side_stream side(stream);
  return constant_pad_nd(x, {pad_left, pad_right}, value, PADTUNE_BACKEND_CUDA, stream.stream(), &side);
}

// aten's pads on CUDA tensors, while padtune.enable() holds them (aten_pads.cpp): on the input's
// device and its current stream.
at::Tensor aten_constant_pad_nd_cuda(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value) {
  if (!aten_serving(c10::DeviceType::CUDA)) return at::compositeexplicitautograd::constant_pad_nd(self, pad, value);
  const c10::cuda::CUDAGuard device(self.device());
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(self.device().index());
  pooled_side_stream side(stream);
  return constant_pad_nd(self, pad, value, PADTUNE_BACKEND_CUDA, stream.stream(), &side);
}

at::Tensor aten_slice_backward_cuda(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                                    std::int64_t end, std::int64_t step) {
  if (!aten_serving(c10::DeviceType::CUDA))
    return at::compositeexplicitautograd::slice_backward(grad, input_sizes, dim, start, end, step);
  const c10::cuda::CUDAGuard device(grad.device());
  const c10::cuda::CUDAStream stream = c10::cuda::getCurrentCUDAStream(grad.device().index());
  pooled_side_stream side(stream);
  return slice_backward(grad, input_sizes, dim, start, end, step, PADTUNE_BACKEND_CUDA, stream.stream(), &side);
}

void add_cuda_aten_pads(torch::Library& lib) {
  lib.impl("constant_pad_nd", TORCH_FN(aten_constant_pad_nd_cuda));
  lib.impl("slice_backward", TORCH_FN(aten_slice_backward_cuda));
}

const bool cuda_aten_pads_known = [] {
  cuda_aten_pads() = &add_cuda_aten_pads;
  return true;
}();

}  // namespace
}  // namespace padtune::torch_ext

TORCH_LIBRARY_IMPL(padtune, CUDA, m) {
  m.impl("constant_pad1d_backward", &padtune::torch_ext::backward_cuda);
  m.impl("constant_pad1d", &padtune::torch_ext::pad_forward_cuda);
}
