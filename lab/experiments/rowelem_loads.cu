// An experiment for lab/bin/same-timer --extra (not part of padtune's library): rowelem's
// direct launch (launch.cuh's row_grid) with plain loads instead of the read-only path. In
// rowelem_parts.cu's lean kernel, plain loads took 1.040 of the copy on P8 f16 and __ldg 1.066 on one
// card (alike, 1.045, on another). f16 only (another dtype fails same_timer's check):
//
//   python3 lab/bin/same-timer 8,128,1000,7,9 f16 --extra lab/experiments/rowelem_loads.cu \
//       constant_pad1d_backward__f16__rowelem__bo1024__t128__w2
#include <cuda_fp16.h>

namespace {

namespace pd = padtune::detail;

/// rowelem bo1024 t128 for f16, its direct launch's tile with plain loads.
struct plain_loads : pd::rowelem_kernel<__half, 1024, 128, 0> {
  static __host__ __device__ void run_tile(const pd::row_grid_params& p, std::uint32_t row, std::uint32_t tile,
                                           unsigned thread) {
    const int e0 = int(tile) * block_ol;
    auto in_tile = [](int x) { return x < 0 ? 0 : (x > block_ol ? block_ol : x); };
    const int n = in_tile(int(p.L) - e0), lo = in_tile(p.valid_begin - e0), hi = in_tile(p.valid_end - e0);
    auto* const dst = reinterpret_cast<std::uint16_t*>(p.dx) + (std::uint64_t(row) * p.L + unsigned(e0));
    const std::uintptr_t src = p.dy_row0 + (std::uint64_t(row) * p.OL + unsigned(e0)) * 2;
    std::uint16_t v[items];
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + int(thread);
      v[k] = 0;
      if (j >= lo && j < hi) v[k] = *reinterpret_cast<const std::uint16_t*>(src + std::uintptr_t(j) * 2);
    }
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const int j = k * threads + int(thread);
      if (j < n) dst[j] = v[k];
    }
  }
};

}  // namespace

extern "C" int same_timer_rowelem_direct_plain_loads(const void* dy, void* dx, long long rows, long long L, long long pl,
                                                     long long pr, void* stream) {
  padtune::problem p;
  p.dy = dy, p.dx = dx, p.B = 1, p.C = rows, p.L = L, p.pad_left = pl, p.pad_right = pr;
  p.type = padtune::dtype::f16;
  return int(pd::launch_cuda<plain_loads>(p, static_cast<cudaStream_t>(stream)));
}
