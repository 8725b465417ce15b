#include "measure.hpp"

namespace padtune::tuner {

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
