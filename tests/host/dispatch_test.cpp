// The dispatcher on the host backend: nearest-bucket lookup, the lookup order and its fallbacks
// (a bad table never throws), the built-in default, bit-exact results against the host reference,
// zero-size no-ops and bad input.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "padtune/buckets.hpp"
#include "padtune/padtune.hpp"
#include "padtune/reference.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/table.hpp"

namespace padtune {

namespace {

namespace fs = std::filesystem;

/// The first registered instantiation with these fields (width 0: any); fails the test if there is none.
const instantiation& find_by_fields(dtype type, std::string_view variant, int block_ol, int width = 16) {
  for (const instantiation& i : registry())
    if (i.type == type && i.variant == variant && i.block_ol == block_ol && (width == 0 || i.access_width == width))
      return i;
  ADD_FAILURE() << "no " << variant << " " << name_of(type) << " bo" << block_ol << " w" << width;
  return registry().front();
}

struct row {
  dtype type;
  const char* bucket_name;
  std::string id;
  double ratio_to_memcpy = 1.0;
};

results_table host_table(const std::vector<row>& rows) {
  results_table t;
  t.device.backend = "host";
  t.device.name = "host emulation";
  for (const row& r : rows) {
    table_entry e;
    e.type = r.type;
    EXPECT_TRUE(parse_bucket(r.bucket_name, e.where)) << r.bucket_name;
    // A shape of the bucket: tables are read strictly, and an entry's shape must lie in its bucket.
    const long long pad_left = std::max<long long>(1, e.where.align / (long long)size_of(r.type));
    e.shape = {1, 1LL << e.where.log2_rows, 1LL << e.where.log2_L, pad_left, 0};
    EXPECT_EQ(bucket_of(e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, r.type).name(), r.bucket_name);
    e.winner.id = r.id;
    e.winner.median_us = 1;
    e.winner.ratio_to_memcpy = r.ratio_to_memcpy;
    t.entries.push_back(e);
  }
  return t;
}

/// What the host backend falls back to after the explicit path: the embedded host table if the
/// build has one (results/host-emulation.json), else the built-in default.
std::string host_fallback_source() {
  for (const std::string& file : embedded_table_files())
    if (file == "host-emulation.json") return "embedded:host-emulation.json";
  return "built-in default";
}

/// True if the CUDA runtime sees a device (then the no-GPU tests do not apply).
bool cuda_device_present() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

/// A fresh folder per test; the lookup order is restored afterwards.
class Dispatch : public ::testing::Test {
 protected:
  fs::path dir;

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / fmt::format("padtune_dispatch_test_{}", ::getpid()) / info->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::unsetenv("PADTUNE_RESULTS");
    set_results_path("");
    set_autotune(false);
  }
  void TearDown() override {
    ::unsetenv("PADTUNE_RESULTS");
    set_results_path("");
    set_autotune(false);
    std::error_code ec;
    fs::remove_all(dir.parent_path(), ec);
  }

  std::string write(const std::string& name, const results_table& t) {
    const fs::path p = dir / name;
    tuner::write_table(t, p);
    return p.string();
  }
  std::string write_text(const std::string& name, const std::string& text) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
};

/// The host backend's choice for f32 rows of length L.
dispatch_choice explain_f32(std::int64_t rows, std::int64_t L, std::int64_t pad_left) {
  return explain_dispatch(1, rows, L, pad_left, 0, dtype::f32, backend::host);
}

TEST_F(Dispatch, ExactBucketWins) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  const instantiation& c = find_by_fields(dtype::f32, "seed", 512, 0);
  const std::string path = write("t.json", host_table({{dtype::f32, "l4_r2_a16", a.id},
                                                       {dtype::f32, "l13_r10_a4", b.id, 1.02},
                                                       {dtype::f32, "l20_r5_a16", c.id}}));
  set_results_path(path);
  const dispatch_choice ch = explain_f32(1024, 8192, 3);
  EXPECT_EQ(ch.inst, &b);
  EXPECT_EQ(ch.table, path);
  EXPECT_EQ(ch.bucket, "l13_r10_a4");
  EXPECT_EQ(ch.matched_bucket, "l13_r10_a4");
  EXPECT_EQ(ch.served_by, "bucket");
  EXPECT_NE(ch.reason.find("its bucket l13_r10_a4 in " + path + ", winner 1.02x memcpy"), std::string::npos) << ch.reason;
}

TEST_F(Dispatch, TinyProblemsOnAGpuTakeTheRuleAfterAnExactEntry) {
  const instantiation& flat = find_by_fields(dtype::f32, "flat", 256);
  results_table t = host_table({{dtype::f32, "l3_r3_a16", flat.id}, {dtype::bf16, "l3_r3_a16", find_by_fields(dtype::bf16, "flat", 256).id}});
  table_entry e = t.entries.front();
  e.exact = true;
  e.shape = {2, 4, 8, 4, 3};  // l3_r3_a16 too
  t.entries.push_back(e);
  set_results_path(write("t.json", t));
  const auto cuda = [](std::int64_t rows, std::int64_t L, std::int64_t pl, std::int64_t pr, dtype type = dtype::f32) {
    return explain_dispatch(1, rows, L, pl, pr, type, backend::cuda);
  };
  // 8 rows of 16 elements, pads 1, 2: 8 * (16 + 19) * 4 bytes.
  for (dtype type : {dtype::f32, dtype::bf16}) {
    const dispatch_choice tiny = cuda(8, 16, 1, 2, type);
    EXPECT_EQ(tiny.served_by, "rule") << name_of(type);
    EXPECT_EQ(tiny.inst->variant, "rowelem");
    EXPECT_EQ(tiny.inst->type, type);
    EXPECT_EQ(tiny.inst->block_ol, 256);
    EXPECT_EQ(tiny.inst->threads, 128);
    EXPECT_EQ(tiny.matched_bucket, "");
    EXPECT_NE(tiny.reason.find(fmt::format("the rule for tiny problems: {} bytes", 8 * 35 * size_of(type))), std::string::npos)
        << tiny.reason;
  }
  EXPECT_EQ(cuda(8, 8, 4, 3).served_by, "exact");  // the user's own shape comes first
  // The bounds: 64 rows and 32 KB; past either the table decides. 64 * (63 + 65) * 4 = 32768.
  EXPECT_EQ(cuda(64, 63, 1, 1).served_by, "rule");
  EXPECT_NE(cuda(64, 64, 1, 1).served_by, "rule");
  EXPECT_NE(cuda(65, 8, 1, 1).served_by, "rule");
  EXPECT_NE(cuda(1, 4096, 0, 1LL << 40).served_by, "rule");  // a huge pad is no tiny problem
  // The host emulation is timed by nothing: its table decides there.
  EXPECT_NE(explain_dispatch(1, 8, 16, 1, 2, dtype::f32, backend::host).served_by, "rule");
}

