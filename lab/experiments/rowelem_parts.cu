// An experiment for lab/bin/same-timer --extra (not part of padtune's library): where does
// rowelem lose to the Triton peer on P8, a kernel of the same structure? Each kernel here is
// rowelem's for 2-byte elements (f16/bf16 only: another dtype fails same_timer's check), L <= 1024
// and pad_left >= 0: one row per block of 128 threads, 8 elements each, every load before any store;
// they differ in one thing at a time. On sm_90 the parameters start at c[0x0][0x210] (nvdisasm), so,
// with 64-byte constant-cache lines, the first holds their first 48 bytes: lean_params<0> fits it whole,
// lean_params<1> moves the sizes to the next line.
//
//   python3 lab/bin/same-timer 8,128,1000,7,9 f16 --extra lab/experiments/rowelem_parts.cu \
//       constant_pad1d_backward__f16__rowelem__bo1024__t128__w2
//
// Measured (docs/performance-notes.md v12; H200, one ColdTimer, 3 rounds of 300 samples, ratios to the copy):
// Triton BLOCK 1024 / 4 warps 1.039, one_line_nc 1.045, one_line_plain 1.045, two_lines_plain 1.058,
// two_lines_nc 1.065, rowelem bo1024 t128 1.130. Not measured yet: the _div, _loop and _wide kernels,
// which add rowelem's other costs to one_line_nc one at a time (the device time ran out).
#include <cstdint>

namespace {

/// The sizes every kernel reads (32 bytes) and the two pointers (16): 48 bytes in all.
struct lean_sizes {
  int L, OL, pad_left, vb, ve;
  unsigned magic, shift;  ///< tiles per row as a 32-bit multiply-shift (one tile: magic 0, shift 0)
  unsigned num_blocks;
};
/// APART 0: one constant line; 1: 48 bytes between the pointers and the sizes push them to the next.
template <int APART> struct lean_params {
  const std::uint16_t* dy;
  std::uint16_t* dx;
  lean_sizes s;
};
template <> struct lean_params<1> {
  const std::uint16_t* dy;
  std::uint16_t* dx;
  char apart[48];
  lean_sizes s;
};
static_assert(sizeof(lean_params<0>) == 48, "one constant line after c[0x0][0x210]");

/// NC: loads through the read-only path (__ldg, as padtune's), else plain. DIV: the block index
/// divided by the tiles per row with a multiply-shift (32-bit, what a lean plan would use; rowelem's
/// fast_divmod is 64-bit). LOOP: run_grid's grid-stride do-while. WIDE: rowelem's 64-bit index
/// arithmetic and clamps.
template <int APART, bool NC, bool DIV, bool LOOP, bool WIDE>
__global__ void __launch_bounds__(128) lean(const __grid_constant__ lean_params<APART> p) {
  std::uint64_t b = blockIdx.x;
  do {
    std::uint64_t row = b, tile = 0;
    if (DIV) row = (__umulhi(p.s.magic, unsigned(b)) + unsigned(b)) >> p.s.shift, tile = b - row;  // one tile a row here
    std::int64_t e0 = 0;
    int n = p.s.L, lo = p.s.vb, hi = p.s.ve;
    if (WIDE) {
      e0 = std::int64_t(tile) * 1024;
      auto in_tile = [](std::int64_t x) { return int(x < 0 ? 0 : (x > 1024 ? 1024 : x)); };
      n = in_tile(std::int64_t(p.s.L) - e0), lo = in_tile(std::int64_t(p.s.vb) - e0), hi = in_tile(std::int64_t(p.s.ve) - e0);
    }
    const std::uint16_t* src = p.dy + (std::int64_t(row) * p.s.OL + p.s.pad_left + e0);
    std::uint16_t* dst = p.dx + (std::int64_t(row) * p.s.L + e0);
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
  } while ((b += gridDim.x) < p.s.num_blocks);
}

template <int APART, bool NC, bool DIV, bool LOOP, bool WIDE>
int launch(const void* dy, void* dx, long long rows, long long L, long long pl, long long pr, void* stream) {
  if (L > 1024 || pl < 0 || rows < 1 || rows > 0x7fffffff) return 1;  // one tile a row, pads >= 0, one grid
  lean_params<APART> p{};
  p.dy = static_cast<const std::uint16_t*>(dy), p.dx = static_cast<std::uint16_t*>(dx);
  p.s.L = int(L), p.s.OL = int(pl + L + pr), p.s.pad_left = int(pl), p.s.vb = 0;
  p.s.ve = int(p.s.OL - pl < L ? p.s.OL - pl : L);
  p.s.magic = 0, p.s.shift = 0, p.s.num_blocks = unsigned(rows);
  lean<APART, NC, DIV, LOOP, WIDE><<<unsigned(rows), 128, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}

}  // namespace

// same_timer.py times every extern "C" function named with the prefix same_timer_.
#define ARGS const void *dy, void *dx, long long rows, long long L, long long pl, long long pr, void *s
#define PASS dy, dx, rows, L, pl, pr, s
extern "C" int same_timer_one_line_nc(ARGS) { return launch<0, true, false, false, false>(PASS); }
extern "C" int same_timer_one_line_plain(ARGS) { return launch<0, false, false, false, false>(PASS); }
extern "C" int same_timer_two_lines_nc(ARGS) { return launch<1, true, false, false, false>(PASS); }
extern "C" int same_timer_two_lines_plain(ARGS) { return launch<1, false, false, false, false>(PASS); }
extern "C" int same_timer_one_line_nc_div(ARGS) { return launch<0, true, true, false, false>(PASS); }
extern "C" int same_timer_one_line_nc_loop(ARGS) { return launch<0, true, false, true, false>(PASS); }
extern "C" int same_timer_one_line_nc_wide(ARGS) { return launch<0, true, false, false, true>(PASS); }
extern "C" int same_timer_one_line_nc_div_loop_wide(ARGS) { return launch<0, true, true, true, true>(PASS); }
extern "C" int same_timer_two_lines_nc_div_loop_wide(ARGS) { return launch<1, true, true, true, true>(PASS); }
