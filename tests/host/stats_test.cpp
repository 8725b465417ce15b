// Sample statistics and the sampler's stop rule.
#include <gtest/gtest.h>

#include <cmath>

#include "padtune/measure/stats.hpp"

namespace padtune::tuner {
namespace {

TEST(Stats, MedianAndQuartilesInterpolate) {
  const summary s = summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.q1, 2);
  EXPECT_DOUBLE_EQ(s.q3, 4);
  EXPECT_EQ(s.samples, 5);
  const summary even = summarize({1, 2, 3, 4});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.q1, 1.75);
  EXPECT_DOUBLE_EQ(even.q3, 3.25);
  EXPECT_DOUBLE_EQ(even.relative_spread(), 1.5 / 2.5);
}

TEST(Stats, EmptyAndSingle) {
  EXPECT_EQ(summarize({}).samples, 0);
  EXPECT_DOUBLE_EQ(summarize({}).relative_spread(), 0);
  const summary one = summarize({7});
  EXPECT_DOUBLE_EQ(one.median, 7);
  EXPECT_DOUBLE_EQ(one.iqr(), 0);
}

TEST(Stats, OutliersMoveTheMedianLittle) {
  std::vector<double> v(99, 10.0);
  v.push_back(1e6);
  EXPECT_DOUBLE_EQ(summarize(v).median, 10.0);
}

TEST(Stats, MedianStandardErrorShrinksWithTheSamples) {
  const summary s10{100, 99, 101, 10}, s1000{100, 99, 101, 1000};
  EXPECT_NEAR(s10.median_standard_error(), 1.2533 * (2 / 1.349) / std::sqrt(10.0), 1e-12);
  EXPECT_NEAR(s10.median_standard_error() / s1000.median_standard_error(), 10.0, 1e-9);
  EXPECT_EQ(summary{}.median_standard_error(), 0.0);
}

TEST(StopRule, StopsOnLowSpreadOnlyAfterMinimum) {
  stop_rule r;
  r.min_samples = 5, r.max_samples = 100, r.target_spread = 0.01, r.budget_seconds = 10;
  EXPECT_FALSE(r.done({1, 1, 1, 1}, 0.0));          // too few
  EXPECT_TRUE(r.done({1, 1, 1, 1, 1}, 0.0));        // quiet: stop
  EXPECT_FALSE(r.done({1, 2, 1, 2, 1, 2}, 0.0));    // noisy: go on
  EXPECT_TRUE(r.done({1, 2, 1, 2, 1, 2}, 10.5));    // budget spent
  EXPECT_TRUE(r.done(std::vector<double>(100, 1.0), 0.0));  // the maximum
  EXPECT_TRUE(r.done({1, 2}, 41.0));                // a very slow candidate stops before the minimum
}

TEST(StopRule, AStandardErrorTargetStopsWhereTheSpreadNeverGetsUnderItsOwn) {
  // The screen's rule: a spread over 1% (the events' 32 ns ticks on a 3 us kernel) that still pins
  // the median once there are enough samples.
  stop_rule r;
  r.min_samples = 3, r.max_samples = 10, r.target_spread = 0, r.budget_seconds = 10, r.target_standard_error = 0.005;
  const std::vector<double> ticks = {3.200, 3.264, 3.232, 3.232, 3.264, 3.200, 3.232, 3.264};
  EXPECT_FALSE(r.done({ticks.begin(), ticks.begin() + 3}, 0.0));  // IQR 1% of 3.23 in 3: the median's error 0.53%
  EXPECT_TRUE(r.done(ticks, 0.0));                                // IQR 1.24% in 8: 0.41%, pinned
  EXPECT_TRUE(r.done({300.0, 300.3, 300.1}, 0.0));                // a long kernel: three samples do
  EXPECT_FALSE(r.done({300.0, 300.3}, 0.0));                      // but never fewer than the minimum
  EXPECT_FALSE(r.done({1, 2, 1, 2, 1, 2}, 0.0));                  // noisy: go on
  EXPECT_TRUE(r.done(std::vector<double>(10, 1.0), 0.0));         // the maximum
  stop_rule spread_only = r;
  spread_only.target_standard_error = 0, spread_only.target_spread = 0.01;
  EXPECT_FALSE(spread_only.done(ticks, 0.0));  // the spread rule alone goes on
}

}  // namespace
}  // namespace padtune::tuner