TEST_F(Dispatch, AnExactEntryServesItsShapeBeforeAnyBucket) {
  const instantiation& by_bucket = find_by_fields(dtype::f32, "rowtile", 4096);
  const instantiation& by_shape = find_by_fields(dtype::f32, "flat", 256);
  results_table t = host_table({{dtype::f32, "l13_r10_a4", by_bucket.id}});
  table_entry e = t.entries.front();
  e.exact = true;
  e.shape = {4, 256, 8192, 3, 5};  // l13_r10_a4 too
  e.winner.id = by_shape.id;
  t.entries.push_back(e);
  const std::string path = write("t.json", t);
  EXPECT_NE(table_text(t).find("\"exact\": true"), std::string::npos);
  const results_table back = read_table(path);
  ASSERT_EQ(back.entries.size(), 2u);
  EXPECT_FALSE(back.entries[0].exact);
  EXPECT_TRUE(back.entries[1].exact);
  set_results_path(path);

  // B and C enter only as their product: 1024 rows of L 8192 with pads 3, 5.
  dispatch_choice ch = explain_dispatch(1, 1024, 8192, 3, 5, dtype::f32, backend::host);
  EXPECT_EQ(ch.inst, &by_shape);
  EXPECT_EQ(ch.served_by, "exact");
  EXPECT_NE(ch.reason.find("exact entry (4,256,8192,3,5) in " + path), std::string::npos) << ch.reason;
  // Another pad_right, L or row count is another shape: the bucket serves it.
  for (const auto& [rows, L, pr] : {std::tuple{1024, 8192, 6}, {1024, 8193, 5}, {1025, 8192, 5}}) {
    ch = explain_dispatch(1, rows, L, 3, pr, dtype::f32, backend::host);
    EXPECT_EQ(ch.inst, &by_bucket) << rows << " " << L << " " << pr;
    EXPECT_EQ(ch.served_by, "bucket");
  }
  ch = explain_dispatch(1, 4, 20, 3, 5, dtype::f32, backend::host);
  EXPECT_EQ(ch.served_by, "fallback");
  EXPECT_NE(ch.reason.find("fallback: nearest bucket l13_r10_a4"), std::string::npos) << ch.reason;

  // dispatch() runs the exact entry's kernel, bit-exact like any other (a small shape: the host
  // emulation takes time with rows times threads).
  e.shape = {2, 3, 16, 3, 5};
  EXPECT_TRUE(parse_bucket("l4_r2_a4", e.where));
  e.winner.id = find_by_fields(dtype::f32, "rowtile", 1024).id;
  t.entries.push_back(e);
  set_results_path(write("t2.json", t));
  EXPECT_EQ(explain_dispatch(6, 1, 16, 3, 5, dtype::f32, backend::host).inst->id, e.winner.id);
  std::vector<float> dy(6 * 24), dx(6 * 16, -1.0f), want(dx.size());
  for (std::size_t k = 0; k < dy.size(); ++k) dy[k] = float(k) + 0.5f;
  dispatch(problem{dy.data(), dx.data(), 2, 3, 16, 3, 5, dtype::f32}, backend::host);
  for (std::size_t r = 0; r < 6; ++r)
    for (std::size_t i = 0; i < 16; ++i) want[r * 16 + i] = dy[r * 24 + i + 3];
  EXPECT_EQ(std::memcmp(dx.data(), want.data(), dx.size() * sizeof(float)), 0);
}

TEST_F(Dispatch, ExactEntriesAloneStandInForBuckets) {
  // A table of a --sizes run into a new file: no bucket entries; its exact entries serve the rest.
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  results_table t = host_table({{dtype::f32, "l13_r10_a4", a.id}});
  t.entries.front().exact = true;
  const std::string path = write("t.json", t);
  set_results_path(path);
  const dispatch_choice ch = explain_f32(1000, 5000, 3);
  EXPECT_EQ(ch.inst, &a);
  EXPECT_EQ(ch.served_by, "fallback");
  EXPECT_EQ(ch.matched_bucket, "l13_r10_a4");
}

TEST_F(Dispatch, NearestBucketWins) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  const std::string path = write("t.json", host_table({{dtype::f32, "l4_r2_a16", a.id}, {dtype::f32, "l13_r10_a4", b.id}}));
  set_results_path(path);

  dispatch_choice ch = explain_f32(1000, 5000, 3);  // l12_r9_a4: two steps from l13_r10_a4
  EXPECT_EQ(ch.bucket, "l12_r9_a4");
  EXPECT_EQ(ch.matched_bucket, "l13_r10_a4");
  EXPECT_EQ(ch.inst, &b);
  // The distance of the vote: log2 of L and of the rows, row alignment, a quarter of the pad's.
  EXPECT_NE(ch.reason.find(fmt::format("(distance {:.2f})", std::log2(8192 / 5000.0) + std::log2(1024 / 1000.0))),
            std::string::npos)
      << ch.reason;
  EXPECT_NE(ch.reason.find("; the 2 nearest entries vote for it"), std::string::npos) << ch.reason;
  EXPECT_EQ(ch.served_by, "fallback");

  ch = explain_f32(3, 40, 0);  // l5_r1_a16: near l4_r2_a16
  EXPECT_EQ(ch.matched_bucket, "l4_r2_a16");
  EXPECT_EQ(ch.inst, &a);

  ch = explain_f32(1 << 20, 1 << 25, 1);  // far from both: still the nearest
  EXPECT_EQ(ch.matched_bucket, "l13_r10_a4");
  EXPECT_EQ(ch.inst, &b);
}

