#pragma once
/// padtune::ConstantPad1dBackward<D>: the seed's kernel object in C++, compiled at run time.
///
///   padtune::ConstantPad1dBackward<float> k(2, 3, 16);   // the seed's algorithm, BLOCK_OL 16
///   padtune::jit::loaded_kernel g(k);                      // NVRTC, through the cache; then loaded
///   g.launch(decltype(k)::launch_args{dy, dx, B, C, L, OL}, stream);
#include <cstdint>
#include <tuple>
#include <utility>

#include "padtune/dtype_of.hpp"
#include "padtune/jit/compile.hpp"
#include "padtune/jit/kernel.hpp"
#include "padtune/jit/loaded_kernel.hpp"

namespace padtune {

/// D: float, double, __half or __nv_bfloat16.
template <class D>
class ConstantPad1dBackward : public jit::kernel {
 public:
  /// The launch arguments, in the seed's order: (dy, dx, B, C, L, OL).
  using launch_args = std::tuple<D*, D*, std::int32_t, std::int32_t, std::int32_t, std::int32_t>;

  /// The seed's constructor: the seed's algorithm with these constants.
  ConstantPad1dBackward(std::int32_t pad_left, std::int32_t pad_right, std::int32_t block_ol)
      : jit::kernel(dtype_of<D>(), pad_left, pad_right, block_ol) {}
  /// Any variant of the family (see jit::variant_choice).
  ConstantPad1dBackward(std::int32_t pad_left, std::int32_t pad_right, std::int32_t block_ol, jit::variant_choice choice)
      : jit::kernel(dtype_of<D>(), pad_left, pad_right, block_ol, std::move(choice)) {}
};

}  // namespace padtune
