#pragma once
// flat staged through shared memory, on a persistent grid. Each block of one wave of resident
// blocks takes an equal share of dx's chunks and walks it in tiles of BLOCK_OL elements. A tile's
// chunks have their sources in one contiguous span of dy (pads included), which the block copies
// into one of its `stages` stages with 16-byte asynchronous copies (cp.async: no register holds the
// data in flight), `stages - 1` tiles ahead of the tile it realigns from shared memory into W-byte
// stores. So each block keeps two tiles of loads in flight while it stores a third, and fills and
// drains once, not once per tile. For short rows of 16-bit types, where flatvec holds two loads per
// chunk in registers. A tile whose span does not fit a stage (pads much longer than the rows) reads
// dy directly, as flatvec does.
//
// The schedule is written once, for a block_team (common.cuh): on the device one thread with
// __syncthreads between steps, in the host emulation (launch.cuh) the block's threads in turn.
#include "flat.cuh"

namespace padtune::detail {

/// Where a tile's sources lie: dy bytes [begin, end), staged at offset (address - base).
struct stage_span {
  std::uintptr_t base = 0, begin = 0, end = 0;
  bool staged = false;  ///< false: nothing to stage, or it does not fit; the tile reads dy directly
};

/// An element or a 32-bit word out of a stage (shared memory on the device: never through __ldg).
template <int S>
PADTUNE_HD bits_t<S> stage_element(const byte* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const bits_t<S>*>(p);
#else
  bits_t<S> v;
  std::memcpy(&v, p, S);
  return v;
#endif
}

/// Copies 16 bytes from global to shared memory without a register in between where the device
/// has cp.async (sm_80 and later); both addresses are 16-byte aligned.
PADTUNE_HD void stage_copy_16(byte* to, const byte* from) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(shared), "l"(from) : "memory");
#else
  store_vec<16>(to, load_vec<16>(from));
#endif
}

/// Closes this thread's group of copies for one tile (an empty group where it copied nothing, so
/// that the count of groups is the count of tiles).
PADTUNE_HD void stage_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/// Waits until at most N of this thread's newest groups are still in flight (the barrier after it
/// makes the finished ones the block's). The host's copies are done when they return.
template <int N>
PADTUNE_HD void stage_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/// Tiles staged at once: two in flight while the block stores from the third (bench/NOTES.md v8).
inline constexpr int staged_stages = 3;

/// A tile's stage: room for sources up to 1.25 times the tile (pads up to a quarter of the rows),
/// the alignment of both ends and the word read past a realigned chunk's end, in 16-byte lines.
__host__ __device__ constexpr long long stage_bytes_of(int elem, int block_ol) {
  return (5LL * block_ol * elem / 4 + 64 + 15) / 16 * 16;
}

/// The stages are static shared memory, so at most 48 KB together. Smaller stages leave room for
/// more blocks per SM: what counts is the bytes in flight per SM (bench/NOTES.md v7).
__host__ __device__ constexpr bool staged_fits(int elem, int block_ol) {
  return staged_stages * stage_bytes_of(elem, block_ol) <= 48 * 1024;
}

template <class T, int BLOCK_OL, int MAX_THREADS, int W>
struct staged_kernel : private flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true> {
 private:
  using direct = flat_kernel<T, BLOCK_OL, MAX_THREADS, W, true>;  // the plan, the ends, the path without a stage

 public:
  using direct::access_width;
  using direct::block_chunks;
  using direct::chunk_elems;
  using direct::elem;
  using direct::items;
  using direct::make_params;
  using direct::needs_zeroed_dx;
  using direct::shape;
  using direct::threads;
  using params = flat_params;

  static constexpr int stages = staged_stages;
  static constexpr long long stage_bytes = stage_bytes_of(elem, BLOCK_OL);
  static constexpr bool valid = direct::valid && staged_fits(elem, BLOCK_OL);
  static constexpr bool persistent = true;

  struct shared_storage {
    alignas(16) byte stage[stages][stage_bytes];
  };

