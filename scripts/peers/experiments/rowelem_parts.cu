// An experiment for scripts/peers/same_timer.py --extra (not part of padtune's library): where does
// rowelem lose to the Triton peer on P8, a kernel of the same structure? Each kernel here is
// rowelem's for 2-byte elements, L <= 1024 and pad_left >= 0: one row per block of 128 threads, 8
// elements each, every load before any store; they differ in one thing at a time.
//
//   python3 scripts/peers/same_timer.py 8,128,1000,7,9 f16 --extra scripts/peers/experiments/rowelem_parts.cu \
//       constant_pad1d_backward__f16__rowelem__bo1024__t128__w2
//
// Measured (bench/NOTES.md v12; H200, one ColdTimer, 3 rounds of 300 samples, ratios to the copy):
// Triton BLOCK 1024 / 4 warps 1.039, one_line_nc 1.045, one_line_plain 1.045, two_lines_plain 1.058,
// two_lines_nc 1.065, rowelem bo1024 t128 1.130. Not measured yet: the _div, _loop and _wide kernels,
// which add rowelem's other costs to one_line_nc one at a time (the device time ran out).
#include <cstdint>

namespace {

/// The parameters the kernels read; APART bytes between the pointers and the sizes put the sizes in
/// the first 64-byte constant line (8) or the second (56).
template <int APART>
struct lean_params {
  const std::uint16_t* dy;
  std::uint16_t* dx;
  char apart[APART];
  int L, OL, pad_left, vb, ve;
  std::uint64_t magic;  ///< tiles per row as a multiply-shift (one tile: magic 0, shift 0)
  unsigned shift, num_blocks;
};
static_assert(sizeof(lean_params<8>) <= 64, "APART 8: one constant line");

/// NC: loads through the read-only path (__ldg, as padtune's), else plain. DIV: the block index
/// divided by the tiles per row with a 64-bit multiply-shift (fast_divmod's). LOOP: run_grid's
/// grid-stride do-while. WIDE: rowelem's 64-bit index arithmetic and clamps.
template <int APART, bool NC, bool DIV, bool LOOP, bool WIDE>
__global__ void __launch_bounds__(128) lean(const __grid_constant__ lean_params<APART> p) {
  std::uint64_t b = blockIdx.x;
  do {
    std::uint64_t row = b, tile = 0;
    if (DIV) row = (__umul64hi(p.magic, b) + b) >> p.shift, tile = b - row;  // one tile per row here
    std::int64_t e0 = 0;
    int n = p.L, lo = p.vb, hi = p.ve;
    if (WIDE) {
      e0 = std::int64_t(tile) * 1024;
      auto in_tile = [](std::int64_t x) { return int(x < 0 ? 0 : (x > 1024 ? 1024 : x)); };
      n = in_tile(std::int64_t(p.L) - e0), lo = in_tile(std::int64_t(p.vb) - e0), hi = in_tile(std::int64_t(p.ve) - e0);
    }
    const std::uint16_t* src = p.dy + (std::int64_t(row) * p.OL + p.pad_left + e0);
    std::uint16_t* dst = p.dx + (std::int64_t(row) * p.L + e0);
    std::uint16_t v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int j = k * 128 + int(threadIdx.x);
      v[k] = 0;
      if (j >= lo && j < hi) v[k] = NC ? __ldg(src + j) : src[j];
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int j = k * 128 + int(threadIdx.x);
      if (j < n) dst[j] = v[k];
    }
    if (!LOOP) break;
  } while ((b += gridDim.x) < p.num_blocks);
}

template <int APART, bool NC, bool DIV, bool LOOP, bool WIDE>
int launch(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  if (L > 1024 || pl < 0) return 1;  // the one-tile, non-negative-pad case only
  lean_params<APART> p{};
  p.dy = static_cast<const std::uint16_t*>(dy), p.dx = static_cast<std::uint16_t*>(dx);
  p.L = int(L), p.OL = int(pl + L + pr), p.pad_left = int(pl), p.vb = 0;
  p.ve = int(p.OL - pl < L ? p.OL - pl : L);
  p.magic = 0, p.shift = 0, p.num_blocks = unsigned(rows);
  lean<APART, NC, DIV, LOOP, WIDE><<<unsigned(rows), 128, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace

// same_timer.py times every extern "C" function named with the prefix same_timer_.
#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_one_line_nc(ARGS) { return launch<8, true, false, false, false>(PASS); }
extern "C" int same_timer_one_line_plain(ARGS) { return launch<8, false, false, false, false>(PASS); }
extern "C" int same_timer_two_lines_nc(ARGS) { return launch<56, true, false, false, false>(PASS); }
extern "C" int same_timer_two_lines_plain(ARGS) { return launch<56, false, false, false, false>(PASS); }
extern "C" int same_timer_one_line_nc_div(ARGS) { return launch<8, true, true, false, false>(PASS); }
extern "C" int same_timer_one_line_nc_loop(ARGS) { return launch<8, true, false, true, false>(PASS); }
extern "C" int same_timer_one_line_nc_wide(ARGS) { return launch<8, true, false, false, true>(PASS); }
extern "C" int same_timer_one_line_nc_div_loop_wide(ARGS) { return launch<8, true, true, true, true>(PASS); }
extern "C" int same_timer_two_lines_nc_div_loop_wide(ARGS) { return launch<56, true, true, true, true>(PASS); }
