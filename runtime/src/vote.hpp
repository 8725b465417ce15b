#pragma once
// The dispatcher's choice for a shape that no exact entry holds: a vote of the table entries
// nearest to it. Each entry ranks its 16 fastest candidates (the winner, then the others with their
// time over the winner's); the 8 nearest entries weigh in by distance, and the candidate with the
// least weighted log ratio over them wins. Against the nearest bucket's winner alone, on the 200
// random shapes of held-out seeds 1-5 (which the H200 table was not tuned on), the pick's geometric
// mean over the best went from 1.0236 to 1.0145, measured on the H200 (docs/performance-notes.md,
// "Tables: the neighbours vote").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "padtune/dtype.hpp"
#include "padtune/registry.hpp"
#include "padtune/table.hpp"

namespace padtune::detail {

/// Where a shape lies for the vote: log2 of its row length and of its row count, log2 of the
/// alignment (1 to 16 bytes) of a dx row's bytes and of pad_left's bytes, and log2 of dy's row
/// length over dx's (OL / L: about 0 on long rows, large where dy is pitched, negative where a
/// forward pad or a crop reads a shorter row).
struct vote_point {
  float log2_L = 0, log2_rows = 0, row_align = 0, pad_align = 0, log2_span = 0;
};

vote_point point_of(std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right, dtype type) noexcept;

/// Length, row count, row alignment and span weigh one per doubling; pad alignment a quarter (fitted
/// to the H200 sweep by leaving each shape out in turn: the row alignment is what tells flat from
/// flatvec on short 16-bit rows, the pad's alignment matters little once the row's is known). The
/// span tells a narrowed gradient's short rows, which read sectors scattered OL apart, from
/// contiguous rows of the same L (issue #40).
inline float vote_distance(const vote_point& a, const vote_point& b) noexcept {
  return std::fabs(a.log2_L - b.log2_L) + std::fabs(a.log2_rows - b.log2_rows) + std::fabs(a.row_align - b.row_align) +
         0.25f * std::fabs(a.pad_align - b.pad_align) + std::fabs(a.log2_span - b.log2_span);
}

/// What one table entry brings to the vote.
struct voter {
  vote_point at;  ///< its measured shape's
  /// Its candidates that this library runs, fastest first, with log(time / the winner's time).
  std::vector<std::pair<const instantiation*, float>> ranked;
};

inline constexpr std::size_t vote_size = 8;  ///< the voters: the nearest entries
inline constexpr std::size_t voter_ranks = ranked_limit;  ///< the candidates each voter ranks, at most
/// What a candidate costs at a voter that does not rank it: at least 20% slower than the winner,
/// or slower than the voter's last ranked.
inline constexpr float unranked_log_ratio = 0.18232156f;  // log(1.2)

/// An entry measured at the very shape keeps its winner where the vote's pick ran more than 1%
/// slower there: neighbours that agree outvote one entry, and a kernel that only a few entries see
/// win (flatvec's aligned pieces at P2 16-bit: 2.0% on the H200) lost to them. Within 1% the vote
/// smooths over noise as before (docs/performance-notes.md, "v15").
inline constexpr float own_shape_margin = 0.00995033f;  // log(1.01)

struct vote_result {
  const instantiation* inst = nullptr;  ///< nullptr when no voter ranks anything
  std::size_t nearest = 0;              ///< index of the nearest voter
  float distance = 0;                   ///< its distance
  std::size_t voters = 0;               ///< how many weighed in
  /// The best-voted `finalists` (vote's argument) of the candidates, best first (ties in the order
  /// named); `inst` is the first. First-use timing (autotune.hpp) times them.
  std::array<const instantiation*, vote_size * voter_ranks> order{};
  std::size_t candidates = 0;  ///< how many candidates the voters named
};

/// The vote over `entries` (each holding a voter, reached by voter_of) for a shape at `at`. Ties in
/// distance go to the earlier entry, ties in cost to the candidate the nearer voter ranks first.
/// With `finalists` > 1 the first `finalists` of `order` are ranked too (the dispatch path asks
/// for 1: only the winner).
template <class Entry, class VoterOf>
vote_result vote(const std::vector<Entry>& entries, const vote_point& at, VoterOf voter_of, std::size_t finalists = 1) {
  vote_result out;
  // The vote_size nearest, by (distance, index): insertion into a short sorted array.
  std::array<std::pair<float, std::size_t>, vote_size> near{};
  std::size_t n = 0;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const voter& v = voter_of(entries[i]);
    if (v.ranked.empty()) continue;
    const float d = vote_distance(at, v.at);
    if (n == vote_size && !(d < near[n - 1].first)) continue;
    std::size_t k = n < vote_size ? n++ : vote_size - 1;
    for (; k > 0 && d < near[k - 1].first; --k) near[k] = near[k - 1];
    near[k] = {d, i};
  }
  if (n == 0) return out;
  out.nearest = near[0].second, out.distance = near[0].first, out.voters = n;

