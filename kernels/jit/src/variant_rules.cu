// Built by nvcc: the rules live in the device headers, as constexpr and __host__ __device__ code.
#include "variant_rules.hpp"

#include "ewise.cuh"
#include "flat.cuh"
#include "rowelem.cuh"
#include "rowtile.cuh"
#include "seed.cuh"
#include "staged.cuh"

namespace padtune::jit::detail {

namespace pd = padtune::detail;

// The chunked variants' rule, in words (staged adds its stage), for the error that refuses a configuration.
#define PADTUNE_CHUNKED_RULE                                                                                       \
  "width is 4, 8 or 16 and at least the element size; a tile of BLOCK_OL elements is chunks of width bytes, at least " \
  "one; threads = min(chunks, max_threads) must divide them, hold at least width / element size threads, give each "   \
  "thread at most 16 chunks and be at most 1024"
constexpr const char chunked_rule[] = PADTUNE_CHUNKED_RULE;
constexpr const char staged_rule[] = PADTUNE_CHUNKED_RULE "; the stage, 1.25 * BLOCK_OL * element size + 64 bytes, at most 48 KB";
#undef PADTUNE_CHUNKED_RULE

variant_shape shape_of(std::string_view variant, int elem, int block_ol, int max_threads, int width) {
  pd::launch_shape s;
  variant_shape out;
  if (variant == "seed" || variant == "ewise") {
    s = pd::seed_shape(elem, block_ol, max_threads);
    out.needs_zeroed_dx = variant == "seed" ? pd::seed_kernel<float, 1, 1, 0>::needs_zeroed_dx  // constants of the variants
                                            : pd::ewise_kernel<float, 1, 1, 0>::needs_zeroed_dx;
    out.rule = "threads = min(BLOCK_OL, max_threads) must divide BLOCK_OL, at most 1024";
  } else if (variant == "rowelem") {
    s = pd::rowelem_shape(elem, block_ol, max_threads);
    out.needs_zeroed_dx = pd::rowelem_kernel<float, 1, 1, 0>::needs_zeroed_dx;
    out.rule = "threads = min(BLOCK_OL, max_threads) must divide BLOCK_OL, at most 1024, with at most 16 elements each";
  } else if (variant == "rowtile" || variant == "flat" || variant == "flatvec" || variant == "staged") {
    s = pd::chunked_shape(elem, block_ol, max_threads, width);
    if (variant == "staged") s.valid = s.valid && pd::stage_bytes_of(elem, block_ol) <= pd::max_stage_bytes;
    out.needs_zeroed_dx = variant == "rowtile" ? pd::rowtile_kernel<float, 64, 16, 16>::needs_zeroed_dx
                                               : pd::flat_kernel<float, 64, 16, 16>::needs_zeroed_dx;
    out.rule = variant == "staged" ? staged_rule : chunked_rule;
  } else {
    return out;
  }
  out.threads = s.threads;
  out.access_width = s.access_width;
  out.valid = s.valid;
  return out;
}

std::uint64_t logical_blocks_of(std::string_view variant, int elem, int block_ol, int width, const void* dy, void* dx,
                                std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right) {
  const pd::pad_args a = pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), rows, L,
                                           pad_left, pad_right, elem);
  if (variant == "seed") return pd::plan_seed(a, block_ol).num_blocks;
  if (variant == "rowtile" || variant == "rowelem") return pd::plan_rowtile(a, block_ol).num_blocks;
  if (variant == "ewise") return pd::plan_ewise(a, block_ol).num_blocks;
  return pd::plan_flat(a, elem, width, block_ol * elem / width).num_blocks;  // flat, flatvec and staged
}

}  // namespace padtune::jit::detail
