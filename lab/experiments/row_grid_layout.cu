// An experiment for lab/bin/same-timer --extra (not part of padtune's library): does the
// shape of rowelem's direct grid cost time on P8? rowelem bo1024 t128's tile (one tile a row on P8),
// launched three ways: the library's (tiles, rows) grid with its row test (for reference), rows on
// x with no test (the Triton peer's 1-D grid), rows on y with no test; and rows on x with plain loads.
// SAME_TIMER_ELEM=2 or 4 (default 2) picks the element size: same_timer checks every output.
//
//   SAME_TIMER_ELEM=4 python3 lab/bin/same-timer 8,128,1000,7,9 f32 \
//       --extra lab/experiments/row_grid_layout.cu constant_pad1d_backward__f32__rowelem__bo1024__t128__w4
#include <cstdlib>

namespace {

namespace pd = padtune::detail;

template <int S, bool NC>
__device__ __forceinline__ void tile(const pd::row_grid_params& p, unsigned row, unsigned thread) {
  using bits = pd::bits_t<S>;
  const int n = p.L < 1024 ? int(p.L) : 1024, lo = p.valid_begin, hi = p.valid_end < 1024 ? p.valid_end : 1024;
  auto* const dst = reinterpret_cast<bits*>(p.dx) + std::uint64_t(row) * p.L;
  const std::uintptr_t src = p.dy_row0 + std::uint64_t(row) * p.OL * S;
  bits v[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int j = k * 128 + int(thread);
    v[k] = 0;
    if (j >= lo && j < hi) {
      const bits* s = reinterpret_cast<const bits*>(src + std::uintptr_t(j) * S);
      v[k] = NC ? __ldg(s) : *s;
    }
  }
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    const int j = k * 128 + int(thread);
    if (j < n) dst[j] = v[k];
  }
}

template <int S, bool NC>
__global__ void __launch_bounds__(128) rows_on_x(const __grid_constant__ pd::row_grid_params p) {
  tile<S, NC>(p, blockIdx.x, threadIdx.x);
}
template <int S>
__global__ void __launch_bounds__(128) rows_on_y(const __grid_constant__ pd::row_grid_params p) {
  tile<S, true>(p, blockIdx.y, threadIdx.x);
}

template <int WHICH, int S>
int launch_as(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, cudaStream_t s) {
  const pd::pad_args a = pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), rows, L, pl, pr, S);
  pd::row_grid g;
  if (!pd::plan_row_grid(a, 1024, S, g) || g.tiles != 1 || rows > 65535) return 1;  // one tile a row, one grid row
  if (WHICH == 0) rows_on_x<S, true><<<unsigned(rows), 128, 0, s>>>(g.p);
  if (WHICH == 1) rows_on_x<S, false><<<unsigned(rows), 128, 0, s>>>(g.p);
  if (WHICH == 2) rows_on_y<S><<<dim3(1, unsigned(rows)), 128, 0, s>>>(g.p);
  return int(cudaGetLastError());
}

template <int WHICH>
int launch(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  const char* e = std::getenv("SAME_TIMER_ELEM");
  const auto s = static_cast<cudaStream_t>(stream);
  return e && e[0] == '4' ? launch_as<WHICH, 4>(dy, dx, rows, L, pl, pr, s) : launch_as<WHICH, 2>(dy, dx, rows, L, pl, pr, s);
}

}  // namespace

#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_rows_on_x(ARGS) { return launch<0>(PASS); }
extern "C" int same_timer_rows_on_x_plain(ARGS) { return launch<1>(PASS); }
extern "C" int same_timer_rows_on_y(ARGS) { return launch<2>(PASS); }
