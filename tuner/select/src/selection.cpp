#include "padtune/select/selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "padtune/candidates/jit_candidates.hpp"

namespace padtune::tuner {
namespace {

long long payload_bytes(dtype type, const shape5& s) { return 2 * s.B * s.C * s.L * (long long)size_of(type); }

using measurement_index = std::map<std::string, const measurement*>;

const measurement* find(const measurement_index& index, const std::string& id, dtype type, const shape5& s) {
  const auto it = index.find(measurement_key(id, type, s));
  return it == index.end() ? nullptr : it->second;
}

candidate_numbers numbers(const measurement_index& index, const std::string& id, dtype type, const shape5& s) {
  candidate_numbers c;
  c.id = id;
  const measurement* m = find(index, id, type, s);
  const measurement* floor = find(index, memcpy_floor_id, type, s);
  if (!m || m->status != "ok") return c;
  c.median_us = m->t.cold.median;
  c.iqr_us = m->t.cold.iqr();
  if (c.median_us > 0) c.gbps = double(payload_bytes(type, s)) / (c.median_us * 1e3);
  if (floor && floor->status == "ok" && floor->t.cold.median > 0) c.ratio_to_memcpy = c.median_us / floor->t.cold.median;
  // Each time is finite, but what comes of two may not be (1e300 us over a floor of 1e-300 us).
  if (!std::isfinite(c.gbps) || !std::isfinite(c.ratio_to_memcpy))
    throw results_error(fmt::format("{}: its median of {} us over the floor's {} us (or its payload over it) is no finite "
                                    "number; the measurement cannot be right", measurement_key(id, type, s), c.median_us,
                                    floor ? floor->t.cold.median : 0.0));
  return c;
}

/// The entry's ranked list, which the dispatcher's vote weighs: the winner, then the ranking's next
/// candidates, each with its score over the winner's (at least 1: the re-timing may have picked a
/// winner the ranking put second).
void rank_for_the_vote(table_entry& e, const shape_ranking& r) {
  double winner_score = 1;
  for (const auto& [id, score] : r.ranked)
    if (id == e.winner.id) winner_score = score;
  e.ranked.push_back({e.winner.id, 1});
  for (const auto& [id, score] : r.ranked)
    if (e.ranked.size() < ranked_limit && id != e.winner.id) e.ranked.push_back({id, std::max(1.0, score / winner_score)});
}

}  // namespace

std::vector<table_entry> select_entries(const std::vector<measurement>& measurements, const finalist_timer& retime,
                                        entry_kind kind) {
  measurement_index index;
  std::vector<measurement> ok;
  for (const measurement& m : measurements) {
    index[measurement_key(m.id, m.type, m.shape)] = &m;
    if (m.status == "ok" && m.id != memcpy_floor_id) ok.push_back(m);
  }
  std::vector<table_entry> out;
  for (const shape_ranking& r : rank_shapes(ok)) {
    std::vector<const instantiation*> finalists;
    for (std::size_t k = 0; k < r.ranked.size() && finalists.size() < 3; ++k)
      if (const instantiation* i = find_candidate(r.ranked[k].first)) finalists.push_back(i);
    if (finalists.empty()) continue;
    const shape5& rep = r.shape;
    std::size_t pick = 0;
    std::vector<summary> times;
    if (finalists.size() > 1 && retime) {
      times = retime(r.type, rep, finalists);
      if (times.size() == finalists.size()) pick = pick_finalist(times);
      else times.clear();  // keep the ranking's order
    }
    table_entry e;
    e.type = r.type;
    e.where = r.where;
    e.shape = rep;
    e.exact = kind == entry_kind::exact;
    e.winner = numbers(index, finalists[pick]->id, r.type, rep);
    std::optional<std::size_t> second;
    for (std::size_t k = 0; k < finalists.size(); ++k)
      if (k != pick && (!second || (times.empty() ? k < *second : times[k].median < times[*second].median))) second = k;
    if (second) {
      e.runner_up = numbers(index, finalists[*second]->id, r.type, rep);
      e.margin = times.empty() ? r.ranked[1].second / r.ranked[0].second - 1 : times[*second].median / times[pick].median - 1;
    }
    rank_for_the_vote(e, r);
    out.push_back(std::move(e));
  }
  return out;
}

finalist_timer cached_timings(const std::vector<measurement>& measurements) {
  auto cold = std::make_shared<std::map<std::string, summary>>();
  for (const measurement& m : measurements)
    if (m.status == "ok") (*cold)[measurement_key(m.id, m.type, m.shape)] = m.t.cold;
  return [cold](dtype type, const shape5& rep, const std::vector<const instantiation*>& finalists) {
    std::vector<summary> times;
    for (const instantiation* i : finalists) {
      const auto it = cold->find(measurement_key(i->id, type, rep));
      if (it == cold->end()) return std::vector<summary>{};
      times.push_back(it->second);
    }
    return times;
  };
}

nlohmann::json table_settings(const nlohmann::json& measured_with, const std::string& backend_name, const std::string& search,
                              const std::string& kernel_sources) {
  nlohmann::json s = measured_with;
  s["backend"] = backend_name;
  s["search"] = search;
  if (backend_name == "host") s["note"] = "host emulation: these timings say nothing about GPU speed";
  s["kernel_sources"] = kernel_sources;
  return s;
}

std::vector<shape_ranking> rank_shapes(const std::vector<measurement>& ok) {
  struct group {
    dtype type;
    shape5 shape;  // the first measured split of its rows into B and C
    std::map<std::string, std::pair<double, shape5>> times;  // id -> (median, the split it was measured on)
  };
  std::vector<group> groups;
  std::map<std::tuple<int, long long, long long, long long, long long>, std::size_t> group_of;  // same_problem's key
  for (const measurement& m : ok) {
    const shape5& s = m.shape;
    const auto [it, fresh] = group_of.emplace(std::make_tuple(int(m.type), s.B * s.C, s.L, s.pad_left, s.pad_right), groups.size());
    if (fresh) groups.push_back(group{m.type, s, {}});
    groups[it->second].times[m.id] = {m.t.cold.median, s};
  }
  std::vector<shape_ranking> out;
  for (const group& g : groups) {
    double best = INFINITY;
    for (const auto& [id, t] : g.times) best = std::min(best, t.first);
    shape_ranking r{g.type, bucket_of(g.shape.B * g.shape.C, g.shape.L, g.shape.pad_left, g.type), g.shape, {}};
    for (const auto& [id, t] : g.times) r.ranked.emplace_back(id, best > 0 ? t.first / best : 1.0);
    std::sort(r.ranked.begin(), r.ranked.end(), [](const auto& a, const auto& b) { return a.second < b.second || (a.second == b.second && a.first < b.first); });
    if (r.ranked.empty()) continue;
    r.shape = g.times.at(r.ranked.front().first).second;  // where the leader was measured: its numbers are there
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const shape_ranking& a, const shape_ranking& b) {
    const shape5 &x = a.shape, &y = b.shape;
    return std::make_tuple(int(a.type), a.where.log2_L, a.where.log2_rows, a.where.align, x.B * x.C, x.L, x.pad_left, x.pad_right) <
           std::make_tuple(int(b.type), b.where.log2_L, b.where.log2_rows, b.where.align, y.B * y.C, y.L, y.pad_left, y.pad_right);
  });
  return out;
}

std::size_t pick_finalist(const std::vector<summary>& times) {
  std::size_t fastest = 0;
  for (std::size_t k = 1; k < times.size(); ++k)
    if (times[k].median < times[fastest].median) fastest = k;
  // The best-ranked finalist within noise of the fastest: the re-timing overrides the ranking (the
  // sweep's measurements) only where it can tell. Noise: 1%, or more where the two medians
  // are that uncertain (1.96 standard errors of their difference); not the samples' spread, which let
  // a 1.8-3% slower finalist win beside a noisy fastest one (P5 f32 1.070 against 1.039, v11).
  const summary& f = times[fastest];
  for (std::size_t k = 0; k < fastest; ++k) {
    const double se_k = times[k].median_standard_error(), se_f = f.median_standard_error();
    const double noise = std::max(0.01, 1.96 * std::sqrt(se_k * se_k + se_f * se_f) / f.median);
    if (times[k].median <= f.median * (1 + noise)) return k;
  }
  return fastest;
}

}  // namespace padtune::tuner
