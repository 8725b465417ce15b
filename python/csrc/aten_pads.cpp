// padtune as the kernel of aten::constant_pad_nd and aten::slice_backward (aten_pads.hpp): the
// decision, the run, the registration that padtune.enable() and disable() make and unmake.
//
// Registered from C++ (a torch::Library made and destroyed at run time), not through torch.library
// in Python: a served call then costs no Python, as the backward op's does; the Library object's
// lifetime is the registration, so disable() restores exactly what was there before.
#include "aten_pads.hpp"

#include <ATen/ATen.h>
#include <ATen/ExpandUtils.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/constant_pad_nd_compositeexplicitautograd_dispatch.h>
#include <ATen/ops/slice_backward_compositeexplicitautograd_dispatch.h>
#include <c10/core/MemoryFormat.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <sstream>

namespace padtune::torch_ext {
namespace {

pad_call fallback(std::string why) {
  pad_call c;
  c.why = std::move(why);
  return c;
}

template <class... Parts>
std::string words(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

/// Dense strides of `sizes` laid out in memory order `order` (outermost first), as at::empty makes them.
std::vector<std::int64_t> dense_strides(c10::IntArrayRef sizes, const std::vector<std::int64_t>& order) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    strides[std::size_t(*d)] = stride;
    stride *= std::max<std::int64_t>(sizes[std::size_t(*d)], 1);
  }
  return strides;
}

std::vector<std::int64_t> identity_order(std::size_t n) {
  std::vector<std::int64_t> order(n);
  for (std::size_t k = 0; k < n; ++k) order[k] = std::int64_t(k);
  return order;
}

/// The strides at::empty gives `sizes` in memory format `format`.
std::vector<std::int64_t> strides_of(c10::IntArrayRef sizes, c10::MemoryFormat format) {
  if (format == c10::MemoryFormat::ChannelsLast && sizes.size() == 4) return c10::get_channels_last_strides_2d(sizes);
  if (format == c10::MemoryFormat::ChannelsLast3d && sizes.size() == 5) return c10::get_channels_last_strides_3d(sizes);
  return dense_strides(sizes, identity_order(sizes.size()));
}

/// Whether two sets of strides place every element of `sizes` at the same offset.
bool same_layout(c10::IntArrayRef sizes, const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] == 0) return true;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (sizes[k] > 1 && a[k] != b[k]) return false;
  return true;
}

/// The call as the backward problem of `in` (dy) with pads (pad_left, pad_right) into an output of
/// `sizes` and PyTorch's `strides`: served where padtune writes that very layout without a copy.
pad_call serve_if_layout_fits(const at::Tensor& in, std::int64_t pad_left, std::int64_t pad_right, std::vector<std::int64_t> sizes,
                              std::vector<std::int64_t> strides) {
  const std::vector<std::int64_t> order = dx_order_for(in);
  if (!same_layout(sizes, strides, dense_strides(sizes, order)))
    return fallback("PyTorch's output has another memory order than the input's, which padtune's output keeps");
  pad_call c;
  c.pad_left = pad_left;
  c.pad_right = pad_right;
  const std::int64_t OL = in.size(-1), L = sizes.back();
  std::int64_t numel = 1;
  for (std::int64_t s : sizes) numel *= s;
  c.zeros = numel == 0 || in.numel() == 0 || all_padding(OL, L, pad_left);
  if (!c.zeros) {
    c.how = plan_for(in, order, pad_left, pad_right);
    if (c.how.how == plan::kind::copy)
      return fallback(c.how.misaligned ? "the input's address is not a multiple of its element size: padtune would copy it first"
                                       : "the input is neither dense nor rows at a pitch: padtune would copy it first");
  }
  c.served = true;
  c.sizes = std::move(sizes);
  c.strides = std::move(strides);
  c.why = c.zeros ? std::string("every output element is padding: the fill")
                  : words(c.how.how == plan::kind::dense ? "dense input" : "input rows at a pitch", ", as the backward problem: rows ",
                          c.how.rows, ", row ", c.how.row, ", L ", c.how.L, ", pad_left ", c.how.pad_left, ", pad_right ",
                          c.how.pad_right);
  return c;
}

