#include "layout.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace padtune::torch_ext {
namespace {

/// dy's dims, outermost in memory first: a stable sort by stride, so that C++ and the fake
/// implementation (padtune/_fake.py, which sorts the same way) give dx the same strides.
std::vector<std::int64_t> memory_order(const at::Tensor& dy) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(dy.dim()));
  std::iota(order.begin(), order.end(), 0);
  const auto strides = dy.strides();
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return strides[a] > strides[b]; });
  return order;
}

plan dense(const at::Tensor& dy, const std::vector<std::int64_t>& order, std::int64_t pad_left, std::int64_t pad_right,
           plan::kind how) {
  const std::int64_t last = dy.dim() - 1;
  const auto at_last = std::find(order.begin(), order.end(), last);
  std::int64_t rows = 1, inner = 1;
  for (auto d = order.begin(); d != at_last; ++d) rows *= dy.size(*d);
  for (auto d = at_last + 1; d != order.end(); ++d) inner *= dy.size(*d);
  const std::int64_t OL = dy.size(last);
  plan p;
  p.how = how;
  p.rows = rows;
  p.row = OL * inner;
  p.L = (OL - pad_left - pad_right) * inner;
  p.pad_left = pad_left * inner;
  p.pad_right = pad_right * inner;
  return p;
}

}  // namespace

std::vector<std::int64_t> dx_order_for(const at::Tensor& dy) {
  if (!dy.is_contiguous() && dy.is_non_overlapping_and_dense()) return memory_order(dy);
  std::vector<std::int64_t> identity(static_cast<std::size_t>(dy.dim()));
  std::iota(identity.begin(), identity.end(), 0);
  return identity;
}

plan plan_for(const at::Tensor& dy, const std::vector<std::int64_t>& dx_order, std::int64_t pad_left,
              std::int64_t pad_right) {
  const std::int64_t last = dy.dim() - 1;
  const bool dense_layout = dy.is_contiguous() || dy.is_non_overlapping_and_dense();
  if (reinterpret_cast<std::uintptr_t>(dy.const_data_ptr()) % std::uintptr_t(dy.element_size()) != 0) {
    // dx_order is dy's memory order where dy is dense, else the logical one: the copy's either way.
    plan p = dense(dy, dx_order, pad_left, pad_right, plan::kind::copy);
    p.misaligned = true;
    return p;
  }
  if (dense_layout) return dense(dy, dx_order, pad_left, pad_right, plan::kind::dense);

  // Pitched: unit stride along the row, and the leading dims (size-1 ones aside) one walk of rows.
  const std::int64_t OL = dy.size(last);
  std::int64_t rows = 1, pitch = -1, expected = -1;
  bool walk = dy.stride(last) == 1 || OL == 1;
  for (std::int64_t d = last - 1; walk && d >= 0; --d) {
    if (dy.size(d) == 1) continue;
    if (pitch < 0) {
      pitch = dy.stride(d);
      walk = pitch >= OL;
    } else {
      walk = dy.stride(d) == expected;
    }
    expected = dy.stride(d) * dy.size(d);
    rows *= dy.size(d);
  }
  if (walk && pitch > 0) {
    // One frame of rows of `pitch` elements, starting `off` elements before dy's first (pads grow by
    // off): it must stay inside the storage and read no neighbour where the contract wants a zero.
    const std::int64_t item = std::int64_t(dy.element_size());
    const std::int64_t storage = std::int64_t(dy.storage().nbytes()) / item, first = dy.storage_offset();
    const std::int64_t over = first + rows * pitch - storage;  // how far the last row's frame runs past
    std::int64_t off = -1;
    bool apart = false;
    if (pad_right >= 0) {  // reads stop at pad_left + L <= OL: a frame longer on the right is harmless
      const std::int64_t need = std::max<std::int64_t>(0, over);
      if (need <= first && need <= pitch - OL && (pad_left >= 0 || need == 0)) {
        off = need;
      } else if (rows >= 2) {  // the other rows' frames end inside the storage: the last one alone
        off = 0;
        apart = true;
      }
    } else if (pitch - OL <= first && (pad_left >= 0 || pitch == OL)) {
      off = pitch - OL;  // the frame's rows end where dy's do: pad_right keeps its zeros
    }
    if (off >= 0) {
      plan p;
      p.how = plan::kind::pitched;
      p.rows = rows;
      p.row = pitch;
      p.L = OL - pad_left - pad_right;
      p.pad_left = pad_left + off;
      p.pad_right = pitch - OL - off + pad_right;
      p.dy_offset = -off;
      p.last_row_apart = apart;
      return p;
    }
  }
  return dense(dy, dx_order, pad_left, pad_right, plan::kind::copy);  // the logical order: dy is not dense
}

}  // namespace padtune::torch_ext