  /// Block `block` of a grid of `grid`: its share of the chunks, tile by tile, the tile `stages - 1`
  /// ahead staged before each is stored. One barrier per tile: after it, every thread's copies of
  /// tile k have landed and every thread is done reading the stage that tile k + stages - 1 refills.
  static PADTUNE_HD void run_persistent(const params& p, std::uint64_t block, std::uint64_t grid, block_team team,
                                        shared_storage& s) {
    if (block == 0)
      for (unsigned t = team.first; t < team.last; ++t) direct::copy_ends(p, t);
    // Tiles block, block + grid, block + 2 grid, ...: at any moment the grid works on neighbouring
    // tiles, as a grid-stride loop does.
    const std::int64_t all_tiles = (p.chunks + block_chunks - 1) / block_chunks;
    const std::int64_t tiles =
        std::int64_t(block) < all_tiles ? (all_tiles - 1 - std::int64_t(block)) / std::int64_t(grid) + 1 : 0;
    auto tile_begin = [&](std::int64_t k) { return (std::int64_t(block) + k * std::int64_t(grid)) * block_chunks; };
    auto tile_end = [&](std::int64_t k) { return tile_begin(k) + block_chunks < p.chunks ? tile_begin(k) + block_chunks : p.chunks; };

    for (int k = 0; k < stages - 1; ++k) {
      if (k < tiles) stage_tile(p, tile_begin(k), tile_end(k), team, s.stage[k]);
      for (unsigned t = team.first; t < team.last; ++t) stage_commit();
    }
    int fill_slot = stages - 1, store_slot = 0;
    for (std::int64_t k = 0; k < tiles; ++k) {
      for (unsigned t = team.first; t < team.last; ++t) stage_wait<stages - 2>();
      team.sync();
      const std::int64_t ahead = k + stages - 1;
      if (ahead < tiles) stage_tile(p, tile_begin(ahead), tile_end(ahead), team, s.stage[fill_slot]);
      for (unsigned t = team.first; t < team.last; ++t) stage_commit();
      store_tile(p, tile_begin(k), tile_end(k), team, s.stage[store_slot]);
      fill_slot = fill_slot + 1 == stages ? 0 : fill_slot + 1;
      store_slot = store_slot + 1 == stages ? 0 : store_slot + 1;
    }
  }

 private:
  /// The dy bytes that the chunks [c0, c1) read: from the first source of the first chunk's row at
  /// or after its first element, to the last source of the last chunk's row at or before its last
  /// element (every element with a source lies in its own row of dy, so these bound them all).
  static PADTUNE_HD stage_span span_of(const params& p, std::int64_t c0, std::int64_t c1) {
    stage_span sp;
    if (c1 <= c0) return sp;
    const pad_args& a = p.a;
    std::uint64_t row0, i0, row1, i1;
    p.row_len.divmod(std::uint64_t(p.head + c0 * chunk_elems), row0, i0);
    p.row_len.divmod(std::uint64_t(p.head + c1 * chunk_elems - 1), row1, i1);
    auto clamp_row = [&](std::int64_t x) { return x < 0 ? 0 : (x > a.OL ? a.OL : x); };
    const std::int64_t first = std::int64_t(row0) * a.OL + clamp_row(a.pad_left + std::int64_t(i0));
    const std::int64_t last = std::int64_t(row1) * a.OL + clamp_row(a.pad_left + std::int64_t(i1) + 1);
    if (last <= first) return sp;  // no element has a source
    sp.begin = std::uintptr_t(a.dy) + std::uintptr_t(first) * elem;
    sp.end = std::uintptr_t(a.dy) + std::uintptr_t(last) * elem;
    sp.base = sp.begin & ~std::uintptr_t(15);
    sp.staged = ((sp.end + 15) & ~std::uintptr_t(15)) - sp.base + 16 <= std::uintptr_t(stage_bytes);
    return sp;
  }