TEST_F(Dispatch, TheNearestEntriesVote) {
  // a wins its own bucket by 1% over b; b wins both neighbours, where a is 30% slower.
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  results_table t = host_table({{dtype::f32, "l13_r10_a4", a.id}, {dtype::f32, "l14_r10_a4", b.id},
                                {dtype::f32, "l12_r10_a4", b.id}});
  t.entries[0].ranked = {{a.id, 1}, {b.id, 1.01}};
  t.entries[1].ranked = t.entries[2].ranked = {{b.id, 1}, {a.id, 1.3}};
  const std::string path = write("t.json", t);
  EXPECT_EQ(read_table(path).entries[0].ranked, t.entries[0].ranked);
  set_results_path(path);
  // Between l13 and l14 (L 11584: half a doubling from either, l13 listed first; rows of 16-byte
  // multiples like theirs): b, though the nearest entry's winner is a.
  dispatch_choice ch = explain_f32(1024, 11584, 1);
  EXPECT_EQ(ch.matched_bucket, "l13_r10_a4");
  EXPECT_EQ(ch.inst, &b);
  EXPECT_NE(ch.reason.find("the 3 nearest entries vote for another kernel"), std::string::npos) << ch.reason;
  // Where a leads by 20%, its own shape keeps it.
  t.entries[0].ranked = {{a.id, 1}, {b.id, 1.2}};
  set_results_path(write("u.json", t));
  ch = explain_f32(1024, 8192, 1);
  EXPECT_EQ(ch.inst, &a);
  EXPECT_NE(ch.reason.find("the 3 nearest entries vote for it"), std::string::npos) << ch.reason;
  // A table without "ranked" votes with winners and runners-up.
  for (table_entry& e : t.entries) e.ranked.clear();
  t.entries[0].runner_up = t.entries[0].winner;
  t.entries[0].runner_up->id = b.id;
  t.entries[0].runner_up->median_us = 1.01 * t.entries[0].winner.median_us;
  set_results_path(write("v.json", t));
  EXPECT_EQ(explain_f32(1024, 11584, 1).inst, &b);
}

// Every one of an entry's ranked_limit candidates weighs in: z, ranked last (at 1.05) by both
// entries, beats each entry's own winner, which the other does not rank (1.2 there). Had the vote
// read fewer ranks than the table holds, z would be unranked at both and lose.
TEST_F(Dispatch, TheVoteWeighsEveryRankedCandidate) {
  std::vector<const instantiation*> f32;
  for (const instantiation& i : registry())
    if (i.type == dtype::f32 && !i.needs_zeroed_dx) f32.push_back(&i);
  ASSERT_GE(f32.size(), 2 * (ranked_limit - 1) + 1);
  const instantiation& z = *f32.back();
  results_table t = host_table({{dtype::f32, "l13_r10_a4", f32[0]->id}, {dtype::f32, "l14_r10_a4", f32[1]->id}});
  std::size_t next = 2;
  for (std::size_t e = 0; e < t.entries.size(); ++e) {
    t.entries[e].ranked = {{t.entries[e].winner.id, 1}};
    while (t.entries[e].ranked.size() < ranked_limit - 1) t.entries[e].ranked.push_back({f32[next++]->id, 1.05});
    t.entries[e].ranked.push_back({z.id, 1.05});
  }
  set_results_path(write("t.json", t));
  const dispatch_choice ch = explain_f32(1024, 11584, 1);  // half a doubling from l13 and l14
  EXPECT_EQ(ch.inst, &z) << ch.reason;
  EXPECT_NE(ch.reason.find("the 2 nearest entries vote for another kernel"), std::string::npos) << ch.reason;
}

TEST_F(Dispatch, TiesGoToTheFirstEntry) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  // l10_r10_a16 is one step from either; with no pads every span is 0 (dy's rows as long as dx's),
  // so the distances are equal.
  auto unpadded = [](results_table t) {
    for (table_entry& e : t.entries) e.shape.pad_left = 0;  // pad 0 is 16-byte aligned: still a16
    return t;
  };
  const std::string path = write("t.json", unpadded(host_table({{dtype::f32, "l11_r10_a16", a.id}, {dtype::f32, "l9_r10_a16", b.id}})));
  set_results_path(path);
  EXPECT_EQ(explain_f32(1024, 1024, 0).inst, &a);
  const std::string swapped = write("u.json", unpadded(host_table({{dtype::f32, "l9_r10_a16", b.id}, {dtype::f32, "l11_r10_a16", a.id}})));
  set_results_path(swapped);
  EXPECT_EQ(explain_f32(1024, 1024, 0).inst, &b);
}

TEST_F(Dispatch, OnlyEntriesOfTheCallsDtypeCount) {
  const instantiation& f64 = find_by_fields(dtype::f64, "flat", 512);
  const instantiation& f16 = find_by_fields(dtype::f16, "rowtile", 1024);
  const std::string path = write("t.json", host_table({{dtype::f64, "l13_r10_a8", f64.id}, {dtype::f16, "l2_r2_a2", f16.id}}));
  set_results_path(path);
  EXPECT_EQ(explain_dispatch(1, 1024, 8192, 1, 0, dtype::f64, backend::host).inst, &f64);
  EXPECT_EQ(explain_dispatch(1, 1024, 8192, 1, 0, dtype::f16, backend::host).inst, &f16);  // far, but its dtype
  // No f32 entry: the built-in default, and the reason says why.
  const dispatch_choice ch = explain_f32(1024, 8192, 1);
  EXPECT_EQ(ch.table, path);
  EXPECT_EQ(ch.matched_bucket, "");
  EXPECT_EQ(ch.inst->type, dtype::f32);
  EXPECT_NE(ch.reason.find("has no f32 entry"), std::string::npos) << ch.reason;
  EXPECT_NE(ch.reason.find("built-in default"), std::string::npos) << ch.reason;
}

