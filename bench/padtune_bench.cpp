// padtune_bench: every shape of the benchmark suites (padtune/measure/suites.hpp) x dtype, with rows for the
// dispatcher, each variant at its best BLOCK_OL for the shape, the memcpy floor, the least a kernel
// can do (a plain word copy, with small and with padtune-sized parameters), the runtime's strided
// copy (cudaMemcpy2DAsync) and the Thrust reference. Every row is verified against the
// reference, then timed L2-cold with CUDA events (manual time); counters give decimal GB/s and the
// ratio to the memcpy floor measured in the same run.
//
//   padtune_bench [--padtune_suite=perf|forward|sweep|all] [--padtune_print_suite=perf|forward|sweep] [benchmark flags]
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_case.hpp"
#include "launch_floor_kernels.hpp"
#include "padtune/padtune.hpp"
#include "padtune/reference.hpp"
#include "padtune/measure/stats.hpp"
#include "padtune/measure/suites.hpp"

namespace padtune::bench {
namespace {

using tuner::suite_named;
using tuner::suite_shape;

constexpr int warmup_runs = 3, default_samples = 30;

/// What a row runs on a case, and the NVTX name of its range (shown in Nsight).
struct row_plan {
  std::string name;
  enqueue_fn run;
  std::string label;  ///< shown after the timing: the instantiation id, or empty
};

using row_maker = std::function<row_plan(bench_case&, std::string& skip_reason)>;

void run_row(benchmark::State& state, dtype type, shape5 s, const row_maker& make) try {
  bench_case& c = bench_case::current(type, s);
  std::string skip;
  const row_plan row = make(c, skip);
  if (!skip.empty()) return state.SkipWithError(skip.c_str());
  if (const std::string why = c.verify(row.run); !why.empty())
    return state.SkipWithError(fmt::format("{}: wrong output: {}", row.name, why).c_str());
  for (int i = 0; i < warmup_runs; ++i) sample_us(row.name, row.run);
  std::vector<double> us;
  for (auto _ : state) {
    us.push_back(sample_us(row.name, row.run));
    state.SetIterationTime(us.back() * 1e-6);
  }
  const double median = tuner::summarize(us).median;
  state.counters["median_us"] = median;
  state.counters["GB/s"] = double(c.payload_bytes()) / median * 1e-3;
  state.counters["ratio"] = median / c.floor_us();
  state.counters["floor_us"] = c.floor_us();
  state.SetBytesProcessed(std::int64_t(state.iterations()) * c.payload_bytes());
  state.SetLabel(row.label);
} catch (const std::exception& e) {
  state.SkipWithError(e.what());
}

row_maker dispatcher_row() {
  return [](bench_case& c, std::string&) {
    const problem p = c.on_dx();
    const dispatch_choice choice = explain_dispatch(p.B, p.C, p.L, p.pad_left, p.pad_right, p.type);
    return row_plan{"padtune::dispatch",
                    [p](cudaStream_t st) {
                      dispatch(p, backend::cuda, st);  // throws padtune::error on failure
                      return cudaSuccess;
                    },
                    choice.inst->id};
  };
}

row_maker variant_row(const std::string& variant) {
  return [variant](bench_case& c, std::string& skip) {
    const bench_case::pick& p = c.best_of(variant);
    if (!p.failures.empty()) skip = "verification failed: " + p.failures;
    else if (!p.inst) skip = "no instantiation of " + variant + " for this dtype";
    if (!p.inst) return row_plan{};
    return row_plan{p.inst->id, launch_of(c, *p.inst), p.inst->id};
  };
}

row_maker memcpy_row() {
  return [](bench_case& c, std::string&) {
    // From the reference's dx, as the floor: the copy leaves dx right for verify.
    return row_plan{"cudaMemcpyAsync_d2d", [&c](cudaStream_t st) {
                      return cudaMemcpyAsync(c.dx(), c.reference(), c.dx_bytes(), cudaMemcpyDeviceToDevice, st);
                    }, ""};
  };
}

/// The least a kernel does: one 4-byte word per thread from the reference's dx, as memcpy_row.
/// Against the memcpy floor it gives what a kernel launch itself costs L2-cold (P9's target).
row_maker kernel_copy_row(bool big_params) {
  return [big_params](bench_case& c, std::string& skip) {
    if (c.dx_bytes() == 0 || c.dx_bytes() % 4 != 0 || c.dx_bytes() / 4 > 0xFFFFFFFFull)
      skip = "a word copy needs dx's bytes a non-zero multiple of 4 below 2^34";
    const unsigned words = unsigned(c.dx_bytes() / 4);
    return row_plan{big_params ? "word_copy_kernel_128B_params" : "word_copy_kernel",
                    [&c, words, big_params](cudaStream_t st) {
                      return big_params ? launch_word_copy_big_params(c.reference(), c.dx(), words, st)
                                        : launch_word_copy(c.reference(), c.dx(), words, st);
                    },
                    ""};
  };
}

row_maker memcpy2d_row() {
  return [](bench_case& c, std::string& skip) {
    const problem p = c.on_dx();
    if (p.pad_left < 0 || p.pad_right < 0) skip = "cudaMemcpy2DAsync copies no zeros: pads >= 0 only";
    const std::size_t es = size_of(p.type), OL = std::size_t(p.pad_left + p.L + p.pad_right);
    const auto* src = static_cast<const unsigned char*>(p.dy) + std::size_t(p.pad_left) * es;
    return row_plan{"cudaMemcpy2DAsync", [p, es, OL, src](cudaStream_t st) {
                      return cudaMemcpy2DAsync(p.dx, std::size_t(p.L) * es, src, OL * es, std::size_t(p.L) * es,
                                               std::size_t(p.B * p.C), cudaMemcpyDeviceToDevice, st);
                    }, ""};
  };
}

row_maker thrust_row() {
  return [](bench_case& c, std::string&) {
    const problem p = c.on_dx();
    return row_plan{"thrust_reference", [p](cudaStream_t st) {
                      std::string why;
                      if (reference_device(p, st, &why) != status::ok) throw std::runtime_error(why);
                      return cudaSuccess;
                    }, ""};
  };
}

/// The registry's variants in its order, a row each (a new variant gets its row without an edit here).
const std::vector<std::string>& registry_variants() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const instantiation& i : registry())
      if (std::find(v.begin(), v.end(), i.variant) == v.end()) v.emplace_back(i.variant);
    return v;
  }();
  return names;
}

