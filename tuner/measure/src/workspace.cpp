#include "padtune/measure/workspace.hpp"
#include "padtune/detail/input.hpp"

#include <fmt/format.h>

namespace padtune::tuner {

using nlohmann::json;

problem_sizes sizes_of(dtype type, const shape5& s) {
  std::string why;
  problem_sizes z;
  if (check_shape(s.B, s.C, s.L, s.pad_left, s.pad_right, type, &why, &z) != status::ok) throw std::runtime_error(why);
  return z;
}

json to_json(const measure_settings& m) {
  json j = {{"l2_cold", m.l2_cold},
            {"hot_too", m.hot_too},
            {"warmup", m.warmup},
            {"min_samples", m.rule.min_samples},
            {"max_samples", m.rule.max_samples},
            {"target_spread", m.rule.target_spread},
            {"budget_seconds_per_candidate", m.rule.budget_seconds}};
  // Only where set (a screen's rule, sent to an isolated worker): the full rule's JSON, which caches
  // and tables record and a resume compares exactly, stays what it was.
  if (m.rule.target_standard_error > 0) j["target_standard_error"] = m.rule.target_standard_error;
  return j;
}

measure_settings measure_settings_from_json(const json& j) {
  measure_settings m;
  m.l2_cold = j.at("l2_cold").get<bool>();
  m.hot_too = j.at("hot_too").get<bool>();
  m.warmup = j.at("warmup").get<int>();
  m.rule.min_samples = j.at("min_samples").get<int>();
  m.rule.max_samples = j.at("max_samples").get<int>();
  m.rule.target_spread = j.at("target_spread").get<double>();
  m.rule.budget_seconds = j.at("budget_seconds_per_candidate").get<double>();
  m.rule.target_standard_error = j.value("target_standard_error", 0.0);
  return m;
}

json to_json(const summary& s) { return {{"median_us", s.median}, {"q1_us", s.q1}, {"q3_us", s.q3}, {"samples", s.samples}}; }

summary summary_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw results_error(fmt::format("{}: expected an object", where));
  const auto at = [&](const char* key) -> const json& {
    const auto it = j.find(key);
    if (it == j.end()) throw results_error(fmt::format("{}: field '{}' is missing", where, key));
    return *it;
  };
  summary s;
  s.median = strict_number(at("median_us"), where + ": field 'median_us'", 0);
  s.q1 = strict_number(at("q1_us"), where + ": field 'q1_us'", 0);
  s.q3 = strict_number(at("q3_us"), where + ": field 'q3_us'", 0);
  s.samples = int(strict_integer(at("samples"), where + ": field 'samples'", 0, 1 << 30));
  return s;
}

json to_json(const timing& t) { return {{"cold", to_json(t.cold)}, {"hot", to_json(t.hot)}}; }

timing timing_from_json(const json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("cold") || !j.contains("hot")) throw results_error(fmt::format("{}: expected cold and hot", where));
  return {summary_from_json(j.at("cold"), where + ": cold"), summary_from_json(j.at("hot"), where + ": hot")};
}

std::vector<summary> time_interleaved(workspace& ws, const std::vector<const instantiation*>& insts, int rounds,
                                      const measure_settings& s) {
  measure_settings one = s;
  one.warmup = 1, one.hot_too = false;
  one.rule.min_samples = one.rule.max_samples = 1;
  std::vector<std::vector<double>> samples(insts.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < insts.size(); ++i) samples[i].push_back(ws.time(*insts[i], one).cold.median);
  std::vector<summary> out;
  for (auto& v : samples) out.push_back(summarize(std::move(v)));
  return out;
}

}  // namespace padtune::tuner