TEST_F(Dispatch, BuiltInDefaultByRowBytes) {
  // A table with only an f64 entry: every other dtype takes the built-in default.
  const std::string path = write("t.json", host_table({{dtype::f64, "l0_r0_a16", find_by_fields(dtype::f64, "flat", 64).id}}));
  set_results_path(path);
  for (dtype t : {dtype::f32, dtype::f16, dtype::bf16}) {
    SCOPED_TRACE(std::string(name_of(t)));
    const std::int64_t L256 = 256 / std::int64_t(size_of(t));  // the shortest row of 256 bytes
    const dispatch_choice long_rows = explain_dispatch(2, 3, L256, 1, 1, t, backend::host);
    EXPECT_EQ(long_rows.inst, &find_by_fields(t, "rowtile", 2048));
    EXPECT_EQ(long_rows.matched_bucket, "");
    EXPECT_NE(long_rows.reason.find("built-in default"), std::string::npos) << long_rows.reason;
    const dispatch_choice short_rows = explain_dispatch(2, 3, L256 - 1, 1, 1, t, backend::host);
    EXPECT_EQ(short_rows.inst, &find_by_fields(t, "flat", 1024));
    EXPECT_EQ(explain_dispatch(2, 3, 1 << 20, 0, 0, t, backend::host).inst->variant, "rowtile");
    EXPECT_EQ(explain_dispatch(2, 3, 0, 0, 0, t, backend::host).inst->variant, "flat");
  }
  for (const instantiation* i : {explain_f32(1, 64, 0).inst, explain_f32(1, 63, 0).inst}) {
    EXPECT_FALSE(i->needs_zeroed_dx) << i->id;
    EXPECT_EQ(i->access_width, 16) << i->id;
  }
}

TEST_F(Dispatch, WithoutATableTheHostBackendFallsBack) {
  const dispatch_choice ch = explain_f32(4, 1000, 0);
  EXPECT_EQ(ch.table, host_fallback_source());
  if (ch.table == "built-in default") {
    EXPECT_EQ(ch.matched_bucket, "");
    EXPECT_EQ(ch.inst, &find_by_fields(dtype::f32, "rowtile", 2048));
    EXPECT_NE(ch.reason.find("no embedded host-emulation.json"), std::string::npos) << ch.reason;
  }
}

TEST_F(Dispatch, ResultsPathVariableBeatsEmbedded) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  const std::string path = write("env.json", host_table({{dtype::f32, "l10_r2_a16", a.id}}));
  ::setenv("PADTUNE_RESULTS", path.c_str(), 1);
  set_results_path("");  // drop what was resolved before the variable was set
  const dispatch_choice ch = explain_f32(4, 1000, 0);
  EXPECT_EQ(ch.table, path);
  EXPECT_EQ(ch.inst, &a);
}

TEST_F(Dispatch, AnExplicitTableOfAnotherDeviceModelIsPassedOverUnlessAskedFor) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  results_table t = host_table({{dtype::f32, "l10_r2_a16", a.id}});
  t.device.backend = "cuda";
  t.device.name = "NVIDIA Test GPU";
  const std::string path = write("other.json", t);
  set_results_path(path);
  ::testing::internal::CaptureStderr();
  const dispatch_choice passed_over = explain_f32(4, 1000, 0);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(passed_over.table, host_fallback_source());
  EXPECT_NE(warning.find("it is a table of NVIDIA Test GPU (cuda), not of the host emulation"), std::string::npos) << warning;
  EXPECT_NE(passed_over.reason.find(path + " from set_results_path is of another device model"), std::string::npos)
      << passed_over.reason;
  set_results_path(path, true);
  EXPECT_EQ(explain_f32(4, 1000, 0).table, path);
  ::setenv("PADTUNE_RESULTS_ANY_DEVICE", "1", 1);
  set_results_path(path);
  EXPECT_EQ(explain_f32(4, 1000, 0).table, path);
  ::unsetenv("PADTUNE_RESULTS_ANY_DEVICE");
}

TEST_F(Dispatch, SetResultsPathBeatsTheVariable) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 1024);
  const std::string env = write("env.json", host_table({{dtype::f32, "l10_r2_a16", a.id}}));
  const std::string set = write("set.json", host_table({{dtype::f32, "l10_r2_a16", b.id}}));
  ::setenv("PADTUNE_RESULTS", env.c_str(), 1);
  set_results_path(set);
  EXPECT_EQ(explain_f32(4, 1000, 0).table, set);
  EXPECT_EQ(explain_f32(4, 1000, 0).inst, &b);
  set_results_path("");  // back to the variable
  EXPECT_EQ(explain_f32(4, 1000, 0).table, env);
  EXPECT_EQ(explain_f32(4, 1000, 0).inst, &a);
}

TEST_F(Dispatch, TablesAreCachedUntilSetResultsPath) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 1024);
  const std::string path = write("t.json", host_table({{dtype::f32, "l10_r2_a16", a.id}}));
  set_results_path(path);
  EXPECT_EQ(explain_f32(4, 1000, 0).inst, &a);
  write("t.json", host_table({{dtype::f32, "l10_r2_a16", b.id}}));  // changed on disk: not read again
  EXPECT_EQ(explain_f32(4, 1000, 0).inst, &a);
  set_results_path(path);
  EXPECT_EQ(explain_f32(4, 1000, 0).inst, &b);
}

