#include "padtune/detail/l2_cold_timer.hpp"

#include <algorithm>

namespace padtune::detail {

l2_cold_timer::l2_cold_timer(cudaStream_t stream, bool pooled) : stream_(stream) {
  int device = 0, l2 = 0;
  status_ = cudaGetDevice(&device);
  if (status_ == cudaSuccess) status_ = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
  if (status_ != cudaSuccess) return;
  flush_bytes_ = std::max<std::size_t>(2 * std::size_t(l2), std::size_t(1) << 20);
  if (pooled && cudaMallocAsync(&flush_, flush_bytes_, stream_) == cudaSuccess) {
    pooled_ = true;
    return;
  }
  cudaGetLastError();
  flush_ = nullptr;
  if (cudaMalloc(&flush_, flush_bytes_) != cudaSuccess) {
    cudaGetLastError();
    flush_ = nullptr;
  }
}

l2_cold_timer::~l2_cold_timer() {
  if (flush_ && pooled_) cudaFreeAsync(flush_, stream_);
  cudaStreamSynchronize(stream_);
  for (cudaEvent_t e : events_) cudaEventDestroy(e);
  if (flush_ && !pooled_) cudaFree(flush_);
  cudaGetLastError();
}

cudaError_t l2_cold_timer::flush(unsigned char byte) {
  return flush_ ? cudaMemsetAsync(flush_, byte, flush_bytes_, stream_) : cudaSuccess;
}

cudaError_t l2_cold_timer::start(std::size_t slot) {
  while (events_.size() < 2 * slot + 2) {
    cudaEvent_t e = nullptr;
    if (const cudaError_t r = cudaEventCreate(&e); r != cudaSuccess) return r;
    events_.push_back(e);
  }
  return cudaEventRecord(events_[2 * slot], stream_);
}

cudaError_t l2_cold_timer::stop(std::size_t slot) {
  return 2 * slot + 1 < events_.size() ? cudaEventRecord(events_[2 * slot + 1], stream_) : cudaErrorInvalidValue;
}

cudaError_t l2_cold_timer::wait(std::size_t slot) const {
  return 2 * slot + 1 < events_.size() ? cudaEventSynchronize(events_[2 * slot + 1]) : cudaErrorInvalidValue;
}

cudaError_t l2_cold_timer::elapsed_us(std::size_t slot, double& us) const {
  if (2 * slot + 1 >= events_.size()) return cudaErrorInvalidValue;
  float ms = 0;
  const cudaError_t r = cudaEventElapsedTime(&ms, events_[2 * slot], events_[2 * slot + 1]);
  us = double(ms) * 1e3;
  return r;
}

}  // namespace padtune::detail
