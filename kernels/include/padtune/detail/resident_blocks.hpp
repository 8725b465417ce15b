#pragma once
// How many blocks of a kernel fit on the current device at once: one wave, the grid of a persistent
// kernel and the JIT's cap. Not public API.
#include <cstdint>

namespace padtune::detail {

/// Blocks of `entry` (a __global__ function or a cudaKernel_t) on threads_per_block threads, without
/// dynamic shared memory, resident at once on the current device; 0 if the runtime cannot say.
/// prefer_shared first asks for the most shared memory per SM (the carveout; L1 gets the rest): a
/// kernel whose blocks' shared memory bounds them gets as many per SM as there is room for, rather
/// than what the driver's default split leaves, and the figure is the one the launch will find.
std::uint64_t resident_blocks(const void* entry, int threads_per_block, bool prefer_shared);

}  // namespace padtune::detail