TEST_F(Dispatch, BadTablesFallBackToTheNextSourceAndAreReportedOnce) {
  std::string text = to_json(host_table({{dtype::f32, "l10_r2_a16", find_by_fields(dtype::f32, "flat", 512).id}})).dump(1);
  nlohmann::json wrong_schema = nlohmann::json::parse(text);
  wrong_schema["schema"] = 99;
  const std::vector<std::pair<std::string, std::string>> bad = {
      {(dir / "missing.json").string(), "cannot be opened"},
      {write_text("empty.json", ""), "empty"},
      {write_text("truncated.json", text.substr(0, text.size() / 2)), "not valid JSON"},
      {write_text("schema.json", wrong_schema.dump()), "'schema'"},
      {write_text("fast.json", std::string(text).replace(text.find("\"median_us\": 1.0"), 16, "\"median_us\": \"fast\"")),
       "'median_us'"},
      {dir.string(), ""},  // a folder
  };
  const std::string fallback = host_fallback_source();
  for (const auto& [path, why] : bad) {
    SCOPED_TRACE(path);
    set_results_path(path);
    ::testing::internal::CaptureStderr();
    dispatch_choice ch;
    EXPECT_NO_THROW(ch = explain_f32(4, 1000, 0));
    EXPECT_NO_THROW(explain_f32(8, 100, 1));
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(ch.table, fallback);
    EXPECT_NE(ch.inst, nullptr);
    EXPECT_NE(ch.reason.find(path + " from set_results_path could not be read"), std::string::npos) << ch.reason;
    EXPECT_NE(err.find(path), std::string::npos) << err;
    EXPECT_NE(err.find(why), std::string::npos) << err;
    EXPECT_EQ(err.find(path), err.rfind(path)) << "reported more than once:\n" << err;

    // Dispatch does not throw either, and gives the right answer.
    alignas(16) float dy[2 * 3 * 9], dx[2 * 3 * 4];
    for (int i = 0; i < 2 * 3 * 9; ++i) dy[i] = float(i + 1);
    ::testing::internal::CaptureStderr();
    EXPECT_NO_THROW(dispatch(problem{dy, dx, 2, 3, 4, 2, 3, dtype::f32}, backend::host));
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), "") << "reported again";
    EXPECT_EQ(dx[0], 3.0f);
    EXPECT_EQ(dx[5], 13.0f);  // row 1, element 1: dy[1 * 9 + 1 + 2]
  }
}

