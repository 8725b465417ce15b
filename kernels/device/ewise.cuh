#pragma once
// Element-wise copy for tiny problems: one thread per dx element, the fill included, no memset, and as
// little code as a copy can have. On problems of a few KB a launch is latency, not bandwidth: the
// chunked variants' larger code (unrolled chunks, head and tail loops) costs about 0.3 us there
// L2-cold, which a one-word-per-thread copy kernel does not pay (padtune_bench's kernel_copy row).
#include "bits.cuh"
#include "divmod.cuh"
#include "pad_args.cuh"
#include "shapes.cuh"

namespace padtune::detail {

/// dx as one flat index space of rows * L elements, BLOCK_OL per block.
struct ewise_params {
  pad_args a;
  fast_divmod row_len;  ///< L
  std::uint64_t elements = 0;
  std::uint64_t num_blocks = 0;
};

PADTUNE_HD ewise_params plan_ewise(const pad_args& a, int block_ol) {
  ewise_params p;
  p.a = a;
  p.elements = std::uint64_t(a.rows) * std::uint64_t(a.L);
  if (p.elements == 0) return p;
  p.row_len = fast_divmod(std::uint64_t(a.L));
  p.num_blocks = ceil_div(p.elements, block_ol);
  return p;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int W> struct ewise_kernel;

/// ewise's description (variants.cuh): the element rule (shapes.cuh); the configurations give every
/// thread one element.
struct ewise_variant {
  static constexpr const char* name = "ewise";
  static constexpr const char* idea =
      "for tiny problems: one thread per dx element, the fill included, as little code as a copy can have";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = ewise_kernel<T, BLOCK_OL, MAX_THREADS, W>;
  static constexpr config configs[] = {{64, 64, 0}, {128, 128, 0}, {256, 256, 0}, {512, 512, 0}, {1024, 1024, 0}};
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool takes_width = false;
  static constexpr const char* rule = "threads = min(BLOCK_OL, max_threads) must divide BLOCK_OL, at most 1024";
  __host__ __device__ static constexpr launch_shape shape(int elem, int block_ol, int max_threads, int) {
    return element_shape(elem, block_ol, max_threads);
  }
  static PADTUNE_HD std::uint64_t logical_blocks(const pad_args& a, int, int block_ol, int) {
    return plan_ewise(a, block_ol).num_blocks;
  }
};

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct ewise_kernel {
  static_assert(W == 0, "one element per access: the configurations give no access width");
  static constexpr launch_shape shape = ewise_variant::shape(sizeof(T), BLOCK_OL, MAX_THREADS, W);
  static constexpr int elem = sizeof(T);
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int items = shape.items;  ///< elements per thread
  static constexpr bool needs_zeroed_dx = ewise_variant::needs_zeroed_dx;
  static constexpr bool valid = shape.valid;

  using params = ewise_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_ewise(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    for (int k = 0; k < items; ++k) {
      const std::uint64_t e = block * BLOCK_OL + std::uint64_t(k) * threads + thread;
      if (e >= p.elements) return;
      std::uint64_t row, i;
      p.row_len.divmod(e, row, i);
      copy_element<elem>(p.a, std::int64_t(row), std::int64_t(i));
    }
  }
};

}  // namespace padtune::detail
