#pragma once
// The grid-stride loop over a plan's logical blocks.
#include "host_device.cuh"

namespace padtune::detail {

/// The grid-stride loop: the CUDA side of a JIT launch, and of an ahead-of-time launch whose plan
/// has more blocks than gridDim.x can hold (or that a test forces onto a small grid); every other
/// ahead-of-time launch gives each logical block its own CUDA block (launch.cuh).
/// Pre: 1 <= gridDim.x <= p.num_blocks (every launcher takes min(num_blocks, a cap) from the same plan,
/// and launches nothing when it is 0). So the first block runs without testing num_blocks: the test
/// waits for a parameter load, and L2-cold that serialized a constant-cache miss before the first
/// load of dy (P9: 2.40 us in Nsight Compute against Triton's 2.14, docs/performance-notes.md v10).
template <class K> __device__ __forceinline__ void run_grid(const typename K::params& p) {
  std::uint64_t b = blockIdx.x;
  do K::run(p, b, threadIdx.x);
  while ((b += gridDim.x) < p.num_blocks);
}
}  // namespace padtune::detail
