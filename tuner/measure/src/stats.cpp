#include "padtune/measure/stats.hpp"

#include <algorithm>
#include <cmath>

namespace padtune::tuner {
namespace {
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * double(sorted.size() - 1);
  const std::size_t lo = std::size_t(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}
}  // namespace

double summary::median_standard_error() const {
  return samples > 0 ? 1.2533 * (iqr() / 1.349) / std::sqrt(double(samples)) : 0;
}

summary summarize(std::vector<double> samples) {
  summary s;
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.median = quantile(samples, 0.5);
  s.q1 = quantile(samples, 0.25);
  s.q3 = quantile(samples, 0.75);
  s.samples = int(samples.size());
  return s;
}

bool stop_rule::done(const std::vector<double>& samples, double spent_seconds) const {
  const int n = int(samples.size());
  if (n >= max_samples) return true;
  if (n < min_samples) return n > 0 && spent_seconds >= budget_seconds * 4;  // a very slow candidate
  if (spent_seconds >= budget_seconds) return true;
  const summary s = summarize(samples);
  return s.relative_spread() < target_spread ||
         (target_standard_error > 0 && s.median > 0 && s.median_standard_error() < target_standard_error * s.median);
}

}  // namespace padtune::tuner
