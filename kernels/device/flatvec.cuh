#pragma once
// flat with wide loads: where a chunk of dx lies in one row (valid_end <= L keeps it there), its
// source is read with one or two aligned W-byte loads and realigned in registers rather than
// gathered element by element; other chunks gather as flat does. For short rows of 16-bit types.
#include "flat.cuh"

namespace padtune::detail {

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
using flatvec_kernel = flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true>;

/// flatvec's description (variants.cuh): flat's plan, rule and tiles, so that each tile is compared
/// with and without wide loads.
struct flatvec_variant : flat_variant {
  static constexpr const char* name = "flatvec";
  static constexpr const char* idea =
      "flat, but a chunk that lies in one row reads its source with one or two aligned W-byte loads realigned in "
      "registers";
  template <class T, int BLOCK_OL, int MAX_THREADS, int W> using kernel = flatvec_kernel<T, BLOCK_OL, MAX_THREADS, W>;
};

}  // namespace padtune::detail
