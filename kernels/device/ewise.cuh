#pragma once
// Element-wise copy for tiny problems: one thread per dx element, zeros included, no memset, and as
// little code as a copy can have. On problems of a few KB a launch is latency, not bandwidth: the
// chunked variants' larger code (unrolled chunks, head and tail loops) costs about 0.3 us there
// L2-cold, which a one-word-per-thread copy kernel does not pay (padtune_bench's kernel_copy row).
#include "seed.cuh"

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

/// The seed's launch shape (threads = min(BLOCK_OL, MAX_THREADS), one element per access); the
/// configurations give every thread one element.
template <class T, int BLOCK_OL, int MAX_THREADS, int /*W: one element per access*/>
struct ewise_kernel {
  static constexpr launch_shape shape = seed_shape(sizeof(T), BLOCK_OL, MAX_THREADS);
  static constexpr int elem = sizeof(T);
  static constexpr int threads = shape.threads;
  static constexpr int access_width = shape.access_width;
  static constexpr int per_thread = shape.items;
  static constexpr bool needs_zeroed_dx = false;
  static constexpr bool valid = shape.valid;

  using params = ewise_params;
  static PADTUNE_HD params make_params(const pad_args& a) { return plan_ewise(a, BLOCK_OL); }

  static PADTUNE_HD void run(const params& p, std::uint64_t block, unsigned thread) {
    for (int k = 0; k < per_thread; ++k) {
      const std::uint64_t e = block * BLOCK_OL + std::uint64_t(k) * threads + thread;
      if (e >= p.elements) return;
      std::uint64_t row, i;
      p.row_len.divmod(e, row, i);
      copy_element<elem>(p.a, std::int64_t(row), std::int64_t(i));
    }
  }
};

}  // namespace padtune::detail
