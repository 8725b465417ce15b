// The CUDA workspace: buffers of one shape; samples are taken by cuda_timer (events on a dedicated
// stream, an L2 flush before every cold sample, NVTX ranges named by instantiation id).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <chrono>
#include <random>
#include <stdexcept>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/measure/cuda_timer.hpp"
#include "padtune/measure/device_helpers.hpp"
#include "padtune/measure/guarded_dx.hpp"
#include "padtune/measure/workspace.hpp"
#include "padtune/cuda_error.hpp"
#include "padtune/enqueue.hpp"
#include "padtune/reference.hpp"

namespace padtune::tuner {
namespace {

class cuda_workspace final : public workspace {
 public:
  cuda_workspace(dtype type, const shape5& s)
      : type_(type), shape_(s), z_(sizes_of(type, s)), dx_(std::size_t(z_.dx_bytes())) {
    std::string why;
    dx_bytes_ = std::size_t(z_.dx_bytes());
    dy_bytes_ = std::size_t(z_.dy_bytes());
    check_cuda(cudaMalloc(&dy_.p, dy_bytes_ + 16), "cudaMalloc(dy)");
    check_cuda(cudaMalloc(&ref_.p, dx_bytes_ + 16), "cudaMalloc(reference)");
    check_cuda(cudaMalloc(&memcpy_dst_.p, dx_bytes_ + 16), "cudaMalloc(memcpy floor)");
    check_cuda(fill_random_words(dy_.p, (dy_bytes_ + 3) / 4, std::random_device{}()), "filling dy");
    if (reference_device(problem_on(ref_.p), nullptr, &why) != status::ok) throw std::runtime_error(why);
    check_cuda(cudaDeviceSynchronize(), "the reference");
  }

  std::string verify(const instantiation& inst) override try {
    if (inst.prepare)  // a JIT candidate's compile: NVRTC's log, not a launch error
      if (std::string e = inst.prepare(inst); !e.empty()) return e;
    dx_.prepare(poison_byte);  // a candidate that needs dx zeroed has it zeroed by enqueue, as when timed
    std::string why;
    if (enqueue(inst, backend::cuda, problem_on(dx_.get()), nullptr, &why) != status::ok) return why;
    return dx_.compare(ref_.p);
  } catch (const std::exception& e) {
    return e.what();
  }

  timing time(const instantiation& inst, const measure_settings& s) override {
    const problem p = problem_on(dx_.get());
    return time_launch(s, inst, [&](cudaStream_t st) { return enqueue_checked(inst, backend::cuda, p, st); });
  }

  timing time_memcpy(const measure_settings& s) override {
    return time_launch(s, std::string("cudaMemcpyAsync_d2d"), [&](cudaStream_t st) {
      // From the reference's dx: exactly dx_bytes long (dy is shorter when pads crop).
      return cudaMemcpyAsync(memcpy_dst_.p, ref_.p, dx_bytes_, cudaMemcpyDeviceToDevice, st);
    });
  }

  std::string failure() const override {
    const cudaError_t e = cudaPeekAtLastError();
    return e == cudaSuccess ? "" : cuda_error_text(e);
  }

 private:
  problem problem_on(void* dx) const {
    return problem{dy_.p, dx, shape_.B, shape_.C, shape_.L, shape_.pad_left, shape_.pad_right, type_};
  }

  template <class Name, class Launch>
  timing time_launch(const measure_settings& s, const Name& name, Launch&& run) {
    cuda_timer& t = cuda_timer::get();
    for (int i = 0; i < s.warmup; ++i) check_cuda(run(t.stream()), "warm-up launch");
    check_cuda(cudaStreamSynchronize(t.stream()), "warm-up");
    auto sample = [&](bool cold) { return t.sample(cold, name, run); };
    auto run_until_done = [&](bool cold) {
      std::vector<double> v;
      const auto t0 = std::chrono::steady_clock::now();
      do v.push_back(sample(cold));
      while (!s.rule.done(v, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
      return summarize(std::move(v));
    };
    timing result;
    result.cold = run_until_done(s.l2_cold);
    if (s.hot_too && s.l2_cold) result.hot = run_until_done(false);
    return result;
  }

  dtype type_;
  shape5 shape_;
  problem_sizes z_;
  std::size_t dx_bytes_ = 0, dy_bytes_ = 0;
  /// Owns a cudaMalloc'ed block: a constructor that throws half way frees what it took.
  struct device_memory {
    void* p = nullptr;
    device_memory() = default;
    device_memory(const device_memory&) = delete;
    device_memory& operator=(const device_memory&) = delete;
    ~device_memory() { cudaFree(p); }
  };
  device_memory dy_, ref_, memcpy_dst_;
  guarded_dx dx_;
};

}  // namespace

std::unique_ptr<workspace> make_cuda_workspace(dtype type, const shape5& s) { return std::make_unique<cuda_workspace>(type, s); }

int cuda_device_for_local_rank(int local_rank) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) return -1;
  return local_rank % count;
}

void use_cuda_device(int device) {
  if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess)
    throw std::runtime_error(fmt::format("cannot use CUDA device {}: {}", device, cudaGetErrorString(e)));
}

device_fingerprint cuda_device_fingerprint() {
  int dev = 0;
  check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  check_cuda(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  device_fingerprint f;
  f.backend = "cuda";
  f.name = p.name;
  f.cc_major = p.major, f.cc_minor = p.minor;
  f.sm_count = p.multiProcessorCount;
  f.l2_bytes = p.l2CacheSize;
  cudaDeviceGetAttribute(&f.memory_clock_khz, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&f.bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
  cudaDriverGetVersion(&f.driver_version);
  cudaRuntimeGetVersion(&f.runtime_version);
  std::string uuid = "GPU-";
  for (int i = 0; i < 16; ++i) uuid += fmt::format("{:02x}{}", (unsigned char)p.uuid.bytes[i], (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
  f.uuid = uuid;
  return f;
}

}  // namespace padtune::tuner
