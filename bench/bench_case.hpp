#pragma once
// The buffers of one (dtype, shape) of the benchmark: dy with fresh random non-zero data, dx with
// guard bytes on both sides, the Thrust reference's dx, and the memcpy floor measured once when
// the case is made. Rows verify their output against the reference before they are timed.
#include <cuda_runtime_api.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "padtune/measure/guarded_dx.hpp"
#include "padtune/registry.hpp"
#include "padtune/table.hpp"

namespace padtune::bench {

/// One enqueue of a benchmark row on a stream; throws on failure (padtune::error, runtime_error).
using enqueue_fn = std::function<cudaError_t(cudaStream_t)>;

class bench_case {
 public:
  /// Keeps one case alive at a time (the largest take tens of GB); makes it on first use.
  static bench_case& current(dtype type, const shape5& s);

  bench_case(dtype type, const shape5& s);
  bench_case(const bench_case&) = delete;
  bench_case& operator=(const bench_case&) = delete;

  problem on_dx() const;           ///< the problem writing dx
  void* dx() const { return dx_.get(); }
  const void* dy() const { return dy_.get(); }
  const void* reference() const { return ref_.get(); }
  std::size_t dx_bytes() const { return dx_.bytes(); }
  long long payload_bytes() const { return 2 * (long long)dx_.bytes(); }  ///< dx written + as much of dy read
  double floor_us() const { return floor_us_; }  ///< median of the L2-cold memcpy floor, this run

  /// "" if run writes exactly the reference's bytes into dx (poisoned first; guards intact).
  std::string verify(const enqueue_fn& run);

  /// The fastest instantiation of `variant` for this case, by a short L2-cold pre-selection among
  /// those that verify; cached per variant.
  struct pick {
    const instantiation* inst = nullptr;  ///< nullptr if none verified (or the dtype has none)
    std::string failures;                 ///< the ids that failed verification, and why
  };
  const pick& best_of(const std::string& variant);

 private:
  struct cuda_free {
    void operator()(void* p) const { cudaFree(p); }
  };
  using device_ptr = std::unique_ptr<void, cuda_free>;
  static device_ptr allocate(std::size_t bytes, const char* what);

  dtype type_;
  shape5 shape_;
  tuner::guarded_dx dx_;
  device_ptr dy_, ref_;
  double floor_us_ = 0;
  std::map<std::string, pick> best_;
};

/// Times one sample of `run` with the tuner's timer: L2 flush, events, NVTX range `name`.
double sample_us(const std::string& name, const enqueue_fn& run, bool cold = true);

/// The enqueue of instantiation `inst` on the case, with the zeroing of dx that the seed needs.
enqueue_fn launch_of(const bench_case& c, const instantiation& inst);

}  // namespace padtune::bench
