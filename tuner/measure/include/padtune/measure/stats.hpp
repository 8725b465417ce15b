#pragma once
// Sample statistics for timings: median and quartiles, and the stop rule of the sampler.
#include <vector>

namespace padtune::tuner {

struct summary {
  double median = 0, q1 = 0, q3 = 0;
  int samples = 0;
  double iqr() const { return q3 - q1; }
  /// IQR / median: the relative spread the sampler drives under its target.
  double relative_spread() const { return median > 0 ? iqr() / median : 0; }
  /// The standard error of the median, from the IQR as a normal spread (sigma = IQR / 1.349) and
  /// the large-sample rule (1.2533 sigma / sqrt(n)): how far the median itself may be off, where the
  /// IQR says how far one sample may be.
  double median_standard_error() const;
};

/// Median and quartiles (linear interpolation between order statistics); all zero when empty.
summary summarize(std::vector<double> samples);

/// The sampler's rule: stop once min_samples are in and the relative spread is under target (or the
/// median's relative standard error under its target, where one is set), or once max_samples are
/// in, or once the time budget is spent.
struct stop_rule {
  int min_samples = 10;
  int max_samples = 200;
  double target_spread = 0.01;
  double budget_seconds = 0.25;
  /// 0: unused. A screen's rule: a long kernel's few samples already pin its median, where an IQR
  /// under 1% of a 5 us kernel is under the events' 32 ns resolution and never comes.
  double target_standard_error = 0;
  bool done(const std::vector<double>& samples, double spent_seconds) const;
};

}  // namespace padtune::tuner
