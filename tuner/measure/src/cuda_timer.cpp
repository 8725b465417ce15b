#include "padtune/measure/cuda_timer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/cuda_error.hpp"

namespace padtune::tuner {

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cuda_error_text(e)));
}

cuda_timer::cuda_timer() {
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  int l2 = 0;
  check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "cudaDeviceGetAttribute(L2)");
  flush_bytes_ = std::max<std::size_t>(2 * std::size_t(l2), 1 << 20);
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  check_cuda(cudaMalloc(&flush_, flush_bytes_), "cudaMalloc(L2 flush buffer)");
}

cuda_timer& cuda_timer::get() {
  static cuda_timer t;  // never destroyed before the last sample: it lives until exit
  return t;
}

void cuda_timer::flush_l2() { check_cuda(cudaMemsetAsync(flush_, 0x5A, flush_bytes_, stream_), "L2 flush"); }

void cuda_timer::record(cudaEvent_t e) { check_cuda(cudaEventRecord(e, stream_), "cudaEventRecord"); }

double cuda_timer::elapsed_us() {
  check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return double(ms) * 1000.0;
}

}  // namespace padtune::tuner
