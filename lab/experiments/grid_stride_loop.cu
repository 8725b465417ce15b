// An experiment for lab/bin/same-timer --extra (not part of padtune's library): what does
// run_grid's grid-stride loop cost a small problem? In rowelem_parts.cu's lean kernel the loop alone
// took P8 f16 from 1.066 to 1.106 of the copy (the division and the 64-bit index work 0-0.03 each).
// The launchers size the grid to min(num_blocks, INT_MAX), so the loop runs once almost always.
// Here the library's ewise, flat and flatvec kernels are launched the same way but through an
// entry without the loop (one logical block per CUDA block; the grid is exact). Compare each with
// its id timed by the library's own launch. SAME_TIMER_DTYPE=f32 or f16 (default f32) picks the
// dtype: same_timer checks every output.
//
//   SAME_TIMER_DTYPE=f32 python3 lab/bin/same-timer 2,4,8,2,3 f32 \
//       --extra lab/experiments/grid_stride_loop.cu constant_pad1d_backward__f32__ewise__bo64__t64__w4
#include <cuda_fp16.h>

#include <cstdlib>
#include <cstring>

namespace {

namespace pd = padtune::detail;

template <class K>
__global__ void __launch_bounds__(K::threads) once(const __grid_constant__ typename K::params p) {
  K::run(p, blockIdx.x, threadIdx.x);
}

template <class K>
int launch_once(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  const pd::pad_args a = pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), rows, L, pl,
                                           pr, K::elem);
  const typename K::params p = K::make_params(a);
  if (p.num_blocks == 0 || p.num_blocks > 0x7fffffff) return 1;
  once<K><<<unsigned(p.num_blocks), K::threads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

bool f16() {
  const char* d = std::getenv("SAME_TIMER_DTYPE");
  return d && std::strcmp(d, "f16") == 0;
}

}  // namespace

#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_ewise_bo64_no_loop(ARGS) {
  return f16() ? launch_once<pd::ewise_kernel<__half, 64, 64, 0>>(PASS) : launch_once<pd::ewise_kernel<float, 64, 64, 0>>(PASS);
}
extern "C" int same_timer_flat_bo4096_no_loop(ARGS) {
  return f16() ? launch_once<pd::flat_kernel<__half, 4096, 256, 16>>(PASS) : launch_once<pd::flat_kernel<float, 4096, 256, 16>>(PASS);
}
extern "C" int same_timer_flatvec_bo1024_no_loop(ARGS) {
  return f16() ? launch_once<pd::flatvec_kernel<__half, 1024, 256, 16>>(PASS)
               : launch_once<pd::flatvec_kernel<float, 1024, 256, 16>>(PASS);
}