  /// Starts the copy of the sources of chunks [c0, c1) into `stage`: 16-byte aligned copies inside
  /// the span and single bytes at its two ends (never a byte outside dy).
  static PADTUNE_HD void stage_tile(const params& p, std::int64_t c0, std::int64_t c1, block_team team, byte* stage) {
    const stage_span sp = span_of(p, c0, c1);
    if (!sp.staged) return;
#if !defined(__CUDA_ARCH__)
    std::memset(stage, 0xA5, stage_bytes);  // the host tests see a read of a byte this tile did not stage
#endif
    const std::uintptr_t a0 = (sp.begin + 15) & ~std::uintptr_t(15), a1 = sp.end & ~std::uintptr_t(15);
    const byte* const dy = p.a.dy;
    const std::uintptr_t dy_address = std::uintptr_t(dy);  // x is the address of byte dy[x - dy_address]
    for (unsigned t = team.first; t < team.last; ++t) {
      if (a0 < a1) {
        for (std::uintptr_t x = a0 + std::uintptr_t(t) * 16; x < a1; x += std::uintptr_t(threads) * 16)
          stage_copy_16(stage + (x - sp.base), dy + (x - dy_address));
        if (t == 0)
          for (std::uintptr_t x = sp.begin; x < a0; ++x) stage[x - sp.base] = dy[x - dy_address];
        if (t == unsigned(threads) - 1)
          for (std::uintptr_t x = a1; x < sp.end; ++x) stage[x - sp.base] = dy[x - dy_address];
      } else if (t == 0) {  // a span with no whole 16-byte line in it
        for (std::uintptr_t x = sp.begin; x < sp.end; ++x) stage[x - sp.base] = dy[x - dy_address];
      }
    }
  }

  /// Stores chunks [c0, c1) from `stage`, where stage_tile put their sources.
  static PADTUNE_HD void store_tile(const params& p, std::int64_t c0, std::int64_t c1, block_team team,
                                    const byte* stage) {
    const stage_span sp = span_of(p, c0, c1);
    byte* const body = p.a.dx + p.head * elem;
    for (unsigned t = team.first; t < team.last; ++t)
      for (std::int64_t c = c0 + t; c < c1; c += threads)
        store_vec<W>(body + c * W, sp.staged ? staged_chunk(p, sp, stage, c) : direct::load_chunk(p, c));
  }

  /// dy element src, read from its copy in a stage; at is the stage offset of dy element 0 (modulo
  /// 2^64: dy may lie below the stage's base).
  struct stage_elements {
    const byte* stage;
    std::uintptr_t at;
    PADTUNE_HD bits_t<elem> operator()(std::int64_t src) const {
      return stage_element<elem>(stage + (at + std::uintptr_t(src) * elem));
    }
  };

  /// Chunk c of the body from the stage. A chunk inside one row with every element sourced is W
  /// contiguous staged bytes, read as 32-bit words and funnel-shifted; others element by element.
  static PADTUNE_HD vec<W> staged_chunk(const params& p, const stage_span& sp, const byte* stage, std::int64_t c) {
    const pad_args& a = p.a;
    std::uint64_t row, i;
    p.row_len.divmod(std::uint64_t(p.head + c * chunk_elems), row, i);
    const std::int64_t src = std::int64_t(row) * a.OL + a.pad_left + std::int64_t(i);
    const std::uintptr_t at = std::uintptr_t(a.dy) - sp.base;
    vec<W> v = zero_vec<W>();
    if (std::int64_t(i) >= a.valid_begin && std::int64_t(i) + chunk_elems <= a.valid_end) {
      const std::uintptr_t o = at + std::uintptr_t(src) * elem;
      const byte* w = stage + (o & ~std::uintptr_t(3));
      const unsigned shift = unsigned(o & 3) * 8;
      std::uint32_t next = stage_element<4>(w);
#pragma unroll
      for (int j = 0; j < vec<W>::words; ++j) {
        const std::uint32_t cur = next;
        // The word after the chunk's last is read only when the chunk straddles it.
        if (j + 1 < vec<W>::words || shift) next = stage_element<4>(w + 4 * (j + 1));
        v.w[j] = funnel_shift_right(cur, next, shift);
      }
      return v;
    }
    direct::template gather<0>(a, stage_elements{stage, at}, v, std::int64_t(i), src);
    return v;
  }
};

}  // namespace padtune::detail