TEST_F(Dispatch, BadVariableFallsBackToo) {
  const std::string path = write_text("empty.json", "");
  ::setenv("PADTUNE_RESULTS", path.c_str(), 1);
  set_results_path("");
  ::testing::internal::CaptureStderr();
  const dispatch_choice ch = explain_f32(4, 1000, 0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ch.table, host_fallback_source());
  EXPECT_NE(err.find("PADTUNE_RESULTS"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
}

TEST_F(Dispatch, UnknownWinnersAreSkippedWithOneWarning) {
  const instantiation& good = find_by_fields(dtype::f32, "flat", 512);
  const std::string path = write("t.json", host_table({{dtype::f32, "l10_r2_a16", "constant_pad1d_backward__f32__nope__bo1"},
                                                       {dtype::f32, "l10_r2_a8", find_by_fields(dtype::f64, "flat", 512).id},
                                                       {dtype::f32, "l3_r2_a16", good.id}}));
  set_results_path(path);
  ::testing::internal::CaptureStderr();
  const dispatch_choice ch = explain_f32(4, 1000, 0);  // l9_r2_a16: the skipped entries were nearer
  explain_f32(4, 1000, 0);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(ch.inst, &good);
  EXPECT_EQ(ch.matched_bucket, "l3_r2_a16");
  const auto at = err.find("constant_pad1d_backward__f32__nope__bo1");
  EXPECT_NE(at, std::string::npos) << err;
  EXPECT_EQ(at, err.rfind("constant_pad1d_backward__f32__nope__bo1")) << "warned more than once:\n" << err;
  EXPECT_NE(err.find("takes dtype f64"), std::string::npos) << err;
  EXPECT_NE(err.find(path), std::string::npos) << err;
}

/// Runs the dispatcher on the host and compares with the host reference, byte for byte.
void expect_bit_exact(dtype t, std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right) {
  SCOPED_TRACE(fmt::format("{} B={} C={} L={} pad_left={} pad_right={}", name_of(t), B, C, L, pad_left, pad_right));
  const std::size_t S = size_of(t);
  const std::size_t dy_bytes = std::size_t(B * C * (pad_left + L + pad_right)) * S, dx_bytes = std::size_t(B * C * L) * S;
  std::vector<std::uint64_t> dy(dy_bytes / 8 + 2), dx(dx_bytes / 8 + 2), expected(dx_bytes / 8 + 2);
  std::mt19937_64 gen(std::uint64_t(B * 1000003 + L * 101 + pad_left));
  for (auto& w : dy) w = gen() | 0x0101010101010101ULL;  // no zero bytes: a missed zero shows
  std::memset(dx.data(), 0xA5, dx.size() * 8);
  std::memset(expected.data(), 0xA5, expected.size() * 8);
  std::string why;
  ASSERT_EQ(reference_host(problem{dy.data(), expected.data(), B, C, L, pad_left, pad_right, t}, &why), status::ok) << why;
  dispatch(problem{dy.data(), dx.data(), B, C, L, pad_left, pad_right, t}, backend::host);
  EXPECT_EQ(std::memcmp(dx.data(), expected.data(), dx.size() * 8), 0);  // the tail past dx too: untouched
}

void expect_bit_exact_on_shapes() {
  for (dtype t : all_dtypes) {
    expect_bit_exact(t, 2, 3, 17, 3, 5);
    expect_bit_exact(t, 1, 4, 100, -3, 2);   // a crop on the left
    expect_bit_exact(t, 2, 2, 70, 5, -10);   // a crop on the right
    expect_bit_exact(t, 3, 1, 1000, 0, 0);   // long rows: rowtile by default
    expect_bit_exact(t, 5, 7, 1, 1, 1);      // one element per row
    expect_bit_exact(t, 1, 1, 513, -1, -2);  // crops on both sides
  }
}

TEST_F(Dispatch, FirstUseTimingTimesTheVotesFinalistsOnceAndKeepsTheFastest) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  const instantiation& c = find_by_fields(dtype::f32, "ewise", 128, 0);
  results_table t = host_table({{dtype::f32, "l13_r2_a4", a.id}, {dtype::f32, "l14_r2_a4", b.id}});
  t.entries[0].ranked = {{a.id, 1}, {b.id, 1.01}};
  t.entries[1].ranked = {{b.id, 1}, {c.id, 1.5}};
  set_results_path(write("t.json", t));
  const std::int64_t B = 1, C = 4, L = 11584, pad_left = 3, pad_right = -5;  // the vote's first: b
  const auto ask = [&] { return explain_dispatch(B, C, L, pad_left, pad_right, dtype::f32, backend::host); };
  EXPECT_FALSE(autotune_enabled());
  EXPECT_EQ(ask().inst, &b);
  const std::size_t timed_before = autotuned_shapes();
  set_autotune(true);
  dispatch_choice before = ask();  // not dispatched yet: the vote's choice, and word of the timing to come
  EXPECT_EQ(before.inst, &b);
  EXPECT_TRUE(before.timings.empty());
  EXPECT_NE(before.reason.find("first-use timing is on: the first dispatch of this shape times the vote's 3 finalists"),
            std::string::npos) << before.reason;

  expect_bit_exact(dtype::f32, B, C, L, pad_left, pad_right);  // the first dispatch times, then runs the fastest
  EXPECT_EQ(autotuned_shapes(), timed_before + 1);
  const dispatch_choice timed = ask();
  EXPECT_EQ(timed.served_by, "timed");
  EXPECT_EQ(timed.matched_bucket, before.matched_bucket);
  ASSERT_EQ(timed.timings.size(), 3u);
  EXPECT_EQ(timed.timings[0].first, &b);  // in the vote's order: b, a (ranked 1.01 by the nearer), c
  EXPECT_EQ(timed.timings[1].first, &a);
  EXPECT_EQ(timed.timings[2].first, &c);
  const auto fastest = std::min_element(timed.timings.begin(), timed.timings.end(),
                                        [](const auto& x, const auto& y) { return x.second < y.second; });
  // The vote's first unless another timed at least 2% faster.
  const bool clearly_faster = fastest->second < 0.98 * timed.timings[0].second;
  EXPECT_EQ(timed.inst, clearly_faster ? fastest->first : &b);
  for (const auto& [inst, us] : timed.timings) EXPECT_GT(us, 0) << inst->id;
  EXPECT_NE(timed.reason.find(clearly_faster ? "the fastest of the vote's 3 finalists" : "the vote's first of its 3 finalists"),
            std::string::npos) << timed.reason;

  // Kept for the process: later dispatches of the shape, on any thread, time nothing again.
  expect_bit_exact(dtype::f32, B, C, L, pad_left, pad_right);
  std::thread([&] { expect_bit_exact(dtype::f32, B, C, L, pad_left, pad_right); }).join();
  EXPECT_EQ(autotuned_shapes(), timed_before + 1);
  EXPECT_EQ(ask().timings, timed.timings);
  // The same table serves CUDA too (an explicit table, any device): a choice timed on the host
  // emulation is not CUDA's.
  EXPECT_NE(explain_dispatch(B, C, L, pad_left, pad_right, dtype::f32, backend::cuda).served_by, "timed");
  // Another pad_right is another problem: not timed yet.
  EXPECT_NE(explain_dispatch(B, C, L, pad_left, 0, dtype::f32, backend::host).served_by, "timed");

  set_autotune(false);  // off: the vote again, with no word of timing
  const dispatch_choice off = ask();
  EXPECT_EQ(off.inst, &b);
  EXPECT_TRUE(off.timings.empty());
  EXPECT_EQ(off.reason.find("first-use timing"), std::string::npos) << off.reason;
  expect_bit_exact(dtype::f32, B, C, L, pad_left, pad_right);
}

TEST_F(Dispatch, AnEntryAtItsOwnShapeKeepsAWinnerMoreThanOnePercentAhead) {
  // a wins its own entry (rows 4, L 64, pads 1, 0) by a small lead over b; b wins both neighbours,
  // where a is 30% slower: the vote alone takes b for leads up to about 2%.
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  const instantiation& b = find_by_fields(dtype::f32, "rowtile", 4096);
  results_table t = host_table({{dtype::f32, "l6_r2_a4", a.id}, {dtype::f32, "l7_r2_a4", b.id}, {dtype::f32, "l5_r2_a4", b.id}});
  t.entries[1].ranked = t.entries[2].ranked = {{b.id, 1}, {a.id, 1.3}};
  for (const auto& [lead, keeps] : {std::pair{1.005, false}, {1.011, true}, {1.02, true}}) {
    SCOPED_TRACE(lead);
    t.entries[0].ranked = {{a.id, 1}, {b.id, lead}};
    set_results_path(write(fmt::format("t{}.json", lead), t));
    const dispatch_choice ch = explain_dispatch(1, 4, 64, 1, 0, dtype::f32, backend::host);
    EXPECT_EQ(ch.inst, keeps ? &a : &b);
    const std::string overruled = fmt::format("the 3 nearest entries vote for {}, {:.1f}% slower at this very shape's entry: "
                                              "its winner serves it", b.id, 100 * (lead - 1));
    EXPECT_EQ(ch.reason.find(overruled) != std::string::npos, keeps) << ch.reason;
    // Another pad_right is another shape, which the entry was not measured at: the vote decides.
    EXPECT_EQ(explain_dispatch(1, 4, 64, 1, 4, dtype::f32, backend::host).inst, &b);
  }
  // First-use timing times the entry's winner first, then the vote's order.
  set_autotune(true);
  expect_bit_exact(dtype::f32, 1, 4, 64, 1, 0);
  const dispatch_choice timed = explain_dispatch(1, 4, 64, 1, 0, dtype::f32, backend::host);
  EXPECT_EQ(timed.served_by, "timed");
  ASSERT_EQ(timed.timings.size(), 2u);
  EXPECT_EQ(timed.timings[0].first, &a);
  EXPECT_EQ(timed.timings[1].first, &b);
}

TEST_F(Dispatch, FirstUseTimingLeavesExactEntriesAndSingleCandidatesAlone) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 256);
  results_table t = host_table({{dtype::f32, "l6_r2_a4", a.id}});
  t.entries[0].exact = true;
  t.entries[0].shape = {1, 4, 100, 3, 5};
  set_results_path(write("t.json", t));
  set_autotune(true);
  const std::size_t timed_before = autotuned_shapes();
  expect_bit_exact(dtype::f32, 1, 4, 100, 3, 5);
  EXPECT_EQ(explain_dispatch(1, 4, 100, 3, 5, dtype::f32, backend::host).served_by, "exact");
  // Another shape: the exact entry stands in for buckets and names one candidate: nothing to time.
  expect_bit_exact(dtype::f32, 1, 4, 90, 3, 5);
  const dispatch_choice other = explain_dispatch(1, 4, 90, 3, 5, dtype::f32, backend::host);
  EXPECT_NE(other.served_by, "timed");
  EXPECT_EQ(other.inst, &a);
  EXPECT_EQ(autotuned_shapes(), timed_before);  // nothing timed
}

