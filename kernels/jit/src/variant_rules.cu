// Built by nvcc: the rules live in the variants' descriptions (kernels/device/variants.cuh), as
// constexpr and __host__ __device__ code.
#include "variant_rules.hpp"

#include "variants.cuh"

namespace padtune::jit::detail {

namespace pd = padtune::detail;

variant_shape shape_of(std::string_view variant, int elem, int block_ol, int max_threads, int width) {
  variant_shape out;
  pd::for_each_variant([&](auto d) {
    using D = decltype(d);
    if (variant != D::name) return;
    const pd::launch_shape s = D::shape(elem, block_ol, max_threads, width);
    out.threads = s.threads;
    out.access_width = s.access_width;
    out.valid = s.valid;
    out.needs_zeroed_dx = D::needs_zeroed_dx;
    out.rule = D::rule;
  });
  return out;
}

std::uint64_t logical_blocks_of(std::string_view variant, int elem, int block_ol, int width, const void* dy, void* dx,
                                std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right) {
  const pd::pad_args a = pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), rows, L,
                                           pad_left, pad_right, elem);
  std::uint64_t blocks = 0;
  pd::for_each_variant([&](auto d) {
    using D = decltype(d);
    if (variant == D::name) blocks = D::logical_blocks(a, elem, block_ol, width);
  });
  return blocks;
}

}  // namespace padtune::jit::detail
