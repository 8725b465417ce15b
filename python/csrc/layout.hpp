#pragma once
// How a dy tensor that PyTorch hands over maps onto padtune's problem (contiguous rows of OL
// elements, dx rows of L), without a copy where the memory allows it.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace padtune::torch_ext {

/// The problem to run for one call: dy_data (possibly before dy's first element) read as `rows`
/// rows of `row` elements, with these pads; dx written as `rows` rows of `L'` contiguous elements
/// in the memory order dx_order_for(dy) gives.
struct plan {
  enum class kind { dense, pitched, copy } how = kind::copy;
  std::int64_t rows = 0, row = 0, L = 0, pad_left = 0, pad_right = 0;  ///< the problem, in elements
  std::int64_t dy_offset = 0;  ///< elements between dy.data_ptr() and where the problem's dy starts (<= 0)
  /// pitched only: the frame of the first rows - 1 rows ends inside the storage, the last row's
  /// would not: that row runs as a problem of its own (dy's own OL and pads), after the others.
  bool last_row_apart = false;
  /// copy only: dy's address is not a multiple of its element size (torch.frombuffer at an odd
  /// offset), which no kernel takes: the copy is a fresh allocation, in dy's own layout when dy is dense.
  bool misaligned = false;
};

/// The memory order dx gets for dy (outermost dim first): dy's when dy is non-overlapping and dense,
/// else the logical order (contiguous).
std::vector<std::int64_t> dx_order_for(const at::Tensor& dy);

/// The plan for dy (last dimension OL = pad_left + L + pad_right, L >= 0 already checked):
///  dense   dy's memory is a permutation of a contiguous tensor (contiguous, channels-last): with I
///          the elements of the dims stored inside the last one, rows of OL*I and pads times I;
///  pitched the last dim has stride 1 and the other dims walk rows at one pitch P >= OL (a narrow,
///          a slice, a piece of cat's backward): rows of P, read from the storage around dy, when
///          that stays inside dy's storage and gives the same zeros (or, for pad_right >= 0, the
///          first rows so and the last row apart);
///  copy    anything else: the caller makes dy contiguous (dense, I = 1); also a dy whose address is
///          not aligned to its element size, which the caller copies to fresh memory (dense: in dy's
///          memory order, with the dense plan; else contiguous).
/// dx_order is dx_order_for(dy), which the caller computes once to allocate dx.
plan plan_for(const at::Tensor& dy, const std::vector<std::int64_t>& dx_order, std::int64_t pad_left,
              std::int64_t pad_right);

}  // namespace padtune::torch_ext
