#pragma once
// One timed sample on the GPU: the stream, the events and the L2 flush buffer are made once per
// process; a sample optionally flushes L2, records events around one enqueue and waits for it.
// Shared by the tuner's workspace and the benchmarks, so both measure the same way.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <string>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/nvtx.hpp"

namespace padtune::tuner {

class cuda_timer {
 public:
  /// The process-wide timer of the current device; throws std::runtime_error if it cannot be made.
  static cuda_timer& get();

  cudaStream_t stream() const { return stream_; }
  std::size_t flush_bytes() const { return flush_bytes_; }

  /// Enqueues an L2 flush (a write of twice the L2 size) on the timer's stream.
  void flush_l2();

  /// Microseconds of run(stream) between two events, after an L2 flush when cold; run's enqueue
  /// sits inside the NVTX range `name`. Throws std::runtime_error naming `what` on a CUDA error.
  template <class Name>
  double sample(bool cold, const Name& name, const std::function<cudaError_t(cudaStream_t)>& run) {
    if (cold) flush_l2();
    record(start_);
    {
      const nvtx_range range(name);
      check_cuda(run(stream_), "timed launch");
    }
    record(stop_);
    return elapsed_us();
  }

  cuda_timer(const cuda_timer&) = delete;
  cuda_timer& operator=(const cuda_timer&) = delete;

 private:
  cuda_timer();
  void record(cudaEvent_t e);
  double elapsed_us();

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
};

}  // namespace padtune::tuner
