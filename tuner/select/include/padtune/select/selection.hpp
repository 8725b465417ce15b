#pragma once
// Selection: from measurements to a table's entries, one per measured (dtype, shape). Pure except for the
// re-timing of finalists, which the caller supplies: `padtune tune` times them side by side on its
// GPU, `padtune merge` (no GPU of the measuring model at hand) takes their cached timings.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "padtune/store/cache.hpp"

namespace padtune::tuner {

/// What a table entry stands for: a sweep's shape, which the vote weighs for the shapes near it (a
/// bucket's entry), or one exact shape (padtune tune --sizes: the user's own workload).
enum class entry_kind { bucket, exact };

/// One ranking per measured problem (dtype, rows, L, pads), labelled with its bucket: the candidates
/// by time over the best. Every measured shape is an entry of its own, so a vote's voter: a bucket
/// with two shapes (a sweep's and a suite's) made one entry at the first shape's place before, and
/// the vote served the other (P8 f32) a kernel 7% slower than its own measured best. Pure.
struct shape_ranking {
  dtype type;
  bucket where;
  shape5 shape;  ///< the split of rows into B and C that the leader was measured on
  std::vector<std::pair<std::string, double>> ranked;  ///< (id, time over the best >= 1), best first
};
std::vector<shape_ranking> rank_shapes(const std::vector<measurement>& ok_measurements);

/// Picks among finalists re-timed side by side, `times` in the ranking's order: the best-ranked one
/// within noise of the fastest (1%, or 1.96 standard errors of the two medians' difference, whichever
/// is more). Returns the index into times. Pre: !times.empty().
std::size_t pick_finalist(const std::vector<summary>& times);

/// Times the finalists of an entry on its shape, one summary each; an empty result
/// keeps the ranking's order (and the margin of the ranking's scores).
using finalist_timer =
    std::function<std::vector<summary>(dtype, const shape5& shape, const std::vector<const instantiation*>& finalists)>;

/// The table's entries: per measured (dtype, shape) of the "ok" measurements, the top three
/// of the ranking are re-timed by `retime` and pick_finalist chooses; numbers come from the
/// measurements (the memcpy floor's included). `measurements` may hold every status; duplicates of
/// a key: the last wins. Pruned candidates do not rank: a 10-sample screen's median can be lucky, and
/// ranked with the others it let a candidate 9% slower win (f16 l17_r2_a16 on the H200).
std::vector<table_entry> select_entries(const std::vector<measurement>& measurements, const finalist_timer& retime,
                                        entry_kind kind = entry_kind::bucket);

/// A finalist_timer that re-times nothing: it returns each finalist's cached timing on the shape
/// (none, keeping the ranking's order, when one is missing).
finalist_timer cached_timings(const std::vector<measurement>& measurements);

/// A table's settings: the measurement settings of its cache, the backend, the search, the hash of
/// the kernel sources, and a warning on host-emulation tables.
nlohmann::json table_settings(const nlohmann::json& measured_with, const std::string& backend_name, const std::string& search,
                              const std::string& kernel_sources);

}  // namespace padtune::tuner