// Counts of the calls the registered kernels took (padtune.enabled_counts()); `reentered` must stay
// 0: a served or fallen-back call that reached these kernels again through the dispatcher.
std::atomic<std::int64_t> served_calls{0}, fallback_calls{0}, reentered_calls{0};
thread_local int depth = 0;

/// Counts one call, and any call that starts while another of this thread is inside these kernels.
class call_scope {
 public:
  call_scope() {
    if (depth++ > 0) reentered_calls.fetch_add(1, std::memory_order_relaxed);
  }
  ~call_scope() { --depth; }
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;
};

void count(bool served) { (served ? served_calls : fallback_calls).fetch_add(1, std::memory_order_relaxed); }

}  // namespace

pad_call decide_constant_pad(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value) {
  if (!served_dtype(self.scalar_type()))
    return fallback(words("dtype ", self.scalar_type(), ": padtune runs float32, float64, float16 and bfloat16"));
  const std::int64_t rank = self.dim();
  if (rank < 1 || pad.size() < 2 || pad.size() % 2 != 0 || std::int64_t(pad.size()) > 2 * rank)
    return fallback(words(pad.size(), " pad values for ", rank, " dimensions: PyTorch's to check"));
  for (std::size_t k = 2; k < pad.size(); ++k)
    if (pad[k] != 0) return fallback(words("pads dimension ", -std::int64_t(k / 2) - 1, ": padtune pads the last dimension only"));
  const std::int64_t l = pad[0], r = pad[1], OL = self.size(-1);
  std::int64_t with_left = 0, length = 0;
  if (__builtin_add_overflow(OL, l, &with_left) || __builtin_add_overflow(with_left, r, &length))
    return fallback("the padded length overflows 64 bits: PyTorch's to refuse");
  // PyTorch narrows the input by each negative pad first: a crop longer than what is left is its to refuse.
  const std::int64_t kept_left = l < 0 ? with_left : OL, kept = r < 0 ? kept_left + r : kept_left;
  if (kept_left < 0 || kept < 0) return fallback(words("crops of ", -l, " and ", -r, " from ", OL, " elements: PyTorch's to refuse"));
  std::vector<std::int64_t> sizes(self.sizes().begin(), self.sizes().end());
  sizes.back() = length;
  if (l > 0 || r > 0) {
    if (length <= 0) return fallback(words("the padded length would be ", length, ": PyTorch's to refuse"));
    // Only a pad that writes the value converts it (a crop never does): an overflow is PyTorch's to refuse.
    std::uint64_t fill = 0;
    if (!fill_bits_of(value, self.scalar_type(), fill))
      return fallback(words("fill value ", value, " is complex or overflows ", self.scalar_type(), ": PyTorch's to refuse"));
    // torch 2.4 refuses a padded dimension of size 0 even where its pads are 0; later ones return an
    // empty tensor: an empty output is PyTorch's to make, whichever it is.
    for (std::size_t k = 1; k < pad.size() / 2; ++k)
      if (self.size(-1 - std::int64_t(k)) == 0) return fallback("an empty dimension among the padded ones: PyTorch's to decide");
    // PyTorch's output: at::empty in the input's suggested memory format, filled, the input copied in.
    const c10::MemoryFormat format = self.suggest_memory_format();
    pad_call c = serve_if_layout_fits(self, -l, -r, sizes, strides_of(sizes, format));
    c.format = format;
    c.fill = fill;
    return c;
  }
  // Only crops: PyTorch clones the narrowed input (MemoryFormat::Preserve).
  // As at::empty_like with Preserve: a dense view's own strides, else dense ones in its order.
  const at::Tensor view = self.narrow(-1, -l, length);
  const std::vector<std::int64_t> strides = view.is_non_overlapping_and_dense()
                                                ? std::vector<std::int64_t>(view.strides().begin(), view.strides().end())
                                                : at::infer_dense_strides(view.sizes(), view.strides());
  return serve_if_layout_fits(self, -l, -r, sizes, strides);
}

