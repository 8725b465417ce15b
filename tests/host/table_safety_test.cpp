// A tune never destroys a table: a table of another device model or of a newer schema is refused
// before any work; what cannot be read is set aside, never dropped; a shape nothing could run fails
// the run and leaves the table partial. And the pieces that hold it: escaped text, bounded reads,
// a --filter that cannot run away, shared locks that create nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>

#include "padtune/detail/input.hpp"
#include "padtune/detail/nearest_table.hpp"
#include "padtune/search/id_filter.hpp"
#include "padtune/store/file_lock.hpp"
#include "padtune/select/merge.hpp"
#include "padtune/store/table_file.hpp"
#include "quick_tune.hpp"

namespace padtune::tuner {
namespace {

std::filesystem::path fresh_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("padtune_table_safety_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string file_text(const std::filesystem::path& p) { return read_input_file(p); }

void write_text(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }

/// A table written by a quick host tune of `sizes`, at dir/name.
std::filesystem::path tuned_table(const std::filesystem::path& dir, const std::string& name, std::vector<shape5> sizes) {
  tune_options o = quick_tune_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes = std::move(sizes);
  o.exact_entries = true;
  o.table_path = dir / name;
  run_tune(o, nullptr);
  return o.table_path;
}

TEST(TableSafety, ATableOfAnotherDeviceModelIsRefusedBeforeAnyWork) {
  const auto dir = fresh_dir("foreign");
  const std::filesystem::path table = dir / "T.json";
  std::filesystem::copy_file(std::filesystem::path(PADTUNE_SOURCE_DIR) / "results/nvidia-h200.json", table);
  const std::string before = file_text(table);
  tune_options o = quick_tune_options(dir);
  o.table_path = table;
  try {
    run_tune(o, nullptr);
    ADD_FAILURE() << "the H200 table was replaced by a host table";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a table of NVIDIA H200"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("host emulation"), std::string::npos) << e.what();
  }
  EXPECT_EQ(file_text(table), before);
  EXPECT_FALSE(std::filesystem::exists(dir / "host-emulation.cache.jsonl")) << "a refused run measured";
}

TEST(TableSafety, ANewerSchemaIsRefusedAndLeftAsItWas) {
  const auto dir = fresh_dir("newer");
  const auto table = tuned_table(dir, "t.json", {{2, 3, 10, 2, 1}});
  nlohmann::json j = nlohmann::json::parse(file_text(table));
  j["schema"] = results_schema_version + 1;
  write_text(table, j.dump(1));
  const std::string before = file_text(table);
  EXPECT_THROW(read_table(table), newer_schema_error);
  tune_options o = quick_tune_options(dir);
  o.table_path = table;
  EXPECT_THROW(run_tune(o, nullptr), results_error);
  EXPECT_EQ(file_text(table), before);
}

TEST(TableSafety, BadEntriesAreSetAsideAndTheGoodOnesKept) {
  const auto dir = fresh_dir("bad_entry");
  const auto table = tuned_table(dir, "t.json", {{2, 3, 10, 2, 1}, {2, 3, 12, 1, 1}});
  nlohmann::json j = nlohmann::json::parse(file_text(table));
  ASSERT_EQ(j["entries"].size(), 2u);
  j["entries"][1]["winner"]["median_us"] = -1;
  write_text(table, j.dump(1));
  std::vector<rejected_entry> rejected;
  const results_table kept = parse_table_keeping_good(file_text(table), "t.json", rejected);
  ASSERT_EQ(kept.entries.size(), 1u);
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_EQ(rejected[0].index, 1u);
  EXPECT_NE(rejected[0].why.find("median_us' is negative"), std::string::npos) << rejected[0].why;

  const auto again = tuned_table(dir, "t.json", {{2, 4, 40, 3, 1}});  // another shape: both old and new stay
  const results_table t = read_table(again);
  ASSERT_EQ(t.entries.size(), 2u);
  const std::string aside = file_text(dir / "t.json.rejected");
  EXPECT_NE(aside.find("# entries[1]: "), std::string::npos) << aside;
  EXPECT_NE(aside.find("\"median_us\":-1"), std::string::npos) << aside;
}

TEST(TableSafety, AnUnreadableTableIsSetAsideWhole) {
  const auto dir = fresh_dir("garbage");
  write_text(dir / "t.json", "{\"schema\": 1, \"truncated");
  const auto table = tuned_table(dir, "t.json", {{2, 3, 10, 2, 1}});
  EXPECT_EQ(read_table(table).entries.size(), 1u);
  const std::string aside = file_text(dir / "t.json.rejected");
  EXPECT_NE(aside.find("the whole table"), std::string::npos) << aside;
  EXPECT_NE(aside.find("{\"schema\": 1, \"truncated"), std::string::npos) << aside;
  write_text(dir / "t.json", "second garbage");  // a second one is added, the first kept
  tuned_table(dir, "t.json", {{2, 3, 10, 2, 1}});
  const std::string both = file_text(dir / "t.json.rejected");
  EXPECT_NE(both.find("truncated"), std::string::npos);
  EXPECT_NE(both.find("second garbage"), std::string::npos);
}

TEST(TableSafety, AShapeNoCandidateRunsFailsTheRunAndLeavesThePartialTable) {
  const auto dir = fresh_dir("unrunnable");
  tune_options o = quick_tune_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes = {{2, 3, 10, 2, 1}, {1, 1, 1LL << 42, 0, 0}};  // 16 TB of dy: no buffer
  o.exact_entries = true;
  const tune_report r = run_tune(o, nullptr);
  ASSERT_EQ(r.unrunnable.size(), 1u);
  EXPECT_NE(r.unrunnable[0].find("f32 (1,1,4398046511104,0,0): launch_failed: workspace: the host emulation needs"),
            std::string::npos) << r.unrunnable[0];
  const results_table t = read_table(r.table_path);
  EXPECT_FALSE(t.complete);
  EXPECT_EQ(t.entries.size(), 1u);
}

TEST(SafeText, KeepsUtf8AndEscapesControlsAndBrokenBytes) {
  EXPECT_EQ(safe_text("plain /tmp/a b.json"), "plain /tmp/a b.json");
  EXPECT_EQ(safe_text("line\nand\ttab"), "line\nand\ttab");
  EXPECT_EQ(safe_text("Gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80"), "Gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
  EXPECT_EQ(safe_text("x\x1b]0;pwned\x07y\r\x7f"), "x\\x1b]0;pwned\\x07y\\x0d\\x7f");
  EXPECT_EQ(safe_text("name\xff.json"), "name\\xff.json");
  EXPECT_EQ(safe_text("\xc2\x9b" "31m"), "\\xc2\\x9b31m");  // C1 CSI, a terminal's escape in 8 bits
  EXPECT_EQ(safe_text("\xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82"), "\\xc0\\xaf \\xed\\xa0\\x80 \\xf4\\x90\\x80\\x80 \\xe2\\x82");
  const std::string escaped = safe_text(std::string("nul\0byte", 8));
  EXPECT_EQ(escaped, "nul\\x00byte");
  // Whatever the bytes, the result is valid UTF-8: a JSON dump of it cannot throw.
  std::string all;
  for (int c = 0; c < 256; ++c) all += char(c);
  EXPECT_NO_THROW((void)nlohmann::json(safe_text(all)).dump());
}

TEST(InputLimits, AFileOverItsLimitIsRefusedByName) {
  const auto dir = fresh_dir("limits");
  write_text(dir / "small.txt", std::string(100, 'x'));
  EXPECT_EQ(read_input_file(dir / "small.txt", 100, "test file").size(), 100u);
  try {
    read_input_file(dir / "small.txt", 99, "test file");
    ADD_FAILURE() << "a file over its limit was read";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("small.txt: 100 bytes or more, over the limit of 99 bytes for a test file"),
              std::string::npos) << e.what();
  }
}

TEST(IdFilter, MatchesAnywhereAndNeverRunsAway) {
  const std::string id = "constant_pad1d_backward__f32__flat__bo1024__t256__w16";
  EXPECT_TRUE(id_filter("").matches(id));
  EXPECT_TRUE(id_filter("__(rowtile|flat)__bo1024__t256__w16$").matches(id));
  EXPECT_FALSE(id_filter("^flat").matches(id));
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(id_filter("(.*)*X").matches(id));
  EXPECT_FALSE(id_filter("((a|aa)*)*c$").matches(id + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_THROW(id_filter("(["), results_error);
  EXPECT_THROW(id_filter("(a)\\1"), results_error);
  EXPECT_THROW(id_filter("((a{1,255}){1,255}){1,255}"), results_error);
  EXPECT_THROW(id_filter(std::string(id_filter::max_pattern_bytes + 1, 'a')), results_error);
  EXPECT_TRUE(id_filter("f(32){1,3}__").matches(id));
  // Sizes that crashed or filled memory in regcomp although short and few copies: refused.
  EXPECT_THROW(id_filter("(" + std::string(240, 'a').replace(1, 238, std::string(119, 'a') + std::string(119, '?')) + "){1000}"), results_error);
  std::string many;
  for (int k = 0; k < 30; ++k) many += "a?";
  EXPECT_THROW(id_filter("(" + many + "){1000}"), results_error);
  EXPECT_NO_THROW(id_filter("(" + many + "){10}"));
  // Brackets are members, not syntax: a brace or a backslash in one is no repetition or back-reference.
  EXPECT_NO_THROW(id_filter("[{1001}]"));
  EXPECT_NO_THROW(id_filter("[\\1]"));
  EXPECT_TRUE(id_filter("[]_]f32[_]").matches(id));
}

TEST(FileLock, ASharedLockCreatesNothingAndWaitsForAWriter) {
  const auto dir = fresh_dir("lock");
  const auto lock = dir / "c.cache.jsonl.lock";
  { const file_lock reader(lock, {}, nullptr, file_lock::mode::shared); }
  EXPECT_FALSE(std::filesystem::exists(lock)) << "a reader created the lock file";
  const file_lock writer(lock);  // exclusive: creates it
  EXPECT_TRUE(std::filesystem::exists(lock));
  std::atomic<bool> stop{true};  // a reader that would have to wait gives up at once: it was not let in
  EXPECT_THROW(file_lock(lock, {}, &stop, file_lock::mode::shared), interrupted_error);
}

}  // namespace
}  // namespace padtune::tuner

namespace padtune::tuner {
namespace {

TEST(MergeScale, ManyEntriesMergeInLinearTime) {
  // 40000 places of one table each, and the same again: a search over every earlier place per entry
  // took 9 s for 40000; an index takes milliseconds.
  std::vector<table_entry> a, b;
  for (long long k = 0; k < 40000; ++k) {
    table_entry e;
    e.type = dtype::f32;
    e.exact = true;
    e.shape = {1, 1 + k, 64, 1, 1};
    e.where = bucket_of(e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.type);
    e.winner = {"w", 1.0, 0, 1, 1.0};
    a.push_back(e);
    e.winner.ratio_to_memcpy = 0.9;
    b.push_back(e);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<table_entry> merged = merge_entries({a, b});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  ASSERT_EQ(merged.size(), 40000u);
  EXPECT_EQ(merged[0].winner.ratio_to_memcpy, 0.9);  // the faster of each place's two
}

TEST(Selection, ANonFiniteRatioIsRefusedByName) {
  const shape5 s{2, 3, 64, 1, 1};
  const auto timed = [&](const std::string& id, double median) {
    measurement m{id, dtype::f32, s, "ok", "", {}};
    m.t.cold.median = median;
    m.t.cold.samples = 10;
    return m;
  };
  const std::vector<measurement> all = {timed(memcpy_floor_id, 1e-300), timed(registry().front().id, 1e300)};
  try {
    select_entries(all, cached_timings(all));
    ADD_FAILURE() << "an infinite ratio was selected";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find(measurement_key(registry().front().id, dtype::f32, s)), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace padtune::tuner

namespace padtune::detail {
namespace {

TEST(NearestPublished, AModelWithoutATableBorrowsTheNearestComputeCapability) {
  const auto gpu = [](const char* name, int major, int minor, const char* backend = "cuda") {
    device_fingerprint d;
    d.name = name, d.cc_major = major, d.cc_minor = minor, d.backend = backend;
    return d;
  };
  const std::vector<device_fingerprint> tables = {gpu("host emulation", 0, 0, "host"), gpu("NVIDIA H200", 9, 0),
                                                  gpu("NVIDIA A100", 8, 0), gpu("NVIDIA B200", 10, 0)};
  EXPECT_EQ(nearest_published(tables, 9, 0), 1);   // an H100: the H200's
  EXPECT_EQ(nearest_published(tables, 8, 6), 2);   // an A10: the A100's
  EXPECT_EQ(nearest_published(tables, 8, 9), 2);   // an L40S (8.9): the A100's, of its family
  EXPECT_EQ(nearest_published(tables, 12, 0), 3);  // an RTX 5090: the B200's
  EXPECT_EQ(nearest_published(tables, 10, 3), 3);  // a B300: the B200's
  EXPECT_EQ(nearest_published({gpu("X", 8, 0), gpu("Y", 8, 6)}, 8, 3), 0);  // equally near: the earlier
  EXPECT_EQ(nearest_published({gpu("host emulation", 0, 0, "host")}, 9, 0), -1);
  EXPECT_EQ(nearest_published({}, 9, 0), -1);
}

}  // namespace
}  // namespace padtune::detail
