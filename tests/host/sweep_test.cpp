// The default sweep covers the buckets; --sizes files are read with errors that name file and line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "padtune/buckets.hpp"
#include "padtune/measure/suites.hpp"
#include "padtune/search/sweep.hpp"

namespace padtune::tuner {
namespace {

TEST(Sweep, DefaultCoversLengthsRowsAlignmentsAndPayloads) {
  for (dtype t : all_dtypes) {
    const auto shapes = default_sweep(t);
    std::set<int> lengths, rows, aligns;
    long long min_payload = 1LL << 62, max_payload = 0;
    for (const shape5& s : shapes) {
      const bucket b = bucket_of(s.B * s.C, s.L, s.pad_left, t);
      lengths.insert(b.log2_L), rows.insert(b.log2_rows), aligns.insert(b.align);
      const long long payload = 2 * s.B * s.C * s.L * (long long)size_of(t);
      min_payload = std::min(min_payload, payload), max_payload = std::max(max_payload, payload);
    }
    EXPECT_TRUE(lengths.count(0) && lengths.count(20)) << name_of(t);  // L from 1 to 2^20
    EXPECT_TRUE(rows.count(0) && rows.count(22)) << name_of(t);        // rows from 1 to 2^22
    EXPECT_TRUE(aligns.count(16) && aligns.count(int(size_of(t)))) << name_of(t);
    EXPECT_LE(min_payload, 16 << 10) << name_of(t);  // kilobytes
    EXPECT_GE(max_payload, 1LL << 30) << name_of(t); // gigabytes
  }
}

TEST(Sweep, DefaultIncludesThePerformanceSuiteAndItsForwardAndNarrowedShapesOnce) {
  for (dtype t : all_dtypes) {
    const auto shapes = default_sweep(t);
    for (const auto& suite : {perf_suite(), forward_suite(), narrowed_suite()})
      for (const suite_shape& p : suite)
        EXPECT_EQ(std::count(shapes.begin(), shapes.end(), p.s), 1) << p.tag << " " << name_of(t);
  }
}

TEST(Sweep, DefaultHasForwardPadsOfCausalConvolutions) {
  for (dtype t : all_dtypes) {
    std::set<long long> left_pads;
    for (const shape5& s : default_sweep(t))
      if (s.pad_right == 0 && s.pad_left < 0 && -s.pad_left <= s.L / 2) left_pads.insert(-s.pad_left);
    // From one element to thousands: the pads of kernel 2 at dilation 1 to kernel 3 at dilation 2047.
    EXPECT_TRUE(left_pads.count(1) && left_pads.count(2) && left_pads.count(1022) && left_pads.count(4094)) << name_of(t);
    EXPECT_GE(left_pads.size(), 8u) << name_of(t);
  }
}

TEST(Sweep, DefaultHasPitchedShortRows) {
  for (dtype t : all_dtypes) {
    std::set<long long> extras, lengths;
    const auto narrowed = narrowed_suite();  // the suite's own sizes, N6 2.9 GB in f32 among them
    for (const shape5& s : default_sweep(t)) {
      const long long pads = s.pad_left + s.pad_right;
      if (s.L > 2048 || s.pad_left < 0 || pads < 60) continue;
      if (std::any_of(narrowed.begin(), narrowed.end(), [&](const suite_shape& n) { return n.s == s; })) continue;
      extras.insert(pads - 3 - (s.pad_left % 16)), lengths.insert(s.L);  // pads: a + 3 + extra, a < 16
      EXPECT_LE(s.B * s.C * (2 * s.L + pads) * (long long)size_of(t), 1LL << 30) << name_of(t);  // dy + dx
    }
    // Pitches a cache line or two past the row and a kilobyte past it, from rows of one element up.
    EXPECT_TRUE(extras.count(64) && extras.count(1024) && extras.count(61) && extras.count(200)) << name_of(t);
    EXPECT_GE(lengths.size(), 8u) << name_of(t);
    EXPECT_LE(*lengths.begin(), 4) << name_of(t);
  }
}

TEST(Sweep, NarrowedSuiteIsThePerformanceSuiteAtAWiderPitch) {
  const auto n = narrowed_suite();
  ASSERT_EQ(n.size(), 9u);
  EXPECT_EQ(n[5].tag, "N6");  // P6 (1024, 8192, 8, 2, 3): dy = wide[..., 16:29] of rows 77 long
  EXPECT_EQ(n[5].s, (shape5{1024, 8192, 8, 18, 51}));
  const auto p = perf_suite();
  for (std::size_t k = 0; k < n.size(); ++k) {  // the same dx; dy's row 64 wider, the slice 16 into it
    EXPECT_EQ(n[k].s.L, p[k].s.L) << n[k].tag;
    EXPECT_EQ(n[k].s.pad_left, p[k].s.pad_left + 16) << n[k].tag;
    EXPECT_EQ(n[k].s.pad_left + n[k].s.pad_right, p[k].s.pad_left + p[k].s.pad_right + 64) << n[k].tag;
  }
  EXPECT_TRUE(suite_named("narrowed").size() == n.size());
}

TEST(Sweep, ForwardSuiteIsThePerformanceSuitePaddedAndCausalConvolutions) {
  const auto f = forward_suite();
  ASSERT_EQ(f.size(), 13u);
  EXPECT_EQ(f[0].tag, "F1");  // P1 (32, 256, 8192, 3, 5) as F.pad(x, (3, 5)) of x (32, 256, 8192)
  EXPECT_EQ(f[0].s, (shape5{32, 256, 8200, -3, -5}));
  EXPECT_EQ(f[12].tag, "C4");
  for (const suite_shape& s : f) EXPECT_EQ(s.s.L + s.s.pad_left + s.s.pad_right >= 0, true) << s.tag;
}

std::filesystem::path write_temp(const std::string& name, const std::string& text) {
  const auto p = std::filesystem::temp_directory_path() / ("padtune_sweep_test_" + name);
  std::ofstream(p) << text;
  return p;
}

TEST(Sweep, ReadsSizesFiles) {
  const auto p = write_temp("ok.txt", "# B C L pl pr\n32 256 8192 3 5\n4,64,262144,1,2  # comment\n\n8 1024 4096 -3 5\n");
  const auto v = read_sizes_file(p);
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[1], (shape5{4, 64, 262144, 1, 2}));
  EXPECT_EQ(v[2].pad_left, -3);
}

TEST(Sweep, BadSizesFilesNameTheLine) {
  auto expect_error = [](const std::string& text, const std::string& needle) {
    const auto p = write_temp("bad.txt", text);
    try {
      read_sizes_file(p);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const results_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("1 2 3 4 5\n1 2 x 4 5\n", "bad.txt:2: 'x' is not an integer");
  expect_error("1 2 3 4\n", ":1: expected B C L pad_left pad_right, got 4 numbers");
  expect_error("1 2 3 -9 1\n", ":1: OL = pad_left + L + pad_right");
  expect_error("-1 2 3 0 0\n", ":1: B must be >= 0");
  expect_error("# nothing\n", "holds no shapes");
  EXPECT_THROW(read_sizes_file("/nonexistent/padtune/sizes.txt"), results_error);
}

}  // namespace
}  // namespace padtune::tuner

namespace padtune::tuner {
namespace {

TEST(SweepShard, ShardsTakeEveryNthShapeAndTogetherTheWholeSweep) {
  const std::vector<shape5> all = default_sweep(dtype::f32);
  std::vector<shape5> together;
  for (int i = 0; i < 3; ++i) {
    const std::vector<shape5> part = take_shard(all, {i, 3});
    EXPECT_EQ(part.front(), all[std::size_t(i)]);
    together.insert(together.end(), part.begin(), part.end());
  }
  EXPECT_EQ(together.size(), all.size());
  for (const shape5& s : all) EXPECT_NE(std::find(together.begin(), together.end(), s), together.end());
  EXPECT_EQ(take_shard(all, {}), all);
}

TEST(SweepShard, ParsesIOverN) {
  sweep_shard s;
  EXPECT_TRUE(parse_shard("2/8", s));
  EXPECT_EQ(s.index, 2);
  EXPECT_EQ(s.count, 8);
  for (const char* bad : {"8/8", "-1/4", "1/0", "1", "1/2x", "a/b", "/2", "1/", "99999999999/3"}) EXPECT_FALSE(parse_shard(bad, s)) << bad;
}

}  // namespace
}  // namespace padtune::tuner