pad_call decide_slice_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                               std::int64_t end, std::int64_t step) {
  if (!served_dtype(grad.scalar_type()))
    return fallback(words("dtype ", grad.scalar_type(), ": padtune runs float32, float64, float16 and bfloat16"));
  const std::int64_t rank = std::int64_t(input_sizes.size());
  if (rank < 1 || grad.dim() != rank || dim < -rank || dim >= rank) return fallback("sizes or dim PyTorch's to check");
  if ((dim < 0 ? dim + rank : dim) != rank - 1) return fallback(words("a slice of dimension ", dim, ": padtune pads the last dimension only"));
  if (step != 1) return fallback(words("a slice of step ", step, ": padtune copies steps of 1"));
  for (std::int64_t k = 0; k + 1 < rank; ++k)
    if (grad.size(k) != input_sizes[std::size_t(k)]) return fallback("grad_output's sizes are not input_sizes': PyTorch's to refuse");
  // The slice's bounds as aten::slice takes them.
  const std::int64_t size = input_sizes.back();
  if (size < 0) return fallback("a negative size: PyTorch's to refuse");
  if (start < 0) start = start < -size ? 0 : start + size;
  if (end < 0) end = end < -size ? 0 : end + size;
  start = std::min(start, size);
  end = std::clamp(end, start, size);
  if (grad.size(-1) != end - start) return fallback("grad_output's length is not the slice's: PyTorch's to refuse");
  std::vector<std::int64_t> sizes(input_sizes.begin(), input_sizes.end());
  // PyTorch's output: at::zeros of input_sizes (contiguous), the gradient copied into the slice.
  pad_call c = serve_if_layout_fits(grad, -start, -(size - end), sizes, strides_of(sizes, c10::MemoryFormat::Contiguous));
  c.format = c10::MemoryFormat::Contiguous;
  return c;
}

at::Tensor run_served(const at::Tensor& in, const pad_call& c, padtune_backend backend, void* stream, side_stream* side) {
  at::Tensor out = c.format ? at::empty(c.sizes, in.options().memory_format(*c.format))
                           : at::empty_strided(c.sizes, c.strides, in.options());
  run_plan(in, c.how, c.pad_left, c.pad_right, out, backend, stream, side, "padtune (enabled)", c.fill);
  return out;
}

at::Tensor constant_pad_nd(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value, padtune_backend backend,
                           void* stream, side_stream* side) {
  const call_scope scope;
  const pad_call c = decide_constant_pad(self, pad, value);
  count(c.served);
  if (!c.served) return at::compositeexplicitautograd::constant_pad_nd(self, pad, value);
  return run_served(self, c, backend, stream, side);
}

at::Tensor slice_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                          std::int64_t end, std::int64_t step, padtune_backend backend, void* stream, side_stream* side) {
  const call_scope scope;
  const pad_call c = decide_slice_backward(grad, input_sizes, dim, start, end, step);
  count(c.served);
  if (!c.served) return at::compositeexplicitautograd::slice_backward(grad, input_sizes, dim, start, end, step);
  return run_served(grad, c, backend, stream, side);
}

library_filler& cuda_aten_pads() {
  static library_filler filler = nullptr;
  return filler;
}

namespace {
struct registrations;
registrations& held();
bool serving_flag(const registrations& r, c10::DeviceType device);
}  // namespace

bool aten_serving(c10::DeviceType device) { return serving_flag(held(), device); }

