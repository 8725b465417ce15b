#pragma once
// The launch-floor benchmark's kernels (launch_floor_kernels.cu), behind plain launch functions.
#include <cuda_runtime_api.h>

namespace padtune::bench {

cudaError_t launch_empty(cudaStream_t s);
/// Copies `words` 4-byte words, one per thread, 256 threads per block.
cudaError_t launch_word_copy(const void* src, void* dst, unsigned words, cudaStream_t s);
/// The same, its arguments in a __grid_constant__ block of about 128 bytes (as padtune's kernels).
cudaError_t launch_word_copy_big_params(const void* src, void* dst, unsigned words, cudaStream_t s);

}  // namespace padtune::bench
