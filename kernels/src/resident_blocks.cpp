#include "padtune/detail/resident_blocks.hpp"

#include <cuda_runtime_api.h>

namespace padtune::detail {

std::uint64_t resident_blocks(const void* entry, int threads_per_block, bool prefer_shared) {
  int device = 0, sms = 0, per_sm = 0;
  if ((prefer_shared &&
       cudaFuncSetAttribute(entry, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared) !=
           cudaSuccess) ||
      cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, entry, threads_per_block, 0) != cudaSuccess) {
    cudaGetLastError();  // a failed query is no error of the launch that follows
    return 0;
  }
  return std::uint64_t(sms) * std::uint64_t(per_sm);
}

}  // namespace padtune::detail