namespace {

at::Tensor constant_pad_nd_cpu(const at::Tensor& self, c10::IntArrayRef pad, const c10::Scalar& value) {
  if (!aten_serving(c10::DeviceType::CPU)) return at::compositeexplicitautograd::constant_pad_nd(self, pad, value);
  return constant_pad_nd(self, pad, value, PADTUNE_BACKEND_HOST, nullptr, nullptr);
}

at::Tensor slice_backward_cpu(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                              std::int64_t end, std::int64_t step) {
  if (!aten_serving(c10::DeviceType::CPU))
    return at::compositeexplicitautograd::slice_backward(grad, input_sizes, dim, start, end, step);
  return slice_backward(grad, input_sizes, dim, start, end, step, PADTUNE_BACKEND_HOST, nullptr, nullptr);
}

/// One dispatch key's registration. Once made, the kernels stay registered: PyTorch reads its dispatch
/// table without a lock, so changing it while another thread dispatches the op can crash that thread
/// (a thread toggling enable() beside one padding did, on the CPU). On and off is a flag the kernels
/// read. Only where padtune took the op over from another library's kernel does disable() unregister,
/// to give it back; that, as any registration, wants no other thread running the op.
struct key_registration {
  std::unique_ptr<torch::Library> library;
  std::atomic<bool> serving{false};
  bool took_over = false;  ///< another library's kernel was there before ours
  bool wanted = false;     ///< enable() asked for it (disable() did not since)
  int blocks = 0;          ///< padtune.enabled() blocks open on it, in any thread
};

struct registrations {
  std::mutex mutex;  ///< guards everything but serving, which the kernels read without it
  key_registration cuda, cpu;
};

registrations& held() {
  static registrations* r = new registrations;  // never destroyed: libraries must outlive every call
  return *r;
}

/// Whether another library already gave one of the two ops a kernel for this key.
bool taken(c10::DispatchKey key, std::string* which) {
  for (const char* op : {"aten::constant_pad_nd", "aten::slice_backward"})
    if (c10::Dispatcher::singleton().findSchemaOrThrow(op, "").hasKernelForDispatchKey(key)) {
      *which = op;
      return true;
    }
  return false;
}

/// Throws if registering for `key` would replace another library's kernel and replace_others does not
/// allow it. Changes nothing, so that every key is checked before any is registered. Pre: the mutex.
void check_free(const key_registration& k, c10::DispatchKey key, bool replace_others) {
  if (k.library) return;  // ours already
  std::string which;
  TORCH_CHECK(!taken(key, &which) || replace_others, "padtune.enable: ", which, " already has a ", key,
              " kernel that another library registered; padtune would replace it while enabled (its fallbacks go to "
              "PyTorch's composite, not to that kernel). Pass replace_others=True to do so anyway. Nothing was changed.");
}

/// Registers the kernels for `key` once (check_free first). Pre: the mutex is held.
void register_once(key_registration& k, c10::DispatchKey key, const std::function<void(torch::Library&)>& fill) {
  if (k.library) return;
  std::string which;
  const bool other = taken(key, &which);
  auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", key, __FILE__, __LINE__);
  fill(*lib);
  k.library = std::move(lib);
  k.took_over = other;
}

/// Serves while enable() wants it or a block is open; turned off, an op taken over from another
/// library goes back to it. Pre: the mutex is held.
void settle(key_registration& k) {
  const bool on = k.library && (k.wanted || k.blocks > 0);
  k.serving.store(on, std::memory_order_release);
  if (!on && k.took_over) {
    k.library.reset();
    k.took_over = false;
  }
}

std::int64_t state_of(const registrations& r) {
  return (r.cuda.serving.load() ? 1 : 0) | (r.cpu.serving.load() ? 2 : 0);
}

void fill_cpu(torch::Library& lib) {
  lib.impl("constant_pad_nd", TORCH_FN(constant_pad_nd_cpu));
  lib.impl("slice_backward", TORCH_FN(slice_backward_cpu));
}

/// The keys a call asks for (bit 0: CUDA, where this build has CUDA kernels; bit 1: CPU when `cpu`),
/// each checked, then registered. A refusal of one changes neither. Pre: the mutex is held.
std::int64_t take_keys(registrations& r, bool cpu, bool replace_others) {
  const bool cuda = cuda_aten_pads() != nullptr;
  if (cuda) check_free(r.cuda, c10::DispatchKey::CUDA, replace_others);
  if (cpu) check_free(r.cpu, c10::DispatchKey::CPU, replace_others);
  if (cuda) register_once(r.cuda, c10::DispatchKey::CUDA, cuda_aten_pads());
  if (cpu) register_once(r.cpu, c10::DispatchKey::CPU, fill_cpu);
  return (cuda ? 1 : 0) | (cpu ? 2 : 0);
}

/// enable() (for CUDA tensors, and CPU ones through the host backend when `cpu`: an enable() without
/// it leaves CPU tensors as they were) and disable(), which turns off what enable() turned on (open
/// enabled() blocks serve until they end); returns the state before (bit 0: CUDA, bit 1: CPU).
std::int64_t set_enabled(bool on, bool cpu, bool replace_others) {
  registrations& r = held();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const std::int64_t before = state_of(r);
  if (!on) {
    r.cuda.wanted = r.cpu.wanted = false;
  } else {
    const std::int64_t keys = take_keys(r, cpu, replace_others);
    if (keys & 1) r.cuda.wanted = true;
    if (keys & 2) r.cpu.wanted = true;
  }
  settle(r.cuda);
  settle(r.cpu);
  return before;
}

/// padtune.enabled()'s entry: serves while the block is open, in whatever order blocks of several
/// threads open and close. Returns the keys it holds, for exit_block.
std::int64_t enter_block(bool cpu, bool replace_others) {
  registrations& r = held();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const std::int64_t keys = take_keys(r, cpu, replace_others);
  if (keys & 1) ++r.cuda.blocks;
  if (keys & 2) ++r.cpu.blocks;
  settle(r.cuda);
  settle(r.cpu);
  return keys;
}

/// padtune.enabled()'s exit: the block's keys let go; what enable()/disable() and the other open
/// blocks ask for stays.
std::int64_t exit_block(std::int64_t keys) {
  registrations& r = held();
  const std::lock_guard<std::mutex> lock(r.mutex);
  TORCH_CHECK(((keys & 1) == 0 || r.cuda.blocks > 0) && ((keys & 2) == 0 || r.cpu.blocks > 0),
              "padtune.enabled: a block left that was not entered (keys ", keys, ")");
  if (keys & 1) --r.cuda.blocks;
  if (keys & 2) --r.cpu.blocks;
  settle(r.cuda);
  settle(r.cpu);
  return state_of(r);
}

std::int64_t enabled_state() { return state_of(held()); }

bool serving_flag(const registrations& r, c10::DeviceType device) {
  return (device == c10::DeviceType::CUDA ? r.cuda : r.cpu).serving.load(std::memory_order_acquire);
}

std::vector<std::int64_t> enabled_counts() {
  return {served_calls.load(), fallback_calls.load(), reentered_calls.load()};
}

/// For padtune.explain_pad: "served: ..." or "PyTorch's: ..." and, when served, the backward
/// problem as numbers after a newline: rows, L, pad_left, pad_right (the plan's).
std::string describe_call(const pad_call& c) {
  if (!c.served) return "PyTorch's own: " + c.why;
  return words("padtune: ", c.why, "\n", c.zeros ? 0 : c.how.rows, " ", c.zeros ? 0 : c.how.L, " ",
               c.zeros ? 0 : c.how.pad_left, " ", c.zeros ? 0 : c.how.pad_right, " ", c.zeros ? 1 : 0);
}

std::string describe_pad(const at::Tensor& x, c10::IntArrayRef pad, const c10::Scalar& value) {
  return describe_call(decide_constant_pad(x, pad, value));
}

std::string describe_slice_backward(const at::Tensor& grad, c10::IntArrayRef input_sizes, std::int64_t dim, std::int64_t start,
                                    std::int64_t end, std::int64_t step) {
  return describe_call(decide_slice_backward(grad, input_sizes, dim, start, end, step));
}

}  // namespace
}  // namespace padtune::torch_ext

