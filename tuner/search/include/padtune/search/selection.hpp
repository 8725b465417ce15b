#pragma once
// Selection: from measurements to a table's entries, per (dtype, bucket). Pure except for the
// re-timing of finalists, which the caller supplies: `padtune tune` times them side by side on its
// GPU, `padtune merge` (no GPU of the measuring model at hand) takes their cached timings.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "padtune/store/cache.hpp"

namespace padtune::tuner {

/// What a table entry stands for: a bucket (the sweep's shapes in it together), or one exact shape
/// (padtune tune --sizes: the user's own workload).
enum class entry_kind { bucket, exact };

/// Per (dtype, bucket), or per (dtype, shape) for exact entries: the fastest candidate over the
/// group's shapes (geometric mean of time over the best time of each shape). Pure: no measurement.
struct bucket_ranking {
  dtype type;
  bucket where;
  std::vector<shape5> shapes;
  std::vector<std::pair<std::string, double>> ranked;  ///< (id, score >= 1), best first
};
std::vector<bucket_ranking> rank_buckets(const std::vector<measurement>& ok_measurements, entry_kind kind = entry_kind::bucket);

/// Picks among finalists re-timed side by side, `times` in the ranking's order: the best-ranked one
/// within noise of the fastest (1%, or 1.96 standard errors of the two medians' difference, whichever
/// is more). Returns the index into times. Pre: !times.empty().
std::size_t pick_finalist(const std::vector<summary>& times);

/// Times the finalists of a bucket on its representative shape, one summary each; an empty result
/// keeps the ranking's order (and the margin of the ranking's scores).
using finalist_timer =
    std::function<std::vector<summary>(dtype, const shape5& representative, const std::vector<const instantiation*>& finalists)>;

/// The table's entries: per (dtype, bucket) (or exact shape) of the "ok" measurements, the top three
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
