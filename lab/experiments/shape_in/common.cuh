// An experiment for lab/bin/same-timer --extra (not part of padtune's library): the
// library's own kernels with the whole problem (rows, L and both pads) compiled in, as a JIT that
// specializes the shape would build them, and as torch.compile(dynamic=False) builds its kernel.
// Only dy and dx are run-time parameters: each thread plans the problem (make_pad_args,
// make_params or plan_row_grid, the functions the ahead-of-time launch runs on the host) from
// constants, so the plan folds and the divisions by L and OL become multiplies by constants.
// A case file (p8_f16.cu, ...) names the shape and the kernels; same_timer takes one file, so
// the two are joined first (run.sh). Each launcher refuses any other shape.
// Measured on the H200 (`lab/experiments/shape_in/run.sh OUT p8_f16`, ... one timer, 120 samples, 3
// rounds): P9 16-bit rowelem 1.059 -> 1.010 (inductor 1.010), P9 f32 1.010 -> 1.000; P8 f16
// flatvec 1.084 -> 1.078 and 1.036 -> 1.033 (two processes; inductor 1.094, 1.072); P8 f64 and P2
// f16 no gain. Not landed (docs/performance-notes.md, "The whole shape compiled in").
#include <climits>

namespace shape_in {

namespace pd = padtune::detail;

template <class K, long long ROWS, long long L, long long PL, long long PR>
__device__ __forceinline__ pd::pad_args args(const void* dy, void* dx) {
  return pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), ROWS, L, PL, PR, K::elem);
}

/// A CUDA block per logical block of the plan (launch.cuh's cuda_exact_entry).
template <class K, long long ROWS, long long L, long long PL, long long PR>
__global__ void __launch_bounds__(K::threads) exact_entry(const void* dy, void* dx) {
  K::run(K::make_params(args<K, ROWS, L, PL, PR>(dy, dx)), blockIdx.x, threadIdx.x);
}

/// The row grid without a row test (cuda_row_grid_entry<K, false>): the host checks that the grid's
/// rows are the problem's.
template <class K, long long ROWS, long long L, long long PL, long long PR>
__global__ void __launch_bounds__(K::threads) row_grid_entry(const void* dy, void* dx) {
  pd::row_grid g;
  pd::plan_row_grid(args<K, ROWS, L, PL, PR>(dy, dx), K::block_ol, K::elem, g);
  K::run_tile(g.p, blockIdx.z * gridDim.y + blockIdx.y, blockIdx.x, threadIdx.x);
}

/// 0, or 1 for a problem of another shape or one the plan cannot give this grid.
template <class K, bool ROW_GRID, long long ROWS, long long L, long long PL, long long PR>
int launch(const void* dy, void* dx, long long rows, long long l, long long pl, long long pr, void* stream) {
  if (rows != ROWS || l != L || pl != PL || pr != PR) return 1;
  const pd::pad_args a = pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), ROWS, L, PL, PR, K::elem);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if constexpr (ROW_GRID) {
    pd::row_grid g;
    if (!pd::plan_row_grid(a, K::block_ol, K::elem, g) || std::uint64_t(g.rows_y) * g.rows_z != g.p.rows) return 1;
    if (g.tiles > 0) row_grid_entry<K, ROWS, L, PL, PR><<<dim3(g.tiles, g.rows_y, g.rows_z), K::threads, 0, s>>>(dy, dx);
  } else {
    const typename K::params p = K::make_params(a);
    if (p.num_blocks > INT_MAX) return 1;
    if (p.num_blocks > 0) exact_entry<K, ROWS, L, PL, PR><<<unsigned(p.num_blocks), K::threads, 0, s>>>(dy, dx);
  }
  return int(cudaGetLastError());
}

template <class V, class T, int BO, int TH, int AW>
using kernel = typename same_timer::registry_kernel<V, T, BO, TH, AW>::type;

}  // namespace shape_in

#define SHAPE_IN_ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define SHAPE_IN_PASS dy, dx, rows, L, pl, pr, s
