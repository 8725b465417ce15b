#pragma once
// Tune options for host tests that run the tuner end to end: a few candidates on three shapes,
// few samples, so that a run takes well under a second.
#include <filesystem>

#include "padtune/search/tune.hpp"

namespace padtune::tuner {

inline tune_options quick_tune_options(const std::filesystem::path& dir) {
  tune_options o;
  o.where = backend::host;
  o.dtypes = {dtype::f32, dtype::bf16};
  o.filter = "__(seed__bo256|rowtile__bo1024|flat__bo1024)__";
  o.sizes = {{2, 4, 8, 2, 3}, {2, 3, 3000, 1, 1}, {2, 3, 3000, 8, 0}};
  o.results_dir = dir;
  o.measure.warmup = 1;
  o.measure.rule = stop_rule{3, 5, 0.01, 0.01};
  o.retime_rounds = 3;
  o.command = "tune_test";
  return o;
}

}  // namespace padtune::tuner
