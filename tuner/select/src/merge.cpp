#include "padtune/select/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "padtune/select/selection.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::tuner {

using nlohmann::json;

bool looks_like_cache(const std::string& text) {
  const std::string first = text.substr(0, text.find('\n'));
  try {
    const json j = parse_json(first, "");
    return j.is_object() && j.contains("padtune_cache");
  } catch (const results_error&) {
    return false;
  }
}

namespace {

json without_search(json settings) {
  settings.erase("search");
  return settings;
}

/// A failure on any machine wins: a candidate that wrote a wrong byte, faulted or hung somewhere is
/// never chosen.
bool is_failure(const std::string& status) { return status == "verify_failed" || status == "fault" || status == "timeout"; }

int status_rank(const std::string& status) {
  if (is_failure(status)) return 3;
  if (status == "ok") return 2;
  if (status == "pruned") return 1;
  return 0;
}

/// Orders candidates' numbers for merging: a ratio to the floor first (comparable across machines
/// and shapes of one model), by median where no floor was measured.
auto merit(const candidate_numbers& c) { return std::make_tuple(c.ratio_to_memcpy > 0 ? 0 : 1, c.ratio_to_memcpy > 0 ? c.ratio_to_memcpy : c.median_us); }

/// Puts `id` into a ranked list at `ratio` (kept in order, at most ranked_limit long): a runner-up
/// that another table supplied must be weighed by the vote at its margin, not as unranked.
void rank_runner_up(std::vector<ranked_candidate>& ranked, const std::string& id, double ratio) {
  std::erase_if(ranked, [&](const ranked_candidate& c) { return c.id == id; });
  auto at = std::find_if(ranked.begin() + 1, ranked.end(), [&](const ranked_candidate& c) { return c.ratio > ratio; });
  ranked.insert(at, {id, ratio});
  if (ranked.size() > ranked_limit) ranked.resize(ranked_limit);
}

double margin_between(const candidate_numbers& winner, const candidate_numbers& runner_up) {
  if (winner.ratio_to_memcpy > 0 && runner_up.ratio_to_memcpy > 0) return runner_up.ratio_to_memcpy / winner.ratio_to_memcpy - 1;
  return winner.median_us > 0 ? runner_up.median_us / winner.median_us - 1 : 0;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

/// How a cache's measurements were searched, as a table's "search" says it: a cache with no
/// "pruned" measurement timed every candidate it holds in full, as --exhaustive does (the shards of
/// an exhaustive sweep stay exhaustive merged, and the default tune takes their table's contenders).
std::string cache_search(const cache_file& c) {
  const bool pruned = std::any_of(c.records.begin(), c.records.end(), [](const measurement& m) { return m.status == "pruned"; });
  return pruned ? "selected from the merged caches (some candidates screened out)" : "exhaustive";
}

/// Refuses an input that cannot be merged with the first of its device model.
void check_compatible(const merge_input& first, const merge_input& other) {
  if (other.harness != first.harness)
    throw results_error(fmt::format("{} was made by padtune {}, {} by padtune {}: tables of other padtune versions are not merged",
                                    first.path.string(), first.harness, other.path.string(), other.harness));
  if (other.settings != first.settings)
    throw results_error(fmt::format("{} was measured with the settings {}, {} with {}: measurements of other settings (or "
                                    "other kernel sources) are not merged",
                                    first.path.string(), first.settings.dump(), other.path.string(), other.settings.dump()));
}

/// Merges the inputs of one device model. Pre: group is not empty and all of one model.
merged_device merge_group(const std::vector<const merge_input*>& group, const std::string& command, std::vector<std::string>& warnings) {
  const merge_input& first = *group.front();
  merged_device out;
  std::vector<const cache_file*> caches;
  std::vector<std::vector<table_entry>> tables;
  std::vector<std::string> searches, uuids;
  bool complete = true;
  for (const merge_input* in : group) {
    check_compatible(first, *in);
    if (in->device.driver_version != first.device.driver_version || in->device.runtime_version != first.device.runtime_version)
      warnings.push_back(fmt::format("{} was measured with driver {} and runtime {}, {} with driver {} and runtime {}: merged "
                                     "anyway (the same hardware model); the table records the first",
                                     first.path.string(), first.device.driver_version, first.device.runtime_version,
                                     in->path.string(), in->device.driver_version, in->device.runtime_version));
    out.sources.push_back(in->path);
    complete = complete && in->complete;
    if (std::find(uuids.begin(), uuids.end(), in->device.uuid) == uuids.end()) uuids.push_back(in->device.uuid);
    const std::string search = in->is_cache ? cache_search(in->cache) : in->search;
    if (std::find(searches.begin(), searches.end(), search) == searches.end()) searches.push_back(search);
    if (in->is_cache) caches.push_back(&in->cache);
    else tables.push_back(in->entries);
  }
  if (!caches.empty()) {
    const std::vector<measurement> all = union_of_caches(caches);
    // Selected as `padtune tune` selects; the finalists' cached timings stand in for re-timing them
    // side by side, which needs a GPU of the measuring model. Its table goes first: it saw every
    // shape of every cache, so it wins ties.
    tables.insert(tables.begin(), select_entries(all, cached_timings(all)));
    std::string text = cache_header_line(caches.front()->device, caches.front()->settings) + "\n";
    for (const measurement& m : all) text += to_json(m).dump() + "\n";
    out.cache_text = std::move(text);
  }
  results_table& t = out.table;
  t.device = first.device;
  t.device.uuid = join(uuids, ",");  // provenance: every card that measured
  t.harness = first.harness;
  t.settings = first.settings;
  t.settings["search"] = join(searches, " + ");
  t.command = command;
  t.created = utc_now();
  t.complete = complete;
  t.entries = merge_entries(tables);
  return out;
}

}  // namespace

merge_input read_merge_input(const std::filesystem::path& path) {
  const std::string name = path.string();
  const std::string text = read_input_file(path, max_input_bytes, "table or cache");
  merge_input in;
  in.path = path;
  if (!looks_like_cache(text)) {
    results_table t = parse_table(text, name);
    in.device = t.device;
    in.harness = t.harness;
    in.search = t.settings.is_object() ? t.settings.value("search", std::string()) : std::string();
    in.settings = t.settings.is_object() ? without_search(t.settings) : t.settings;
    in.complete = t.complete;
    in.entries = std::move(t.entries);
    return in;
  }
  in.is_cache = true;
  in.cache = parse_cache(text, name);
  // Merge reads its inputs as they are and changes none: a line it cannot read is refused by name
  // (a tune on that cache sets such lines aside and goes on).
  if (!in.cache.rejected.empty()) {
    const rejected_line& r = in.cache.rejected.front();
    throw results_error(fmt::format("{}:{}: corrupt line: {}", name, r.number, r.why));
  }
  if (in.cache.torn_last_line)
    throw results_error(fmt::format("{}: the last line is torn (a run killed mid-write): run that padtune tune again to "
                                    "finish it, or delete the line", name));
  // Selection looks candidates up in this build's registry: measurements of other kernel code are
  // refused, as `padtune tune` refuses them; a cache that predates the hash is taken as it is.
  if (!in.cache.kernel_sources.empty() && in.cache.kernel_sources != kernel_sources_hash)
    throw results_error(fmt::format("{}: measured kernel sources \"{}\", this padtune was built from {} (kernels/device "
                                    "changed): merge it with the padtune that measured it", name, in.cache.kernel_sources,
                                    kernel_sources_hash));
  in.device = in.cache.device;
  in.harness = harness_version;  // parse_cache refuses any other
  in.settings = without_search(table_settings(in.cache.settings, in.device.backend, "", kernel_sources_hash));
  return in;
}

const measurement& better_measurement(const measurement& a, const measurement& b) {
  const auto key = [](const measurement& m) {
    return std::make_tuple(-status_rank(m.status), m.t.cold.relative_spread(), -m.t.cold.samples, m.t.cold.median);
  };
  return key(b) < key(a) ? b : a;
}

std::vector<measurement> union_of_caches(const std::vector<const cache_file*>& caches) {
  std::map<std::string, measurement> by_key;
  for (const cache_file* c : caches)
    for (const measurement& m : c->records) {
      const std::string key = measurement_key(m.id, m.type, m.shape);
      const auto it = by_key.find(key);
      if (it == by_key.end()) by_key.emplace(key, m);
      else it->second = better_measurement(it->second, m);
    }
  std::vector<measurement> out;
  for (auto& [key, m] : by_key) out.push_back(std::move(m));
  std::sort(out.begin(), out.end(), [](const measurement& a, const measurement& b) {
    const auto order = [](const measurement& m) {
      return std::make_tuple(int(m.type), m.shape.B, m.shape.C, m.shape.L, m.shape.pad_left, m.shape.pad_right, m.id);
    };
    return order(a) < order(b);
  });
  return out;
}

std::vector<table_entry> merge_entries(const std::vector<std::vector<table_entry>>& tables) {
  // The entries of one place (same_place: kind, dtype and shape), in input order.
  std::vector<std::vector<const table_entry*>> places;
  std::map<std::tuple<int, bool, long long, long long, long long, long long>, std::size_t> place_of;  // same_place's key
  for (const auto& entries : tables)
    for (const table_entry& e : entries) {
      const auto key = std::make_tuple(int(e.type), e.exact, e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right);
      const auto [it, fresh] = place_of.emplace(key, places.size());
      if (fresh) places.push_back({&e});
      else places[it->second].push_back(&e);
    }
  std::vector<table_entry> out;
  for (const auto& seen : places) {
    const table_entry* best = seen.front();
    for (const table_entry* e : seen)
      if (merit(e->winner) < merit(best->winner)) best = e;
    table_entry merged = *best;
    const candidate_numbers* runner_up = nullptr;
    for (const table_entry* e : seen) {
      std::vector<const candidate_numbers*> others{&e->winner};
      if (e->runner_up) others.push_back(&*e->runner_up);
      for (const candidate_numbers* c : others)
        if (c->id != best->winner.id && (!runner_up || merit(*c) < merit(*runner_up))) runner_up = c;
    }
    if (!runner_up) {
      merged.runner_up.reset();
      merged.margin = 0;
    } else if (!(best->runner_up && runner_up == &*best->runner_up)) {
      merged.runner_up = *runner_up;
      merged.margin = margin_between(best->winner, *runner_up);
      if (!merged.ranked.empty()) rank_runner_up(merged.ranked, runner_up->id, std::max(1.0, 1 + merged.margin));
    }
    out.push_back(std::move(merged));
  }
  std::stable_sort(out.begin(), out.end(), [](const table_entry& a, const table_entry& b) { return entry_order(a) < entry_order(b); });
  return out;
}

merge_result merge(const std::vector<merge_input>& inputs, bool by_device, const std::string& command) {
  std::vector<std::vector<const merge_input*>> groups;
  for (const merge_input& in : inputs) {
    auto g = std::find_if(groups.begin(), groups.end(), [&](const auto& group) { return group.front()->device.same_hardware(in.device); });
    if (g != groups.end()) {
      g->push_back(&in);
      continue;
    }
    if (!groups.empty() && !by_device) {
      const merge_input& first = *groups.front().front();
      throw results_error(fmt::format("{} was measured on {}, {} on {}: tables of different device models are not merged; "
                                      "pass --by-device --output-dir DIR to write one table per model",
                                      first.path.string(), first.device.describe(), in.path.string(), in.device.describe()));
    }
    groups.push_back({&in});
  }
  merge_result r;
  for (const auto& group : groups) r.devices.push_back(merge_group(group, command, r.warnings));
  // A verification that failed on one machine and passed on another is worth a look.
  std::map<std::string, std::pair<bool, bool>> verdicts;  // key -> (failed somewhere, passed somewhere)
  for (const merge_input& in : inputs)
    for (const measurement& m : in.cache.records) {
      auto& [failed, passed] = verdicts[in.device.slug() + "|" + measurement_key(m.id, m.type, m.shape)];
      failed = failed || is_failure(m.status);
      passed = passed || m.status == "ok";
    }
  for (const auto& [key, v] : verdicts)
    if (v.first && v.second)
      r.warnings.push_back(fmt::format("{}: failed (verification, fault or time-out) in one cache and passed in another; it is kept as failed", key));
  return r;
}

}  // namespace padtune::tuner
