#pragma once
// `padtune merge`: results tables and measurement caches made on several machines of one GPU
// model, combined into one table (and one cache). Inputs of another model are refused, or kept
// apart, one output per model.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "padtune/store/cache.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// One input of a merge, read: a table, or a measurement cache.
struct merge_input {
  std::filesystem::path path;
  bool is_cache = false;
  device_fingerprint device;
  std::string harness;
  /// The settings in a table's form without "search": inputs merge only where these are equal.
  nlohmann::json settings = nlohmann::json::object();
  std::string search;                ///< how a table was searched ("exhaustive", ...); "" for a cache
  bool complete = true;
  std::vector<table_entry> entries;  ///< a table's entries
  cache_file cache;                  ///< a cache's contents
};

/// True if the text's first line is a cache header (a table's first line is "{" or a whole table).
bool looks_like_cache(const std::string& text);

/// Reads a table, or a cache (a file whose first line is a cache header). Throws results_error
/// naming the file (and the line, in a cache); a cache with a torn last line, or measured from
/// other kernel sources than this padtune's, is refused too.
merge_input read_merge_input(const std::filesystem::path& path);

/// Of two measurements of one key: a verification failure anywhere wins (a candidate that wrote a
/// wrong byte on one machine is never chosen), then "ok", then "pruned", then a launch failure;
/// between two of one status, the lower relative spread, then more samples, then the lower median.
const measurement& better_measurement(const measurement& a, const measurement& b);

/// The caches' measurements, one per key (better_measurement), ordered by dtype, shape and id so
/// that the result does not depend on the order of the inputs.
std::vector<measurement> union_of_caches(const std::vector<const cache_file*>& caches);

/// Per place (same_place: dtype and shape), the entry whose winner has the lowest ratio_to_memcpy
/// (entries without a ratio count after those with one, by median; ties go to the earlier table).
/// Its runner-up is the fastest other candidate seen in any table for that place, by the same key; the margin stays the
/// entry's own where the runner-up is the entry's own, else it is the ratio of the two ratios. The
/// entry's ranked list is its own, with a runner-up from another table placed in it at the margin.
std::vector<table_entry> merge_entries(const std::vector<std::vector<table_entry>>& tables);

/// What merge makes for one device model.
struct merged_device {
  results_table table;
  std::optional<std::string> cache_text;  ///< the merged cache, where caches were among the inputs
  std::vector<std::filesystem::path> sources;
};

struct merge_result {
  std::vector<merged_device> devices;  ///< one per hardware model, in the order first seen
  std::vector<std::string> warnings;   ///< differing drivers or runtimes, conflicting verifications
};

/// Groups the inputs by hardware model (device_fingerprint::same_hardware). Throws results_error
/// naming both files and both devices where there are two models and !by_device, and where inputs
/// of one model differ in settings, kernel sources or padtune version. Caches are unioned and a
/// table selected from them (select_entries, the finalists' cached timings standing in for the
/// tuner's re-timing); that table and the input tables are then merged by merge_entries.
merge_result merge(const std::vector<merge_input>& inputs, bool by_device, const std::string& command);

}  // namespace padtune::tuner
