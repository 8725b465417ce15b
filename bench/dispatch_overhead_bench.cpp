// The dispatcher's host overhead per call: dispatch() against a direct launch of the same
// instantiation, on a one-element problem so the launch itself costs as little as it can.
// On the host backend this isolates lookup (the emulation of one block is a few ns); on the cuda
// backend both sides pay the same kernel enqueue.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "padtune/padtune.hpp"

namespace {

struct tiny_problem {
  std::vector<float> host_dy = std::vector<float>(8, 1.0f), host_dx = std::vector<float>(8, 0.0f);
  padtune::problem on_host() { return {host_dy.data(), host_dx.data(), 1, 1, 1, 0, 0, padtune::dtype::f32}; }
};

const padtune::instantiation& chosen(const padtune::problem& p, padtune::backend b) {
  return *padtune::explain_dispatch(p.B, p.C, p.L, p.pad_left, p.pad_right, p.type, b).inst;
}

void host_direct_launch(benchmark::State& state) {
  tiny_problem t;
  const padtune::problem p = t.on_host();
  const padtune::instantiation& inst = chosen(p, padtune::backend::host);
  for (auto _ : state) benchmark::DoNotOptimize(padtune::launch(inst, padtune::backend::host, p));
}

void host_dispatch(benchmark::State& state) {
  tiny_problem t;
  const padtune::problem p = t.on_host();
  padtune::dispatch(p, padtune::backend::host);  // the table is loaded once, outside the loop
  for (auto _ : state) padtune::dispatch(p, padtune::backend::host);
}

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

struct device_problem {
  void *dy = nullptr, *dx = nullptr;
  device_problem() { cudaMalloc(&dy, 64), cudaMalloc(&dx, 64); }
  ~device_problem() { cudaFree(dy), cudaFree(dx); }
  padtune::problem get() const { return {dy, dx, 1, 1, 1, 0, 0, padtune::dtype::f32}; }
};

void cuda_direct_launch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA device: cuda benchmarks skipped");
  device_problem d;
  const padtune::problem p = d.get();
  const padtune::instantiation& inst = chosen(p, padtune::backend::cuda);
  for (auto _ : state) benchmark::DoNotOptimize(padtune::launch(inst, padtune::backend::cuda, p));
  cudaDeviceSynchronize();
}

void cuda_dispatch(benchmark::State& state) {
  if (!have_gpu()) return state.SkipWithError("no usable CUDA device: cuda benchmarks skipped");
  device_problem d;
  const padtune::problem p = d.get();
  padtune::dispatch(p, padtune::backend::cuda);
  for (auto _ : state) padtune::dispatch(p, padtune::backend::cuda);
  cudaDeviceSynchronize();
}

BENCHMARK(host_direct_launch);
BENCHMARK(host_dispatch);
BENCHMARK(cuda_direct_launch);
BENCHMARK(cuda_dispatch);

}  // namespace

BENCHMARK_MAIN();
