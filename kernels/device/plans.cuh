#pragma once
// Plans shared by the variants that give a block one (row, tile): the 64-bit plan the grid-stride
// loop walks, and the direct row grid with 32-bit parameters; and flat's direct grid of chunks.
#include "divmod.cuh"
#include "pad_args.cuh"

namespace padtune::detail {

/// Tiles and blocks of a variant that walks (row, tile) pairs: seed and rowtile.
struct tiled_params {
  pad_args a;
  fast_divmod tiles;  ///< tiles per row
  std::uint64_t num_blocks = 0;
};

/// One block per (row, tile of BLOCK_OL dx elements): rowtile and rowelem.
PADTUNE_HD tiled_params plan_rowtile(const pad_args& a, int block_ol) {
  tiled_params p;
  p.a = a;
  const std::uint64_t tiles = ceil_div(a.L, block_ol);
  p.tiles = fast_divmod(tiles ? tiles : 1);
  p.num_blocks = std::uint64_t(a.rows) * tiles;
  return p;
}

/// The direct launch of a variant with a block per (row, tile): block (x, y, z) is tile x of row
/// z * gridDim.y + y, so a block finds its work in its index (no division, no grid-stride loop),
/// and with 32-bit sizes the parameters fit the 48 bytes of the first 64-byte constant line a
/// kernel reads (on sm_90 they start at c[0x0][0x210]). L2-cold, each of those costs time before
/// the first load of a small problem (docs/performance-notes.md v12-v13).
struct row_grid_params {
  std::uintptr_t dy_row0 = 0;  ///< address of dy element pad_left: row 0's source of dx element 0 (maybe outside dy)
  byte* dx = nullptr;
  std::uint32_t rows = 0, L = 0, OL = 0;
  std::int32_t valid_begin = 0, valid_end = 0;  ///< as in pad_args, in [0, L]
  std::uint64_t fill = 0;                       ///< as in pad_args
};
static_assert(sizeof(row_grid_params) <= 48, "the parameters of a direct launch fit one constant line");

/// The direct grid: (tiles, rows_y, rows_z) blocks, rows_y * rows_z >= rows (the blocks past the
/// last row return at once).
struct row_grid {
  row_grid_params p;
  std::uint32_t tiles = 0, rows_y = 0, rows_z = 0;
};

/// False where a size needs 64 bits (a row of 2^31 elements or more, more than 65535^2 rows, OL
/// of 2^32 or more): the variant's grid-stride launch takes those. True with tiles = 0 where there
/// is nothing to do.
PADTUNE_HD bool plan_row_grid(const pad_args& a, int block_ol, int elem, row_grid& g) {
  constexpr std::int64_t max_y = 65535;  // and max z: CUDA's limit on gridDim.y and gridDim.z
  if (a.rows > max_y * max_y || a.L > 0x7fffffff - block_ol || a.OL > 0xffffffffll) return false;
  g = row_grid{};
  if (a.rows == 0 || a.L == 0) return true;
  g.p.dy_row0 = std::uintptr_t(a.dy) + std::uintptr_t(a.pad_left) * std::uintptr_t(elem);  // modulo 2^64
  g.p.dx = a.dx;
  g.p.rows = std::uint32_t(a.rows), g.p.L = std::uint32_t(a.L), g.p.OL = std::uint32_t(a.OL);
  g.p.valid_begin = std::int32_t(a.valid_begin), g.p.valid_end = std::int32_t(a.valid_end);
  g.p.fill = a.fill;
  g.tiles = std::uint32_t(ceil_div(a.L, block_ol));
  g.rows_y = std::uint32_t(a.rows < max_y ? a.rows : max_y);
  g.rows_z = std::uint32_t(ceil_div(a.rows, g.rows_y));
  return true;
}

/// flat's direct launch: dx as one run of n = rows * L elements in chunks of W bytes, chunk c of
/// block b at element (b * block_chunks + c) * (W / elem), so a block finds its chunks in its index;
/// each element's row by one 32-bit multiply-high, its source by one 64-bit multiply-add. 48 bytes:
/// the one constant line a kernel reads first (row_grid_params says why that matters), which leaves
/// the fill 32 bits (flat_fill32).
struct flat_grid_params {
  std::uintptr_t dy_src0 = 0;  ///< address of dy element pad_left: the source of dx element 0 (maybe outside dy)
  byte* dx = nullptr;          ///< W-aligned
  std::uint32_t n = 0, L = 0, OL = 0;
  divmod32 row_of;                              ///< e / L
  std::int32_t valid_begin = 0, valid_end = 0;  ///< as in pad_args, in [0, L]
  std::uint32_t fill = 0;                       ///< flat_fill32 of pad_args' fill
};
static_assert(sizeof(flat_grid_params) <= 48, "the parameters of a direct launch fit one constant line");

/// The fill of a 2- or 4-byte element, or the high word of an 8-byte one whose low word is zero: the
/// doubles with at most 20 fraction bits (every integer below 2^21, halves, quarters, infinities,
/// the default NaN). False for the other doubles, which take the 64-bit plan.
PADTUNE_HD bool flat_fill32(std::uint64_t fill, int elem, std::uint32_t& out) {
  if (elem < 8) {
    out = std::uint32_t(fill);
    return true;
  }
  out = std::uint32_t(fill >> 32);
  return std::uint32_t(fill) == 0;
}

/// The element an S-byte kernel writes for flat_grid_params::fill.
template <int S> PADTUNE_HD bits_t<S> flat_fill_element(std::uint32_t fill) {
  if constexpr (S == 8) return bits_t<8>(fill) << 32;
  else return bits_t<S>(fill);
}

/// The direct grid of chunks: blocks, and whether the last one runs past n (exact: none does).
struct flat_grid {
  flat_grid_params p;
  std::uint32_t blocks = 0;
  bool exact = true;
};

/// False where dx is not W-aligned, a size needs 64 bits (n + a block's elements reaching 2^31, OL
/// of 2^32 or more) or the fill 64 (flat_fill32): the 64-bit plan takes those. True with blocks = 0
/// where there is nothing to do.
PADTUNE_HD bool plan_flat_grid(const pad_args& a, int elem, int w, int block_chunks, flat_grid& g) {
  const std::int64_t n = a.rows * a.L, block_elems = std::int64_t(block_chunks) * (w / elem);
  if (std::uintptr_t(a.dx) % unsigned(w) != 0 || n > 0x7fffffff - block_elems || a.OL > 0xffffffffll) return false;
  std::uint32_t fill = 0;
  if (!flat_fill32(a.fill, elem, fill)) return false;
  g = flat_grid{};
  g.p.fill = fill;
  if (n == 0) return true;
  g.p.dy_src0 = std::uintptr_t(a.dy) + std::uintptr_t(a.pad_left) * std::uintptr_t(elem);  // modulo 2^64
  g.p.dx = a.dx;
  g.p.n = std::uint32_t(n), g.p.L = std::uint32_t(a.L), g.p.OL = std::uint32_t(a.OL);
  g.p.row_of = divmod32(std::uint32_t(a.L));
  g.p.valid_begin = std::int32_t(a.valid_begin), g.p.valid_end = std::int32_t(a.valid_end);
  g.blocks = std::uint32_t(ceil_div(std::uint64_t(n), std::uint64_t(block_elems)));
  g.exact = n % block_elems == 0;
  return true;
}
}  // namespace padtune::detail
