#include "padtune/measure/guarded_dx.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/measure/device_helpers.hpp"
#include "padtune/measure/workspace.hpp"

namespace padtune::tuner {
guarded_dx::guarded_dx(std::size_t bytes) : bytes_(bytes) {
  check_cuda(cudaMalloc(&buffer_, bytes + 2 * guard_bytes), "cudaMalloc(dx)");
  if (const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&answer_), sizeof *answer_); e != cudaSuccess) {
    cudaFree(buffer_);
    check_cuda(e, "cudaMalloc(comparison's answer)");
  }
}

guarded_dx::~guarded_dx() {
  cudaFree(answer_);
  cudaFree(buffer_);
}

void guarded_dx::prepare(unsigned char fill) {
  check_cuda(cudaMemset(buffer_, guard_byte, bytes_ + 2 * guard_bytes), "cudaMemset(guards)");
  check_cuda(cudaMemset(get(), fill, bytes_), "cudaMemset(dx)");
}

std::string guarded_dx::compare(const void* reference) const {
  check_cuda(cudaDeviceSynchronize(), "the kernel");
  std::int64_t at = -1;
  check_cuda(first_difference(get(), reference, bytes_, answer_, &at), "comparing dx with the reference");
  if (at >= 0)
    return fmt::format("dx differs from the reference at byte {}", at);
  unsigned char guards[2 * guard_bytes];
  check_cuda(cudaMemcpy(guards, buffer_, guard_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check_cuda(cudaMemcpy(guards + guard_bytes, static_cast<const unsigned char*>(get()) + bytes_, guard_bytes,
                   cudaMemcpyDeviceToHost), "cudaMemcpy");
  if (std::any_of(std::begin(guards), std::end(guards), [](unsigned char b) { return b != guard_byte; }))
    return "a guard byte around dx was overwritten";
  return "";
}

}  // namespace padtune::tuner