TEST_F(Dispatch, HostBackendIsBitExactWithTheDefault) {
  const std::string path = write("t.json", host_table({}));  // no entries: the built-in default for all
  set_results_path(path);
  expect_bit_exact_on_shapes();
}

TEST_F(Dispatch, HostBackendIsBitExactWithTableWinners) {
  std::vector<row> rows;
  for (dtype t : all_dtypes) {
    rows.push_back({t, "l4_r2_a16", find_by_fields(t, "flat", 64).id});
    rows.push_back({t, "l10_r0_a16", find_by_fields(t, "rowtile", 512).id});
  }
  set_results_path(write("t.json", host_table(rows)));
  expect_bit_exact_on_shapes();
}

TEST_F(Dispatch, AJitWinnerGivesWayToItsAotRunnerUpOrItsNeighbours) {
  // A table of padtune tune --jit: the dispatcher runs only ahead-of-time kernels.
  const instantiation& runner_up = find_by_fields(dtype::f32, "flat", 512);
  const instantiation& neighbour = find_by_fields(dtype::f32, "rowtile", 4096);
  const std::string jit_with_runner_up = "jit__constant_pad1d_backward__f32__0__0__512__flat__t128__w16";
  const std::string jit_alone = "jit__constant_pad1d_backward__f32__3__0__4096__rowtile__t256__w16";
  results_table t = host_table({{dtype::f32, "l10_r2_a16", jit_with_runner_up},
                                       {dtype::f32, "l13_r10_a4", jit_alone},
                                       {dtype::f32, "l13_r8_a4", neighbour.id}});
  t.entries[0].runner_up = candidate_numbers{runner_up.id, 2.0, 0.1, 1.0, 1.5};
  set_results_path(write("t.json", t));
  ::testing::internal::CaptureStderr();
  const dispatch_choice by_runner_up = explain_f32(4, 1024, 0);
  const dispatch_choice by_neighbour = explain_f32(1024, 8192, 3);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(by_runner_up.inst, &runner_up);
  EXPECT_EQ(by_runner_up.matched_bucket, "l10_r2_a16");
  EXPECT_NE(by_runner_up.reason.find("the JIT winner " + jit_with_runner_up + " is not run by the dispatcher"),
            std::string::npos)
      << by_runner_up.reason;
  EXPECT_EQ(by_neighbour.inst, &neighbour);
  EXPECT_EQ(by_neighbour.matched_bucket, "l13_r8_a4");
  EXPECT_NE(err.find("winner '" + jit_alone + "' is a JIT kernel"), std::string::npos) << err;
  expect_bit_exact(dtype::f32, 1, 4, 1024, 0, 0);  // launches the runner-up, on the host
  expect_bit_exact(dtype::f32, 2, 3, 100, 3, 0);
}

TEST_F(Dispatch, SeedWinnerGetsDxZeroedFirst) {
  // The seed only writes the copied part of dx: the dispatcher zeroes the rest (dx is poisoned).
  std::vector<row> rows;
  for (dtype t : all_dtypes) rows.push_back({t, "l5_r2_a16", find_by_fields(t, "seed", 256, 0).id});
  set_results_path(write("t.json", host_table(rows)));
  ASSERT_TRUE(explain_f32(4, 40, 0).inst->needs_zeroed_dx);
  expect_bit_exact_on_shapes();
}

TEST_F(Dispatch, TypedAndUntypedEntryPointsValidateFirst) {
  // No GPU is needed to reject bad input or to do nothing: both happen before any CUDA call.
  try {
    constant_pad1d_backward<float>(nullptr, nullptr, -1, 2, 3, 0, 0);
    ADD_FAILURE() << "a negative B was accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::negative_size);
  }
  EXPECT_NO_THROW(constant_pad1d_backward<double>(nullptr, nullptr, 0, 2, 3, 0, 0));
  EXPECT_NO_THROW(constant_pad1d_backward<__half>(nullptr, nullptr, 2, 0, 3, 1, 1));
  EXPECT_NO_THROW(constant_pad1d_backward<__nv_bfloat16>(nullptr, nullptr, 2, 2, 0, 1, 1));
  EXPECT_NO_THROW(constant_pad1d_backward(nullptr, nullptr, 2, 2, 0, -1, 1, dtype::f32));
}