/// perf/P1/32x256x8192/pad3,5/f32/<row>: a --benchmark_filter selects a suite, a shape, a dtype or a row.
void register_shape(const suite_shape& sh, dtype type, int samples) {
  const shape5 s = sh.s;
  const std::string prefix = fmt::format("{}/{}/{}x{}x{}/pad{},{}/{}/", sh.suite, sh.tag, s.B, s.C, s.L,
                                         s.pad_left, s.pad_right, name_of(type));
  std::vector<std::pair<std::string, row_maker>> rows = {{"dispatcher", dispatcher_row()}};
  for (const std::string& v : registry_variants()) rows.emplace_back(v, variant_row(v));
  rows.emplace_back("memcpy", memcpy_row());
  rows.emplace_back("kernel_copy", kernel_copy_row(false));
  rows.emplace_back("kernel_copy_big_params", kernel_copy_row(true));
  rows.emplace_back("memcpy2d", memcpy2d_row());
  rows.emplace_back("thrust", thrust_row());
  for (auto& [row, make] : rows)
    benchmark::RegisterBenchmark((prefix + row).c_str(),
                                 [type, s, make = make](benchmark::State& st) { run_row(st, type, s, make); })
        ->UseManualTime()
        ->Iterations(samples)
        ->Unit(benchmark::kMicrosecond);
}

