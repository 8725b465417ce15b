#include "bench_case.hpp"

#include <fmt/format.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "padtune/measure/cuda_check.hpp"
#include "padtune/measure/cuda_timer.hpp"
#include "padtune/measure/device_helpers.hpp"
#include "padtune/measure/workspace.hpp"
#include "padtune/enqueue.hpp"
#include "padtune/reference.hpp"
#include "padtune/measure/stats.hpp"

namespace padtune::bench {
namespace {

constexpr int floor_samples = 51, selection_samples = 7;

using tuner::check_cuda;

double median_of(int n, const std::string& name, const enqueue_fn& run) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(sample_us(name, run));
  return tuner::summarize(std::move(v)).median;
}

}  // namespace

double sample_us(const std::string& name, const enqueue_fn& run, bool cold) {
  return tuner::cuda_timer::get().sample(cold, name, run);
}

enqueue_fn launch_of(const bench_case& c, const instantiation& inst) {
  const problem p = c.on_dx();
  return [p, &inst](cudaStream_t st) { return enqueue_checked(inst, backend::cuda, p, st); };  // the seed's time includes its zeroing
}

bench_case& bench_case::current(dtype type, const shape5& s) {
  static std::unique_ptr<bench_case> c;
  if (!c || c->type_ != type || !(c->shape_ == s)) {
    c.reset();  // free the old buffers before taking the new ones
    c = std::make_unique<bench_case>(type, s);
  }
  return *c;
}

bench_case::device_ptr bench_case::allocate(std::size_t bytes, const char* what) {
  void* p = nullptr;
  check_cuda(cudaMalloc(&p, bytes + 16), what);
  return device_ptr(p);
}

bench_case::bench_case(dtype type, const shape5& s)
    : type_(type), shape_(s), dx_(std::size_t(tuner::sizes_of(type, s).dx_bytes())) {
  const problem p = on_dx();
  const std::size_t dy_bytes = std::size_t(p.B * p.C * (p.pad_left + p.L + p.pad_right)) * size_of(type);
  dy_ = allocate(dy_bytes, "cudaMalloc(dy)");
  ref_ = allocate(dx_.bytes(), "cudaMalloc(reference)");
  check_cuda(tuner::fill_random_words(dy_.get(), (dy_bytes + 3) / 4, std::random_device{}()), "filling dy");
  problem r = on_dx();
  r.dx = ref_.get();
  if (std::string why; reference_device(r, nullptr, &why) != status::ok) throw std::runtime_error(why);
  check_cuda(cudaDeviceSynchronize(), "the reference");
  // The floor: dx's bytes read and written by the runtime's own device-to-device copy.
  const enqueue_fn copy = [this](cudaStream_t st) {
    return cudaMemcpyAsync(dx_.get(), ref_.get(), dx_.bytes(), cudaMemcpyDeviceToDevice, st);
  };
  for (int i = 0; i < 3; ++i) sample_us("cudaMemcpyAsync_d2d", copy);
  floor_us_ = median_of(floor_samples, "cudaMemcpyAsync_d2d", copy);
}

problem bench_case::on_dx() const {
  return problem{dy_.get(), dx_.get(), shape_.B, shape_.C, shape_.L, shape_.pad_left, shape_.pad_right, type_};
}

std::string bench_case::verify(const enqueue_fn& run) {
  dx_.prepare(tuner::poison_byte);  // a row that needs dx zeroed zeroes it inside run, as when timed
  check_cuda(run(nullptr), "the launch");
  return dx_.compare(ref_.get());
}

const bench_case::pick& bench_case::best_of(const std::string& variant) {
  if (auto it = best_.find(variant); it != best_.end()) return it->second;
  pick p;
  double best_us = 0;
  for (const instantiation& inst : registry()) {
    if (inst.variant != variant || inst.type != type_) continue;
    const enqueue_fn run = launch_of(*this, inst);
    if (std::string why = verify(run); !why.empty()) {
      p.failures += fmt::format("{}: {}; ", inst.id, why);
      continue;
    }
    const double us = median_of(selection_samples, inst.id, run);
    if (!p.inst || us < best_us) p.inst = &inst, best_us = us;
  }
  return best_[variant] = std::move(p);
}

}  // namespace padtune::bench
