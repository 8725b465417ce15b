#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "strategy.hpp"

namespace padtune::tuner::detail {
namespace {

/// Every candidate, each timed in full: the way published tables are made.
class exhaustive_search final : public search_strategy {
 public:
  std::string name() const override { return "exhaustive"; }
  bool pruned_is_final() const override { return false; }
  void measure(shape_steps& steps, const std::vector<const instantiation*>& missing) const override {
    for (const instantiation* i : missing) {
      if (steps.stopped()) break;
      steps.measure_in_full(*i);
    }
  }
};

/// The default search: every verified candidate gets a screen of 3 to 10 samples (until its median's
/// standard error is under 0.5%: a long kernel is pinned by few samples, and its samples are what
/// the screen costs); those within `margin` of the best (of these and of this shape's candidates
/// already timed in full), at least two and at most `max_finalists`, get the full rule. The others
/// are kept as "pruned" with their rough numbers, which do not rank (selection.hpp). Time goes where
/// the candidates are close.
class screen_search final : public search_strategy {
 public:
  static constexpr rough_rule screen{.warmup = 1, .min_samples = 3, .max_samples = 10, .target_standard_error = 0.005};
  static constexpr double margin = 0.05;
  static constexpr std::size_t max_finalists = 4;

  std::string name() const override {
    return fmt::format("screened: the best within {:.0f}% of a screen of {} to {} samples (to a median within {:.1f}%), at most {}, timed in full",
                       margin * 100, screen.min_samples, screen.max_samples, screen.target_standard_error * 100, max_finalists);
  }
  bool pruned_is_final() const override { return true; }  // screened out: final for this search
  void measure(shape_steps& steps, const std::vector<const instantiation*>& missing) const override {
    shape_steps::rough alive = steps.verified(missing);
    auto [timed_in_full, best] = steps.timed_in_full_before();
    const std::size_t at_least = timed_in_full >= 2 ? 0 : 2 - timed_in_full;
    if (alive.size() > at_least) {
      steps.time_roughly(alive, screen);
      if (!alive.empty()) best = std::min(best, alive.front().second.cold.median);
      std::size_t keep = 0;
      while (keep < alive.size() && keep < max_finalists && (keep < at_least || alive[keep].second.cold.median <= best * (1 + margin)))
        ++keep;
      steps.prune_after(alive, keep);
    }
    steps.time_in_full(alive);
  }
};

/// --budget: successive halving. Every verified candidate gets a few samples, the best quarter
/// more, the best two the full rule. The others are kept as "pruned" with their rough numbers.
class halving_search final : public search_strategy {
 public:
  explicit halving_search(double budget_seconds) : budget_seconds_(budget_seconds) {}
  std::string name() const override { return fmt::format("successive halving, budget {} s", budget_seconds_); }
  bool pruned_is_final() const override { return false; }  // a budgeted run's rough numbers: redone
  void measure(shape_steps& steps, const std::vector<const instantiation*>& missing) const override {
    shape_steps::rough alive = steps.verified(missing);
    for (int samples : rounds) {
      if (alive.size() <= 2) break;
      steps.time_roughly(alive, rough_rule{.min_samples = samples, .max_samples = samples});
      steps.prune_after(alive, std::max<std::size_t>(2, (alive.size() + 3) / 4));
    }
    steps.time_in_full(alive);
  }

 private:
  static constexpr int rounds[] = {3, 10};
  double budget_seconds_;
};

}  // namespace

std::unique_ptr<search_strategy> make_strategy(const tune_options& o) {
  if (o.budget_seconds) return std::make_unique<halving_search>(*o.budget_seconds);
  if (o.exhaustive) return std::make_unique<exhaustive_search>();
  return std::make_unique<screen_search>();
}

}  // namespace padtune::tuner::detail
