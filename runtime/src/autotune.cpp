#include "autotune.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "padtune/cuda_error.hpp"
#include "padtune/detail/l2_cold_timer.hpp"
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

finalist_timings time_on_cuda(const instantiation* const* finalists, std::size_t count, const problem& p,
                              cudaStream_t stream, int rounds) {
  const relaxed_capture_mode relaxed;
  rounds = std::min(rounds, max_rounds);
  // The flush buffer from CUDA's stream-ordered pool: no device-wide synchronization, and none of
  // PyTorch's cached memory is needed. Where that much memory is not free, the runs are timed with
  // what L2 holds (l2_flushed says so).
  l2_cold_timer timer(stream, /*pooled=*/true);
  check_cuda(timer.status(), "asking the L2 size");
  finalist_timings out;
  out.l2_flushed = timer.flushes();
  // One event pair per run: slot k is the first round's run of finalist k, slot (r + 1) * count + k
  // timed round r's.
  const auto timed_run = [&](std::size_t slot, std::size_t k) {
    check_cuda(timer.start(slot), "cudaEventRecord");
    run(*finalists[k], backend::cuda, p, stream);
    check_cuda(timer.stop(slot), "cudaEventRecord");
  };
  const auto elapsed_us = [&](std::size_t slot) {
    double us = 0;
    check_cuda(timer.elapsed_us(slot, us), "cudaEventElapsedTime");
    return us;
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
      check_cuda(timer.flush(static_cast<unsigned char>(r & 0xff)), "the L2 flush");
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