TEST_F(Dispatch, ZeroSizeIsANoOp) {
  alignas(16) unsigned char dx[64];
  std::memset(dx, 0xA5, sizeof dx);
  const unsigned char dy[64] = {1};
  for (const problem& p : {problem{nullptr, nullptr, 0, 3, 4, 1, 1, dtype::f32}, problem{dy, dx, 2, 0, 4, 1, 1, dtype::f64},
                           problem{dy, dx, 2, 3, 0, 2, 2, dtype::f16}, problem{nullptr, dx, 2, 3, 0, 0, 0, dtype::bf16},
                           problem{dy, nullptr, 2, 3, 0, 4, -4, dtype::f32}}) {
    EXPECT_NO_THROW(dispatch(p, backend::host));
    EXPECT_NO_THROW(dispatch(p, backend::cuda));  // nothing to do: no device needed
  }
  for (unsigned char b : dx) ASSERT_EQ(b, 0xA5);
  // It still explains what a non-empty shape of that bucket would take.
  const dispatch_choice ch = explain_dispatch(0, 3, 4, 1, 1, dtype::f32, backend::host);
  EXPECT_NE(ch.inst, nullptr);
  EXPECT_NE(ch.reason.find("no elements"), std::string::npos) << ch.reason;
}

TEST_F(Dispatch, BadInputThrowsWithTheRightStatus) {
  alignas(16) unsigned char buf[1024];
  const auto expect_status = [](const problem& p, status code) {
    try {
      dispatch(p, backend::host);
      ADD_FAILURE() << "accepted; expected " << name_of(code);
    } catch (const error& e) {
      EXPECT_EQ(e.code(), code) << name_of(e.code()) << ": " << e.what();
      std::string why;
      EXPECT_EQ(check(p, &why), code);
      EXPECT_EQ(std::string(e.what()), why);
    }
  };
  expect_status(problem{buf, buf + 512, -1, 3, 4, 1, 1, dtype::f32}, status::negative_size);
  expect_status(problem{buf, buf + 512, 2, 3, -4, 1, 1, dtype::f32}, status::negative_size);
  expect_status(problem{buf, buf + 512, 2, 3, 4, -3, -3, dtype::f32}, status::negative_output_length);
  expect_status(problem{buf, buf + 512, 2, 3, 4, 1, 1, dtype(7)}, status::unknown_dtype);
  expect_status(problem{nullptr, buf + 512, 2, 3, 4, 1, 1, dtype::f32}, status::null_pointer);
  expect_status(problem{buf, nullptr, 2, 3, 4, 1, 1, dtype::f32}, status::null_pointer);
  expect_status(problem{buf + 1, buf + 512, 2, 3, 4, 1, 1, dtype::f32}, status::misaligned_pointer);
  expect_status(problem{buf, buf + 16, 2, 3, 4, 1, 1, dtype::f32}, status::overlapping_buffers);
  expect_status(problem{buf, buf + 512, std::int64_t(1) << 40, std::int64_t(1) << 40, 4, 1, 1, dtype::f32},
                status::size_overflow);

  for (const auto& [shape, code] : std::vector<std::pair<std::vector<std::int64_t>, status>>{
           {{-1, 1, 1, 0, 0}, status::negative_size}, {{1, 1, 4, -5, 0}, status::negative_output_length}}) {
    try {
      explain_dispatch(shape[0], shape[1], shape[2], shape[3], shape[4], dtype::f32, backend::host);
      ADD_FAILURE() << "explain_dispatch accepted a bad shape";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), code);
    }
  }
}

TEST_F(Dispatch, WithoutAGpuExplainWorksAndDispatchThrows) {
  if (cuda_device_present()) GTEST_SKIP() << "a CUDA device is present: this test is for machines without one";
  const dispatch_choice ch = explain_dispatch(4, 8, 1000, 0, 0, dtype::f32, backend::cuda);
  EXPECT_EQ(ch.table, "built-in default");
  EXPECT_NE(ch.reason.find("no usable CUDA device"), std::string::npos) << ch.reason;
  alignas(16) float dy[4 * 8 * 10], dx[4 * 8 * 10];
  try {
    constant_pad1d_backward(dy, dx, 4, 8, 10, 0, 0);
    ADD_FAILURE() << "dispatch without a GPU succeeded";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::launch_failed) << e.what();
    EXPECT_NE(std::string(e.what()).find("no usable CUDA device"), std::string::npos) << e.what();
  }
  // With an explicit table, explain uses it even without a device.
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  results_table t = host_table({{dtype::f32, "l9_r5_a16", a.id}});
  t.device.backend = "cuda";
  t.device.name = "NVIDIA H200";
  const std::string path = write("cuda.json", t);
  set_results_path(path);
  EXPECT_EQ(explain_dispatch(4, 8, 1000, 0, 0, dtype::f32, backend::cuda).inst, &a);
}

TEST_F(Dispatch, ConcurrentFirstCallsAgree) {
  const instantiation& a = find_by_fields(dtype::f32, "flat", 512);
  set_results_path(write("t.json", host_table({{dtype::f32, "l9_r2_a16", a.id}})));
  std::vector<std::thread> threads;
  std::vector<int> right(8, 0);
  for (int k = 0; k < 8; ++k)
    threads.emplace_back([&right, &a, k] {
      for (int i = 0; i < 200; ++i) {
        alignas(16) float dy[4 * 600], dx[4 * 512];
        std::fill(dy, dy + 4 * 600, 1.0f);
        dispatch(problem{dy, dx, 1, 4, 512, 44, 44, dtype::f32}, backend::host);
        right[k] += explain_f32(4, 512, 44).inst == &a && dx[0] == 1.0f && dx[4 * 512 - 1] == 1.0f;
      }
    });
  for (auto& t : threads) t.join();
  for (int k = 0; k < 8; ++k) EXPECT_EQ(right[k], 200) << "thread " << k;
}

}  // namespace
}  // namespace padtune
