#pragma once
// How many blocks of a kernel fit on the current device at once: one wave, the grid of a persistent
// kernel and the JIT's cap. Not public API.
#include <cstdint>

namespace padtune::detail {

/// Blocks of `entry` (a __global__ function or a cudaKernel_t) on threads_per_block threads, without
/// dynamic shared memory, resident at once on the current device; 0 if the runtime cannot say.
std::uint64_t resident_blocks(const void* entry, int threads_per_block);

}  // namespace padtune::detail
