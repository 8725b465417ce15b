#include "padtune/measure/cuda_timer.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/cuda_error.hpp"

namespace padtune::tuner {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cuda_error_text(e)));
}

cuda_timer::cuda_timer() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  cold_ = std::make_unique<detail::l2_cold_timer>(stream_, /*pooled=*/false);
  check_cuda(cold_->status(), "cudaDeviceGetAttribute(L2)");
  if (!cold_->flushes()) check_cuda(cudaErrorMemoryAllocation, "cudaMalloc(L2 flush buffer)");  // a tune is never timed warm
}

cuda_timer& cuda_timer::get() {
  // Never destroyed: samples may be taken until exit, and CUDA is torn down at exit before statics.
  static cuda_timer* const t = new cuda_timer;
  return *t;
}

void cuda_timer::flush_l2() { check_cuda(cold_->flush(0x5A), "L2 flush"); }

double cuda_timer::elapsed_us() {
  check_cuda(cold_->wait(0), "cudaEventSynchronize");
  double us = 0;
  check_cuda(cold_->elapsed_us(0, us), "cudaEventElapsedTime");
  return us;
}

}  // namespace padtune::tuner