void add_device_context() {
  int dev = 0, driver = 0, runtime = 0, sm_clock = 0, mem_clock = 0;
  cudaDeviceProp p{};
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
    cudaGetLastError();
    benchmark::AddCustomContext("device", "none usable: the benchmarks will report errors");
    return;
  }
  cudaDriverGetVersion(&driver), cudaRuntimeGetVersion(&runtime);
  cudaDeviceGetAttribute(&sm_clock, cudaDevAttrClockRate, dev);
  cudaDeviceGetAttribute(&mem_clock, cudaDevAttrMemoryClockRate, dev);
  benchmark::AddCustomContext("device", p.name);
  benchmark::AddCustomContext("compute_capability", fmt::format("{}.{}", p.major, p.minor));
  benchmark::AddCustomContext("sm_count", std::to_string(p.multiProcessorCount));
  benchmark::AddCustomContext("sm_clock_max_mhz", std::to_string(sm_clock / 1000));
  benchmark::AddCustomContext("memory_clock_max_mhz", std::to_string(mem_clock / 1000));
  benchmark::AddCustomContext("l2_bytes", std::to_string(p.l2CacheSize));
  benchmark::AddCustomContext("driver_version", std::to_string(driver));
  benchmark::AddCustomContext("runtime_version", std::to_string(runtime));
  const problem tiny{nullptr, nullptr, 1, 1, 1, 0, 0, dtype::f32};
  benchmark::AddCustomContext("dispatch_table", explain_dispatch(tiny.B, tiny.C, tiny.L, 0, 0, dtype::f32).table);
  benchmark::AddCustomContext("timing", "L2-cold (2x L2 written before every sample), CUDA events, manual time; "
                                        "ratio = median / median of cudaMemcpyAsync D2D of dx's bytes, same run");
}

/// If arg is `flag` followed by its value, stores the value and returns true.
bool flag_value(std::string_view arg, std::string_view flag, std::string& value) {
  if (arg.substr(0, flag.size()) != flag) return false;
  value.assign(arg.substr(flag.size()));
  return true;
}

/// Takes padtune's own --padtune_* flags out of argv; returns false (after printing why) on a bad one.
bool take_own_flags(int& argc, char** argv, std::string& suite, std::string& print_suite, int& samples) {
  int out = 1;
  std::string samples_text;
  for (int i = 1; i < argc; ++i)
    if (!flag_value(argv[i], "--padtune_suite=", suite) && !flag_value(argv[i], "--padtune_print_suite=", print_suite) &&
        !flag_value(argv[i], "--padtune_samples=", samples_text))
      argv[out++] = argv[i];
  argc = out;
  if (!samples_text.empty()) {
    char* end = nullptr;
    const long n = std::strtol(samples_text.c_str(), &end, 10);
    if (*end || n < 1 || n > 100000) {
      std::cerr << "padtune_bench: --padtune_samples must be an integer in 1..100000, got '" << samples_text << "'\n";
      return false;
    }
    samples = int(n);
  }
  if (suite != "all" && suite_named(suite).empty()) {
    std::cerr << "padtune_bench: unknown --padtune_suite '" << suite << "' (perf, forward, sweep or all)\n";
    return false;
  }
  if (!print_suite.empty() && suite_named(print_suite).empty()) {
    std::cerr << "padtune_bench: unknown --padtune_print_suite '" << print_suite << "' (perf, forward or sweep)\n";
    return false;
  }
  return true;
}

}  // namespace
}  // namespace padtune::bench

int main(int argc, char** argv) {
  using namespace padtune::bench;
  std::string suite = "all", print_suite;
  int samples = default_samples;
  if (!take_own_flags(argc, argv, suite, print_suite, samples)) return 2;
  if (!print_suite.empty()) {  // the shapes in `padtune tune --sizes` format
    std::cout << "# B C L pad_left pad_right: the " << print_suite << " suite of padtune_bench\n";
    for (const suite_shape& sh : suite_named(print_suite))
      std::cout << fmt::format("{} {} {} {} {}  # {}\n", sh.s.B, sh.s.C, sh.s.L, sh.s.pad_left, sh.s.pad_right, sh.tag);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  add_device_context();
  std::vector<suite_shape> shapes;
  for (const char* name : {"perf", "forward", "sweep"})
    if (suite == "all" || suite == name)
      for (suite_shape& sh : suite_named(name)) shapes.push_back(std::move(sh));
  for (const suite_shape& sh : shapes)
    for (padtune::dtype t : padtune::all_dtypes)
      register_shape(sh, t, samples);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
