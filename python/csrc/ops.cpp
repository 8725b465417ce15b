// The padtune torch library: the ops' schemas, their CPU kernels (padtune's host backend) and their
// autograd, all in C++ so that a backward step costs no Python. CUDA kernels: cuda_ops.cpp.
//
//   padtune::constant_pad1d_backward(Tensor dy, SymInt pad_left, SymInt pad_right) -> Tensor
//   padtune::constant_pad1d(Tensor x, SymInt pad_left, SymInt pad_right, float value=0.) -> Tensor
//
// constant_pad1d's forward is padtune's where it serves the pad (aten_pads.hpp), PyTorch's composite
// where it does not; its backward is padtune's op.
#include "ops.hpp"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/impl/LocalDispatchKeySet.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <c10/util/bit_cast.h>

#include <algorithm>
#include <string>

#include "aten_pads.hpp"
#include "layout.hpp"

namespace padtune::torch_ext {
padtune_dtype dtype_of(at::ScalarType type, const char* what) {
  switch (type) {
    case at::kFloat: return PADTUNE_F32;
    case at::kDouble: return PADTUNE_F64;
    case at::kHalf: return PADTUNE_F16;
    case at::kBFloat16: return PADTUNE_BF16;
    default:
      TORCH_CHECK_TYPE(false, what, ": dy has dtype ", type,
                       "; padtune takes float32, float64, float16 and bfloat16");
  }
}

bool served_dtype(at::ScalarType type) {
  return type == at::kFloat || type == at::kDouble || type == at::kHalf || type == at::kBFloat16;
}

std::int64_t dx_length(std::int64_t OL, std::int64_t pad_left, std::int64_t pad_right, const char* what) {
  std::int64_t rest = 0, L = 0;
  const bool overflow = __builtin_sub_overflow(OL, pad_left, &rest) || __builtin_sub_overflow(rest, pad_right, &L);
  TORCH_CHECK_VALUE(!overflow && L >= 0, what, ": dy's last dimension has ", OL,
                    " elements, fewer than pad_left + pad_right = ", pad_left, " + ", pad_right);
  return L;
}

bool all_padding(std::int64_t OL, std::int64_t L, std::int64_t pad_left) { return pad_left >= OL || pad_left <= -L; }

namespace {

bool dense_layout(const at::Tensor& t) { return t.is_contiguous() || t.is_non_overlapping_and_dense(); }

}  // namespace

bool fill_bits_of(const c10::Scalar& value, at::ScalarType type, std::uint64_t& bits) {
  if (value.isComplex()) return false;
  try {
    switch (type) {
      case at::kFloat: bits = c10::bit_cast<std::uint32_t>(value.to<float>()); return true;
      case at::kDouble: bits = c10::bit_cast<std::uint64_t>(value.to<double>()); return true;
      case at::kHalf: bits = value.to<at::Half>().x; return true;
      case at::kBFloat16: bits = value.to<at::BFloat16>().x; return true;
      default: return false;
    }
  } catch (const std::exception&) {  // "... cannot be converted to type ... without overflow": c10::Error or, in
                                     // later torch versions, std::runtime_error
    return false;
  }
}

void run_plan(const at::Tensor& dy, const plan& p, std::int64_t pad_left, std::int64_t pad_right, at::Tensor& dx,
              padtune_backend backend, void* stream, side_stream* side, const char* what, std::uint64_t fill) {
  const padtune_dtype type = dtype_of(dy.scalar_type(), what);
  const std::int64_t OL = dy.size(-1), L = dx.size(-1);
  if (dx.numel() == 0) return;
  if (dy.numel() == 0 || all_padding(OL, L, pad_left)) {  // OL == 0, or nothing read
    if (fill == 0) {
      dx.zero_();
    } else {  // the bits themselves, through an integer view of dx's element size
      const at::ScalarType bits_type = dx.element_size() == 2 ? at::kShort : dx.element_size() == 4 ? at::kInt : at::kLong;
      const std::int64_t as_signed = dx.element_size() == 2   ? std::int64_t(std::int16_t(std::uint16_t(fill)))
                                     : dx.element_size() == 4 ? std::int64_t(std::int32_t(std::uint32_t(fill)))
                                                              : std::int64_t(fill);
      dx.view(bits_type).fill_(as_signed);
    }
    return;
  }
  // A misaligned dy is copied to fresh memory: contiguous() would hand a contiguous one back as it is,
  // and clone(Preserve) keeps a dense dy's strides, which its plan assumed.
  const at::Tensor src = p.how != plan::kind::copy ? dy
                         : p.misaligned           ? (dense_layout(dy) ? dy.clone(at::MemoryFormat::Preserve) : dy.contiguous())
                                                  : dy.contiguous();
  const std::int64_t item = std::int64_t(src.element_size());
  const char* base = static_cast<const char*>(src.const_data_ptr()) + p.dy_offset * item;
  char* out = static_cast<char*>(dx.data_ptr());
  const std::int64_t main_rows = p.last_row_apart ? p.rows - 1 : p.rows;
  // A last row apart runs at its own place, with dy's own OL and pads: first, on the side stream
  // where there is one, so that the main launch overlaps it.
  side_stream* const apart = p.last_row_apart ? side : nullptr;
  void* const last_stream = apart ? apart->fork() : stream;
  padtune_status s = PADTUNE_OK;
  if (p.last_row_apart) {
    const char* last = static_cast<const char*>(src.const_data_ptr()) + main_rows * p.row * item;
    s = padtune_dispatch_fill(backend, last, out + main_rows * p.L * item, 1, 1, p.L, pad_left, pad_right, type, fill,
                              last_stream);
  }
  if (s == PADTUNE_OK)
    s = padtune_dispatch_fill(backend, base, out, 1, main_rows, p.L, p.pad_left, p.pad_right, type, fill, stream);
  if (apart) apart->join();  // also after a failure: the side stream must not stay forked (graph capture)
  TORCH_CHECK(s == PADTUNE_OK, what, ": ", padtune_status_name(s), ": ", padtune_last_error());
}

at::Tensor constant_pad1d_backward(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right,
                                   padtune_backend backend, void* stream, side_stream* side) {
  TORCH_CHECK_VALUE(dy.dim() >= 1, "padtune.ops.constant_pad1d_backward: dy is a scalar; its last dimension is the padded one");
  const std::int64_t OL = dy.size(-1), L = dx_length(OL, pad_left, pad_right, "padtune.ops.constant_pad1d_backward");
  dtype_of(dy.scalar_type(), "padtune.ops.constant_pad1d_backward");
  at::DimVector sizes(dy.sizes());
  sizes.back() = L;
  // Contiguous dx straight from the allocator; another memory order through a permuted allocation.
  const std::vector<std::int64_t> order = dx_order_for(dy);
  const bool in_order = std::is_sorted(order.begin(), order.end());
  at::Tensor dx = in_order ? at::empty(sizes, dy.options()) : at::empty_permuted(sizes, order, dy.options());
  if (dx.numel() == 0 || dy.numel() == 0 || all_padding(OL, L, pad_left)) {  // no plan: its products could overflow
    run_plan(dy, plan{}, pad_left, pad_right, dx, backend, stream, side, "padtune.ops.constant_pad1d_backward");
    return dx;
  }
  run_plan(dy, plan_for(dy, order, pad_left, pad_right), pad_left, pad_right, dx, backend, stream, side,
           "padtune.ops.constant_pad1d_backward");
  return dx;
}

std::vector<std::int64_t> describe(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right) {
  TORCH_CHECK_VALUE(dy.dim() >= 1, "padtune.explain: dy is a scalar; its last dimension is the padded one");
  const std::int64_t OL = dy.size(-1), L = dx_length(OL, pad_left, pad_right, "padtune.explain");
  dtype_of(dy.scalar_type(), "padtune.explain");
  if (all_padding(OL, L, pad_left)) return {3, 0, OL, L, pad_left, pad_right, 0, 0};  // all zeros: no kernel
  const plan p = plan_for(dy, dx_order_for(dy), pad_left, pad_right);
  const std::int64_t kind = p.misaligned ? 4 : std::int64_t(p.how);
  return {kind, p.rows, p.row, p.L, p.pad_left, p.pad_right, p.dy_offset, p.last_row_apart ? 1 : 0};
}

namespace {

at::Tensor backward_cpu(const at::Tensor& dy, std::int64_t pad_left, std::int64_t pad_right) {
  return constant_pad1d_backward(dy, pad_left, pad_right, PADTUNE_BACKEND_HOST, nullptr);
}

/// The forward on CPU tensors: padtune's host backend where it serves the pad, PyTorch's composite
/// where it does not (aten_pads.hpp), whether padtune.enable() is on or not.
at::Tensor pad_forward(const at::Tensor& x, std::int64_t pad_left, std::int64_t pad_right, double value) {
  TORCH_CHECK_VALUE(x.dim() >= 1, "padtune.constant_pad1d: x is a scalar; its last dimension is the padded one");
  return constant_pad_nd(x, {pad_left, pad_right}, value, PADTUNE_BACKEND_HOST, nullptr, nullptr);
}

const auto& forward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("padtune::constant_pad1d", "")
                             .typed<at::Tensor(const at::Tensor&, c10::SymInt, c10::SymInt, double)>();
  return op;
}

const auto& backward_op() {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("padtune::constant_pad1d_backward", "")
                             .typed<at::Tensor(const at::Tensor&, c10::SymInt, c10::SymInt)>();
  return op;
}

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

/// x -> pad: padtune's forward (the op's CPU or CUDA kernel, below autograd), padtune's backward.
struct Pad1d : torch::autograd::Function<Pad1d> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& x, c10::SymInt pad_left, c10::SymInt pad_right,
                            double value) {
    TORCH_CHECK_VALUE(x.dim() >= 1, "padtune.constant_pad1d: x is a scalar; its last dimension is the padded one");
    ctx->saved_data["pad_left"] = pad_left;
    ctx->saved_data["pad_right"] = pad_right;
    at::AutoDispatchBelowADInplaceOrView guard;
    return forward_op().call(x, std::move(pad_left), std::move(pad_right), value);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor& dy = grads[0];
    if (!dy.defined()) return {at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
    const c10::SymInt pad_left = ctx->saved_data["pad_left"].toSymInt(), pad_right = ctx->saved_data["pad_right"].toSymInt();
    // A dtype the forward left to PyTorch (complex, integers) gets PyTorch's backward too: its pad
    // with the pads negated, as constant_pad_nd's own derivative.
    const at::Tensor dx = served_dtype(dy.scalar_type()) ? backward_op().call(dy, pad_left, pad_right)
                                                         : at::constant_pad_nd_symint(dy, {-pad_left, -pad_right}, 0);
    return {dx, at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

/// dy -> dx is linear: its own backward pads (double backward, gradgradcheck).
struct Pad1dBackward : torch::autograd::Function<Pad1dBackward> {
  static at::Tensor forward(AutogradContext* ctx, const at::Tensor& dy, c10::SymInt pad_left, c10::SymInt pad_right) {
    ctx->saved_data["pad_left"] = pad_left;
    ctx->saved_data["pad_right"] = pad_right;
    at::AutoDispatchBelowADInplaceOrView guard;
    return backward_op().call(dy, pad_left, pad_right);
  }
  static variable_list backward(AutogradContext* ctx, variable_list grads) {
    const at::Tensor& g = grads[0];
    if (!g.defined()) return {at::Tensor(), at::Tensor(), at::Tensor()};
    const c10::SymInt pad_left = ctx->saved_data["pad_left"].toSymInt(), pad_right = ctx->saved_data["pad_right"].toSymInt();
    return {at::constant_pad_nd_symint(g, {pad_left, pad_right}, 0), at::Tensor(), at::Tensor()};
  }
};

/// Forward-mode AD (torch.func.jvp, forward_ad): the C++ autograd function has no jvp, so a tangent
/// goes through PyTorch's own pad instead (the same values, PyTorch's backward).
bool has_tangent(const at::Tensor& t) { return t._fw_grad(/*level=*/0).defined(); }

at::Tensor pad_autograd(const at::Tensor& x, c10::SymInt pad_left, c10::SymInt pad_right, double value) {
  if (has_tangent(x)) return at::constant_pad_nd_symint(x, {std::move(pad_left), std::move(pad_right)}, value);
  if (!at::GradMode::is_enabled() || !x.requires_grad()) {  // inference: no graph node to make
    TORCH_CHECK_VALUE(x.dim() >= 1, "padtune.constant_pad1d: x is a scalar; its last dimension is the padded one");
    at::AutoDispatchBelowADInplaceOrView guard;
    return forward_op().call(x, std::move(pad_left), std::move(pad_right), value);
  }
  return Pad1d::apply(x, std::move(pad_left), std::move(pad_right), value);
}

at::Tensor backward_autograd(const at::Tensor& dy, c10::SymInt pad_left, c10::SymInt pad_right) {
  if (has_tangent(dy)) return at::constant_pad_nd_symint(dy, {-pad_left, -pad_right}, 0);  // the same map, with a jvp
  // The common case, a backward step (grad mode off): no graph node to make.
  if (!at::GradMode::is_enabled() || !dy.requires_grad()) {
    at::AutoDispatchBelowADInplaceOrView guard;
    return backward_op().call(dy, std::move(pad_left), std::move(pad_right));
  }
  return Pad1dBackward::apply(dy, std::move(pad_left), std::move(pad_right));
}

}  // namespace
}  // namespace padtune::torch_ext

TORCH_LIBRARY(padtune, m) {
  m.def("constant_pad1d_backward(Tensor dy, SymInt pad_left, SymInt pad_right) -> Tensor");
  m.def("constant_pad1d(Tensor x, SymInt pad_left, SymInt pad_right, float value=0.) -> Tensor");
  // The layout plan of a dy, as numbers (padtune.explain words them): kind (0 dense, 1 pitched,
  // 2 copy, 3 not read: dx is all padding, 4 copy to aligned memory), rows, row, L, pad_left,
  // pad_right, dy_offset, last_row_apart.
  m.def("describe(Tensor dy, int pad_left, int pad_right) -> int[]");
}

TORCH_LIBRARY_IMPL(padtune, CPU, m) {
  m.impl("constant_pad1d_backward", &padtune::torch_ext::backward_cpu);
  m.impl("constant_pad1d", &padtune::torch_ext::pad_forward);
  m.impl("describe", &padtune::torch_ext::describe);
}

TORCH_LIBRARY_IMPL(padtune, CUDA, m) {  // shapes and strides only: no device code, no guard
  m.impl("describe", &padtune::torch_ext::describe);
}

TORCH_LIBRARY_IMPL(padtune, Autograd, m) {
  m.impl("constant_pad1d_backward", &padtune::torch_ext::backward_autograd);
  m.impl("constant_pad1d", &padtune::torch_ext::pad_autograd);
}