  // cost(c) = sum over voters of w * (c's log ratio there, or the voter's miss cost). The sum of
  // every voter's miss cost is the same for all candidates, so only the differences are kept: where
  // a voter ranks c, w * (its log ratio - its miss cost). The candidates (at most 128) are tallied in
  // a small open-addressed table keyed by the kernel's address: no search over a list per rank.
  struct tally {
    const instantiation* inst = nullptr;
    float cost = 0;
  };
  constexpr std::size_t table_size = 2 * vote_size * voter_ranks;  // half full at most
  static_assert(table_size == 256, "the slot is the top 8 bits of a multiplicative hash, kept in a uint8_t");
  std::array<tally, table_size> table{};
  std::array<std::uint8_t, vote_size * voter_ranks> first_seen{};  // table slots, in the order named
  std::size_t candidates = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const voter& v = voter_of(entries[near[k].second]);
    const float w = 1.0f / ((0.25f + near[k].first) * (0.25f + near[k].first));
    const float miss = std::fmax(unranked_log_ratio, v.ranked.back().second);
    for (std::size_t r = 0; r < v.ranked.size() && r < voter_ranks; ++r) {
      const auto& [inst, log_ratio] = v.ranked[r];
      std::size_t slot = std::size_t((std::uint64_t(reinterpret_cast<std::uintptr_t>(inst)) * 0x9E3779B97F4A7C15ull) >> 56);
      while (table[slot].inst && table[slot].inst != inst) slot = (slot + 1) % table_size;
      if (!table[slot].inst) table[slot].inst = inst, first_seen[candidates++] = std::uint8_t(slot);
      table[slot].cost += w * (log_ratio - miss);
    }
  }
  // Selection of the `finalists` cheapest, in place: the winner alone is one pass. Strict `<` keeps
  // the earlier-named candidate on a tie.
  const std::size_t ranked = std::min(std::max<std::size_t>(finalists, 1), candidates);
  for (std::size_t f = 0; f < ranked; ++f) {
    std::size_t best = f;
    for (std::size_t c = f + 1; c < candidates; ++c)
      if (table[first_seen[c]].cost < table[first_seen[best]].cost) best = c;
    std::rotate(first_seen.begin() + std::ptrdiff_t(f), first_seen.begin() + std::ptrdiff_t(best),
                first_seen.begin() + std::ptrdiff_t(best) + 1);  // keeps the others in the order named
  }
  for (std::size_t c = 0; c < ranked; ++c) out.order[c] = table[first_seen[c]].inst;
  out.candidates = candidates;
  out.inst = out.order[0];
  return out;
}

/// Puts `inst` first among r's ranked `finalists` (the vote's argument) and makes it r's choice; the
/// others keep their order after it. If it was not one of them, the last of them makes room.
/// Pre: r.candidates > 0.
inline void put_first(vote_result& r, const instantiation* inst, std::size_t finalists) {
  const auto first = r.order.begin();
  const auto last = first + std::ptrdiff_t(std::min(std::max<std::size_t>(finalists, 1), r.candidates));
  auto at = std::find(first, last, inst);
  if (at == last) *--at = inst;
  std::rotate(first, at, at + 1);
  r.inst = inst;
}

}  // namespace padtune::detail