TORCH_LIBRARY_FRAGMENT(padtune, m) {
  // padtune.enable() / disable() / is_enabled() / enabled_counts() (padtune/_enable.py).
  m.def("_set_enabled(bool on, bool cpu=False, bool replace_others=False) -> int", &padtune::torch_ext::set_enabled);
  m.def("_enabled() -> int", &padtune::torch_ext::enabled_state);
  m.def("_enter_enabled(bool cpu=False, bool replace_others=False) -> int", &padtune::torch_ext::enter_block);
  m.def("_exit_enabled(int keys) -> int", &padtune::torch_ext::exit_block);
  m.def("_enabled_counts() -> int[]", &padtune::torch_ext::enabled_counts);
  // What an enabled padtune does with F.pad(x, pad, value) and with aten::slice_backward's arguments
  // (padtune.explain_pad words it): shapes and strides only.
  m.def("describe_pad(Tensor x, int[] pad, Scalar value=0) -> str");
  m.def("describe_slice_backward(Tensor grad, int[] input_sizes, int dim, int start, int end, int step) -> str");
}

TORCH_LIBRARY_IMPL(padtune, CompositeExplicitAutograd, m) {
  m.impl("describe_pad", &padtune::torch_ext::describe_pad);
  m.impl("describe_slice_backward", &padtune::torch_ext::describe_slice_backward);
}
