#pragma once
// The L2-cold timing protocol, written once: padtune tune's timer (tuner/measure) and the runtime's
// first-use timing (runtime/src/autotune.cpp) both take their samples through it. Before a cold run a
// write of twice the L2 evicts whatever the run would read, so that the run reads its input from
// memory, as it does in a training step; a pair of events brackets the run's enqueue alone, and the
// sample is their elapsed time. Calls return the CUDA error, for each caller to throw in its own way.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

namespace padtune::detail {

class l2_cold_timer {
 public:
  /// A flush buffer of twice the current device's L2 (at least 1 MiB) and event pairs on `stream`.
  /// `pooled`: the buffer comes from the stream-ordered pool (no device-wide synchronization; what a
  /// library inside a user's program needs), falling back to cudaMalloc. Where neither has the
  /// memory, flushes() is false and cold runs are timed with what L2 holds.
  l2_cold_timer(cudaStream_t stream, bool pooled);
  /// After the stream's work, which the buffer and events serve. Errors here are nobody's.
  ~l2_cold_timer();
  l2_cold_timer(const l2_cold_timer&) = delete;
  l2_cold_timer& operator=(const l2_cold_timer&) = delete;

  /// cudaSuccess, or why the L2 size could not be read (then nothing else works).
  cudaError_t status() const { return status_; }
  bool flushes() const { return flush_ != nullptr; }
  std::size_t flush_bytes() const { return flush_bytes_; }

  /// Enqueues the write of the flush buffer (each byte `byte`); nothing where flushes() is false.
  cudaError_t flush(unsigned char byte);
  /// Records event pair `slot`'s start or stop on the stream (pairs are made as first used).
  cudaError_t start(std::size_t slot);
  cudaError_t stop(std::size_t slot);
  /// Waits for pair `slot`'s stop event.
  cudaError_t wait(std::size_t slot) const;
  /// Microseconds between pair `slot`'s events, once its stop has completed (wait first).
  cudaError_t elapsed_us(std::size_t slot, double& us) const;

 private:
  cudaStream_t stream_ = nullptr;
  cudaError_t status_ = cudaSuccess;
  bool pooled_ = false;
  void* flush_ = nullptr;
  std::size_t flush_bytes_ = 0;
  std::vector<cudaEvent_t> events_;
};

}  // namespace padtune::detail
