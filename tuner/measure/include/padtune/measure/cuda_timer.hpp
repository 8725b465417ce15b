#pragma once
// One timed sample on the GPU: the stream, the events and the L2 flush buffer are made once per
// process; a sample optionally flushes L2, records events around one enqueue and waits for it.
// Shared by the tuner's workspace and the benchmarks, so both measure the same way; the protocol
// itself is the runtime's (padtune/detail/l2_cold_timer.hpp), which first-use timing uses too.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "padtune/detail/l2_cold_timer.hpp"
#include "padtune/measure/cuda_check.hpp"
#include "padtune/nvtx.hpp"

namespace padtune::tuner {

class cuda_timer {
 public:
  /// The process-wide timer of the current device; throws std::runtime_error if it cannot be made.
  static cuda_timer& get();

  cudaStream_t stream() const { return stream_; }
  std::size_t flush_bytes() const { return cold_->flush_bytes(); }

  /// Enqueues an L2 flush (a write of twice the L2 size) on the timer's stream.
  void flush_l2();

  /// Microseconds of run(stream) between two events, after an L2 flush when cold; run's enqueue
  /// sits inside the NVTX range `name`. Throws std::runtime_error naming `what` on a CUDA error.
  template <class Name>
  double sample(bool cold, const Name& name, const std::function<cudaError_t(cudaStream_t)>& run) {
    if (cold) flush_l2();
    check_cuda(cold_->start(0), "cudaEventRecord");
    {
      const nvtx_range range(name);
      check_cuda(run(stream_), "timed launch");
    }
    check_cuda(cold_->stop(0), "cudaEventRecord");
    return elapsed_us();
  }

  cuda_timer(const cuda_timer&) = delete;
  cuda_timer& operator=(const cuda_timer&) = delete;

 private:
  cuda_timer();
  double elapsed_us();

  cudaStream_t stream_ = nullptr;
  std::unique_ptr<detail::l2_cold_timer> cold_;
};

}  // namespace padtune::tuner
