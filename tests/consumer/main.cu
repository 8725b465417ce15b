// A CUDA program that includes padtune's header and calls the dispatcher: with a GPU, on a device
// buffer it filled with its own kernel; without one, on the host backend. Exit 0 if dx matches the
// reference of the same backend.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "padtune/padtune.hpp"
#include "padtune/reference.hpp"

__global__ void fill(float* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = float(i) + 0.25f;
}

int main() {
  const std::int64_t B = 2, C = 3, L = 100, pl = 3, pr = 5, OL = pl + L + pr;
  const int ny = int(B * C * OL), nx = int(B * C * L);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    cudaGetLastError();
    std::vector<float> dy(static_cast<std::size_t>(ny)), dx(static_cast<std::size_t>(nx)), ref(dx.size());
    for (int i = 0; i < ny; ++i) dy[std::size_t(i)] = float(i) + 0.25f;
    padtune::dispatch({dy.data(), dx.data(), B, C, L, pl, pr, padtune::dtype::f32}, padtune::backend::host);
    padtune::reference_host({dy.data(), ref.data(), B, C, L, pl, pr, padtune::dtype::f32});
    const bool same = std::memcmp(dx.data(), ref.data(), dx.size() * sizeof(float)) == 0;
    std::printf("padtune CUDA consumer (no GPU: host backend): dispatch %s the reference\n", same ? "matches" : "DIFFERS FROM");
    return same ? 0 : 1;
  }
  float *dy = nullptr, *dx = nullptr, *ref = nullptr;
  cudaMalloc(&dy, ny * sizeof(float));
  cudaMalloc(&dx, nx * sizeof(float));
  cudaMalloc(&ref, nx * sizeof(float));
  fill<<<(ny + 255) / 256, 256>>>(dy, ny);
  padtune::constant_pad1d_backward(dy, dx, B, C, L, pl, pr);
  padtune::reference_device({dy, ref, B, C, L, pl, pr, padtune::dtype::f32});
  std::vector<float> a(static_cast<std::size_t>(nx)), b(a.size());
  cudaMemcpy(a.data(), dx, nx * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), ref, nx * sizeof(float), cudaMemcpyDeviceToHost);
  const bool same = std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
  std::printf("padtune CUDA consumer (GPU): dispatch %s the reference\n", same ? "matches" : "DIFFERS FROM");
  return same ? 0 : 1;
}
