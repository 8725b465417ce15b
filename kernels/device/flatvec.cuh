#pragma once
// flat with wide loads: where a chunk of dx lies in one row (valid_end <= L keeps it there), its
// source is read with one or two aligned W-byte loads and realigned in registers rather than
// gathered element by element; other chunks gather as flat does. For short rows of 16-bit types.
#include "flat.cuh"

namespace padtune::detail {

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
using flatvec_kernel = flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true>;

}  // namespace padtune::detail
