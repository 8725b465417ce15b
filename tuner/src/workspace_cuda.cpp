// The CUDA workspace: events on a dedicated stream, an L2 flush before every cold sample, NVTX
// ranges named by instantiation id around every timed launch.
#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nvtx3/nvtx3.hpp>

#include <chrono>
#include <map>
#include <random>
#include <stdexcept>

#include "padtune/cuda_error.hpp"
#include "device_helpers.hpp"
#include "measure.hpp"
#include "padtune/reference.hpp"

namespace padtune::tuner {
namespace {

struct padtune_domain {
  static constexpr const char* name{"padtune"};
};

/// Registered NVTX strings, one per id, made once.
const nvtx3::registered_string_in<padtune_domain>& nvtx_name(const std::string& id) {
  static std::map<std::string, nvtx3::registered_string_in<padtune_domain>> names;
  auto it = names.find(id);
  if (it == names.end()) it = names.emplace(id, nvtx3::registered_string_in<padtune_domain>{id.c_str()}).first;
  return it->second;
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(fmt::format("{}: {}", what, cuda_error_text(e)));
}

constexpr std::size_t guard_bytes = 256;

/// Process-wide: the stream, the events and the L2 flush buffer, made once.
struct timing_resources {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  timing_resources() {
    int dev = 0;
    check_cuda(cudaGetDevice(&dev), "cudaGetDevice");
    int l2 = 0;
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), "cudaDeviceGetAttribute(L2)");
    flush_bytes = std::max<std::size_t>(2 * std::size_t(l2), 1 << 20);
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    check_cuda(cudaEventCreate(&start), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
    check_cuda(cudaMalloc(&flush, flush_bytes), "cudaMalloc(L2 flush buffer)");
  }
  static timing_resources& get() {
    static timing_resources r;
    return r;
  }
};

class cuda_workspace final : public workspace {
 public:
  cuda_workspace(dtype type, const shape5& s) : type_(type), shape_(s) {
    std::string why;
    if (check_shape(s.B, s.C, s.L, s.pad_left, s.pad_right, type, &why, &z_) != status::ok) throw std::runtime_error(why);
    dx_bytes_ = std::size_t(z_.dx_bytes());
    dy_bytes_ = std::size_t(z_.dy_bytes());
    check_cuda(cudaMalloc(&dy_.p, dy_bytes_ + 16), "cudaMalloc(dy)");
    check_cuda(cudaMalloc(&dx_buffer_.p, dx_bytes_ + 2 * guard_bytes), "cudaMalloc(dx)");
    check_cuda(cudaMalloc(&ref_.p, dx_bytes_ + 16), "cudaMalloc(reference)");
    check_cuda(cudaMalloc(&memcpy_dst_.p, dx_bytes_ + 16), "cudaMalloc(memcpy floor)");
    check_cuda(fill_random_words(dy_.p, (dy_bytes_ + 3) / 4, std::random_device{}()), "filling dy");
    if (reference_device(problem_on(ref_.p), nullptr, &why) != status::ok) throw std::runtime_error(why);
    check_cuda(cudaDeviceSynchronize(), "the reference");
  }

  std::string verify(const instantiation& inst) override try {
    unsigned char* dx = dx_();
    check_cuda(cudaMemset(dx_buffer_.p, guard_byte, dx_bytes_ + 2 * guard_bytes), "cudaMemset");
    check_cuda(cudaMemset(dx, inst.needs_zeroed_dx ? 0 : poison_byte, dx_bytes_), "cudaMemset");
    std::string why;
    if (launch(inst, backend::cuda, problem_on(dx), nullptr, &why) != status::ok) return why;
    check_cuda(cudaDeviceSynchronize(), "the kernel");
    if (const std::int64_t at = first_difference(dx, ref_.p, dx_bytes_); at >= 0)
      return fmt::format("dx differs from the reference at byte {}", at);
    unsigned char guards[2 * guard_bytes];
    check_cuda(cudaMemcpy(guards, dx_buffer_.p, guard_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    check_cuda(cudaMemcpy(guards + guard_bytes, dx + dx_bytes_, guard_bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (unsigned char b : guards)
      if (b != guard_byte) return "a guard byte around dx was overwritten";
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }

  timing time(const instantiation& inst, const measure_settings& s) override {
    const problem p = problem_on(dx_());
    return time_launch(s, nvtx_name(inst.id), [&](cudaStream_t st) {
      if (inst.needs_zeroed_dx)
        if (const cudaError_t e = cudaMemsetAsync(p.dx, 0, dx_bytes_, st); e != cudaSuccess) return e;
      return inst.launch_cuda(p, st);
    });
  }

  timing time_memcpy(const measure_settings& s) override {
    return time_launch(s, nvtx_name("cudaMemcpyAsync_d2d"), [&](cudaStream_t st) {
      // From the reference's dx: exactly dx_bytes long (dy is shorter when pads crop).
      return cudaMemcpyAsync(memcpy_dst_.p, ref_.p, dx_bytes_, cudaMemcpyDeviceToDevice, st);
    });
  }

  std::string failure() const override {
    const cudaError_t e = cudaPeekAtLastError();
    return e == cudaSuccess ? "" : cuda_error_text(e);
  }

 private:
  unsigned char* dx_() const { return static_cast<unsigned char*>(dx_buffer_.p) + guard_bytes; }
  problem problem_on(void* dx) const {
    return problem{dy_.p, dx, shape_.B, shape_.C, shape_.L, shape_.pad_left, shape_.pad_right, type_};
  }

  template <class Launch>
  timing time_launch(const measure_settings& s, const nvtx3::registered_string_in<padtune_domain>& name, Launch&& run) {
    timing_resources& r = timing_resources::get();
    for (int i = 0; i < s.warmup; ++i) check_cuda(run(r.stream), "warm-up launch");
    check_cuda(cudaStreamSynchronize(r.stream), "warm-up");
    auto sample = [&](bool cold) {
      if (cold) check_cuda(cudaMemsetAsync(r.flush, 0x5A, r.flush_bytes, r.stream), "L2 flush");
      check_cuda(cudaEventRecord(r.start, r.stream), "cudaEventRecord");
      {
        nvtx3::scoped_range_in<padtune_domain> range{name};
        check_cuda(run(r.stream), "timed launch");
      }
      check_cuda(cudaEventRecord(r.stop, r.stream), "cudaEventRecord");
      check_cuda(cudaEventSynchronize(r.stop), "cudaEventSynchronize");
      float ms = 0;
      check_cuda(cudaEventElapsedTime(&ms, r.start, r.stop), "cudaEventElapsedTime");
      return double(ms) * 1000.0;
    };
    auto run_until_done = [&](bool cold) {
      std::vector<double> v;
      const auto t0 = std::chrono::steady_clock::now();
      do v.push_back(sample(cold));
      while (!s.rule.done(v, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
      return summarize(std::move(v));
    };
    timing t;
    t.cold = run_until_done(s.l2_cold);
    if (s.hot_too && s.l2_cold) t.hot = run_until_done(false);
    return t;
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
  device_memory dy_, dx_buffer_, ref_, memcpy_dst_;
};

}  // namespace

std::unique_ptr<workspace> make_cuda_workspace(dtype type, const shape5& s) { return std::make_unique<cuda_workspace>(type, s); }

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
