#include "autotune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "padtune/cuda_error.hpp"
#include "padtune/enqueue.hpp"
#include "padtune/error.hpp"

namespace padtune::detail {
namespace {

constexpr int max_rounds = 30;
constexpr double round_budget_us = 5000;  // of kernel time over the timed rounds, where rounds allow

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw error(status::launch_failed, fmt::format("autotune: {} failed: {}", what, cuda_error_text(e)));
}

void run(const instantiation& inst, backend b, const problem& p, cudaStream_t stream) {
  check_cuda(enqueue_checked(inst, b, p, stream), inst.id.c_str());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// The calling thread may make calls a global-mode capture on another thread forbids (cudaMalloc,
/// synchronization): this thread captures nothing while it times. Restored on scope exit.
class relaxed_capture_mode {
  cudaStreamCaptureMode mode_ = cudaStreamCaptureModeRelaxed;

 public:
  relaxed_capture_mode() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  ~relaxed_capture_mode() { cudaThreadExchangeStreamCaptureMode(&mode_); }
  relaxed_capture_mode(const relaxed_capture_mode&) = delete;
  relaxed_capture_mode& operator=(const relaxed_capture_mode&) = delete;
};

/// Device memory and events, released on scope exit (after the stream's work, which they serve).
/// The flush buffer comes from CUDA's stream-ordered pool: no device-wide synchronization, and none
/// of PyTorch's cached memory is needed; where the pool is not supported, from cudaMalloc.
struct cuda_scratch {
  void* flush = nullptr;
  bool pooled = false;
  std::size_t flush_bytes = 0;
  std::vector<cudaEvent_t> events;
  cudaStream_t stream = nullptr;
  ~cuda_scratch() {
    if (flush && pooled) cudaFreeAsync(flush, stream);
    cudaStreamSynchronize(stream);
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    if (flush && !pooled) cudaFree(flush);
    cudaGetLastError();  // a failure here is not the caller's error
  }
};

finalist_timings time_on_cuda(const instantiation* const* finalists, std::size_t count, const problem& p,
                              cudaStream_t stream, int rounds) {
  const relaxed_capture_mode relaxed;
  rounds = std::min(rounds, max_rounds);
  cuda_scratch s;
  s.stream = stream;
  int device = 0, l2 = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "asking the L2 size");
  finalist_timings out;
  // Twice the L2 written before each run, so that the run reads dy from memory, as it will in a
  // training step: where that much memory is not free, the runs are timed with what L2 holds.
  s.flush_bytes = 2 * std::size_t(l2);
  if (s.flush_bytes && cudaMallocAsync(&s.flush, s.flush_bytes, stream) == cudaSuccess) {
    s.pooled = true;
  } else if (s.flush_bytes) {
    cudaGetLastError();
    s.flush = nullptr;
    if (cudaMalloc(&s.flush, s.flush_bytes) != cudaSuccess) {
      cudaGetLastError();
      s.flush = nullptr;
    }
  }
  out.l2_flushed = s.flush != nullptr;
  // Events in pairs, one pair per run, made as the slots are first used: slot k is the first round's
  // run of finalist k, slot (r + 1) * count + k timed round r's.
  const auto timed_run = [&](std::size_t slot, std::size_t k) {
    for (std::size_t e = s.events.size(); e < 2 * slot + 2; ++e)
      check_cuda(cudaEventCreate(&s.events.emplace_back()), "cudaEventCreate");
    check_cuda(cudaEventRecord(s.events[2 * slot], stream), "cudaEventRecord");
    run(*finalists[k], backend::cuda, p, stream);
    check_cuda(cudaEventRecord(s.events[2 * slot + 1], stream), "cudaEventRecord");
  };
  const auto elapsed_us = [&](std::size_t slot) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, s.events[2 * slot], s.events[2 * slot + 1]), "cudaEventElapsedTime");
    return double(ms) * 1e3;
  };
  // The first round is timed too, roughly, to size the others: small problems (a few microseconds,
  // where noise is a few percent) get more rounds, up to max_rounds, large ones at least `rounds`.
  for (std::size_t k = 0; k < count; ++k) timed_run(k, k);
  check_cuda(cudaStreamSynchronize(stream), "waiting for the first round");
  double round_us = 0;
  for (std::size_t k = 0; k < count; ++k) round_us += elapsed_us(k);
  rounds = std::clamp(int(round_budget_us / std::max(round_us, 1.0)), rounds, max_rounds);
  for (int r = 0; r < rounds; ++r)
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t k = (j + std::size_t(r)) % count;  // no finalist always runs first or last
      if (s.flush) check_cuda(cudaMemsetAsync(s.flush, r & 0xff, s.flush_bytes, stream), "the L2 flush");
      timed_run((std::size_t(r) + 1) * count + k, k);
    }
  check_cuda(cudaStreamSynchronize(stream), "waiting for the timed runs");
  for (std::size_t k = 0; k < count; ++k) {
    std::vector<double> us;
    for (int r = 0; r < rounds; ++r) us.push_back(elapsed_us((std::size_t(r) + 1) * count + k));
    out.runs.push_back({finalists[k], median(std::move(us))});
  }
  return out;
}

finalist_timings time_on_host(const instantiation* const* finalists, std::size_t count, const problem& p, int rounds) {
  finalist_timings out;
  std::vector<std::vector<double>> us(count);
  for (std::size_t k = 0; k < count; ++k) run(*finalists[k], backend::host, p, nullptr);  // untimed, as on CUDA
  for (int r = 0; r < rounds; ++r)
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t k = (j + std::size_t(r)) % count;
      const auto start = std::chrono::steady_clock::now();
      run(*finalists[k], backend::host, p, nullptr);
      us[k].push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
  for (std::size_t k = 0; k < count; ++k) out.runs.push_back({finalists[k], median(std::move(us[k]))});
  return out;
}

}  // namespace

finalist_timings time_finalists(const instantiation* const* finalists, std::size_t count, backend b, const problem& p,
                                cudaStream_t stream, int rounds) {
  if (count == 0 || rounds < 1) return {};
  if (b == backend::host) return time_on_host(finalists, count, p, rounds);
  return time_on_cuda(finalists, count, p, stream, rounds);
}

bool capturing(cudaStream_t stream) noexcept {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();
    return true;  // asking failed (the legacy stream while another thread captures): do not time
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace padtune::detail
