#pragma once
// The rule for tiny problems on a GPU: at most 32 KB of dy plus dx in at most 64 rows. Every kernel
// is launch-bound there (3 to 4 us), the table's entries differ by timer noise, and the vote of
// such noise picked up to 1.25x the best: on the 94 such shapes of held-out seeds 1-13 (H200
// caches, judged with the H200 table) the vote's pick had a geometric mean of 1.081 over the best,
// rowelem bo256 t128 one of 1.009 (worst 1.072). On every such sweep shape of the H100's and the
// H200's caches it is within 1.048 of the best (docs/performance-notes.md, "Tiny shapes: one
// kernel"). Many rows of one or two elements are left to the table: rowelem, a row per thread
// group, is 11-13% behind there.
#include <cstdint>

#include "padtune/dtype.hpp"
#include "padtune/registry.hpp"

namespace padtune::detail {

inline constexpr std::int64_t tiny_payload_bytes = 32 << 10, tiny_rows = 64;
inline constexpr std::string_view tiny_variant = "rowelem";
inline constexpr int tiny_block_ol = 256, tiny_threads = 128;

/// Whether the rule serves this problem on backend b (never on the host: its emulation is timed
/// by nothing).
inline bool is_tiny(backend b, std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right, dtype type) {
  if (b != backend::cuda || rows > tiny_rows) return false;
  // OL >= 0 and every size fits an int64 once check_shape passed; the bound keeps the product small.
  const std::int64_t OL = L + pad_left + pad_right;
  if (L > tiny_payload_bytes || OL > tiny_payload_bytes) return false;
  return rows * (L + OL) * std::int64_t(size_of(type)) <= tiny_payload_bytes;
}

/// The rule's kernel for dtype `type`: rowelem bo256 t128, one element per access; nullptr if this
/// library does not have it.
const instantiation* tiny_instantiation(dtype type);

}  // namespace padtune::detail
