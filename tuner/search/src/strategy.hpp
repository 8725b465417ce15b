#pragma once
// The search strategies: how one shape's missing candidates are measured. A strategy decides which
// candidates get how many samples; the run (tune_run) does the measuring and recording, through
// shape_steps, so a strategy knows nothing of caches, workers or teams.
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "padtune/search/tune.hpp"

namespace padtune::tuner::detail {

/// How a strategy times its candidates roughly. Every candidate has just run once on this shape, to
/// be verified, so one warm-up launch is enough.
struct rough_rule {
  int warmup = 1;
  int min_samples = 10;
  int max_samples = 10;
  double target_standard_error = 0;  ///< relative; 0: exactly min_samples (== max_samples)
};

/// The steps a strategy takes on one shape, bound to its workspace, model and settings.
class shape_steps {
 public:
  /// A candidate with its latest rough timing.
  using rough = std::vector<std::pair<const instantiation*, timing>>;
  virtual ~shape_steps() = default;
  virtual bool stopped() const = 0;
  /// Verifies one candidate and times it with the full rule (or records why not).
  virtual void measure_in_full(const instantiation& i) = 0;
  /// The candidates that verify; the others are recorded as verify_failed (or as faults).
  virtual rough verified(const std::vector<const instantiation*>& missing) = 0;
  /// Times each with L2-cold samples by `rule` (one that faults leaves), fastest first.
  virtual void time_roughly(rough& alive, const rough_rule& rule) = 0;
  /// Records the candidates after the first `keep` as "pruned", with their rough numbers, and drops them.
  virtual void prune_after(rough& alive, std::size_t keep) = 0;
  /// Times each with the full rule and records it.
  virtual void time_in_full(const rough& alive) = 0;
  /// This shape's candidates already timed in full (a resumed run): how many, and the best median.
  virtual std::pair<std::size_t, double> timed_in_full_before() const = 0;
};

class search_strategy {
 public:
  virtual ~search_strategy() = default;
  /// What the table's settings.search records.
  virtual std::string name() const = 0;
  /// Whether a cached "pruned" record is final for this strategy (a resume does not redo it).
  virtual bool pruned_is_final() const = 0;
  virtual void measure(shape_steps& steps, const std::vector<const instantiation*>& missing) const = 0;
};

/// --budget: successive halving; --exhaustive: every candidate in full; else the screen.
std::unique_ptr<search_strategy> make_strategy(const tune_options& o);

}  // namespace padtune::tuner::detail
