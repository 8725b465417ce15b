// The results table format: a round trip in memory and through a file, and for every kind of bad
// file an error (never a crash) whose message names the file and the field.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "padtune/store/output_file.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

results_table sample_table() {
  results_table t;
  t.device.backend = "cuda";
  t.device.name = "NVIDIA H200";
  t.device.cc_major = 9;
  t.device.cc_minor = 0;
  t.device.sm_count = 132;
  t.device.l2_bytes = 62914560;
  t.device.memory_clock_khz = 2619000;
  t.device.bus_width_bits = 6144;
  t.device.driver_version = 13000;
  t.device.runtime_version = 13000;
  t.device.uuid = "GPU-12345678-abcd";
  t.settings = {{"l2", "cold"}, {"min_samples", 30}, {"budget_s", 0.5}};
  t.command = "padtune tune --dtype f32";
  t.created = "2026-11-30T05:00:00Z";
  t.complete = false;
  table_entry a;
  a.type = dtype::f32;
  a.where = bucket{13, 10, 4};
  a.shape = shape5{4, 256, 8192, 3, 5};
  a.winner = {"constant_pad1d_backward__f32__rowtile__bo2048__t256__w16", 12.5, 0.25, 1342.0, 1.0234};
  a.runner_up = candidate_numbers{"constant_pad1d_backward__f32__flat__bo1024__t256__w16", 13.0, 0.5, 1290.5, 1.06};
  a.margin = 0.04;
  table_entry b;
  b.type = dtype::bf16;
  b.where = bucket{4, 0, 2};
  b.shape = shape5{1, 1, 16, -1, 0};
  b.winner = {"constant_pad1d_backward__bf16__flat__bo64__t256__w16", 2.0, 0.0, 0.032, 1.5};
  b.margin = 0;
  t.entries = {a, b};
  return t;
}

void expect_same_numbers(const candidate_numbers& a, const candidate_numbers& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.median_us, b.median_us);
  EXPECT_EQ(a.iqr_us, b.iqr_us);
  EXPECT_EQ(a.gbps, b.gbps);
  EXPECT_EQ(a.ratio_to_memcpy, b.ratio_to_memcpy);
}

void expect_same_table(const results_table& a, const results_table& b) {
  EXPECT_EQ(a.schema, b.schema);
  EXPECT_EQ(a.harness, b.harness);
  EXPECT_TRUE(a.device.same_model(b.device));
  EXPECT_EQ(a.device.uuid, b.device.uuid);
  EXPECT_EQ(a.settings, b.settings);
  EXPECT_EQ(a.command, b.command);
  EXPECT_EQ(a.created, b.created);
  EXPECT_EQ(a.complete, b.complete);
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    SCOPED_TRACE(i);
    const table_entry &x = a.entries[i], &y = b.entries[i];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.where, y.where);
    EXPECT_EQ(x.shape, y.shape);
    expect_same_numbers(x.winner, y.winner);
    ASSERT_EQ(x.runner_up.has_value(), y.runner_up.has_value());
    if (x.runner_up) expect_same_numbers(*x.runner_up, *y.runner_up);
    EXPECT_EQ(x.margin, y.margin);
  }
}

/// A fresh folder per test under the system's temporary folder, removed afterwards.
class Results : public ::testing::Test {
 protected:
  fs::path dir;

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir = fs::temp_directory_path() / fmt::format("padtune_results_test_{}", ::getpid()) / info->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir.parent_path(), ec);
  }

  fs::path write_text(const std::string& name, const std::string& text) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  /// Writes the sample table with one change, as JSON text.
  fs::path write_changed(const std::string& name, void (*change)(json&)) {
    json j = to_json(sample_table());
    change(j);
    return write_text(name, j.dump(1));
  }

  /// read_table's error message, or "" (and a test failure) if it read the file.
  static std::string read_error(const fs::path& p) {
    try {
      read_table(p);
    } catch (const results_error& e) {
      return e.what();
    } catch (const std::exception& e) {
      return fmt::format("not a results_error: {}", e.what());
    }
    ADD_FAILURE() << p << " was read without an error";
    return "";
  }
};

void expect_mentions(const std::string& message, const std::vector<std::string>& needles) {
  for (const std::string& n : needles)
    EXPECT_NE(message.find(n), std::string::npos) << "message '" << message << "' does not mention '" << n << "'";
}

TEST_F(Results, RoundTripInMemory) {
  const results_table t = sample_table();
  expect_same_table(t, table_from_json(to_json(t), "memory"));
}

TEST_F(Results, RoundTripThroughFile) {
  const results_table t = sample_table();
  const fs::path p = dir / "nvidia-h200.json";
  write_table(t, p);
  expect_same_table(t, read_table(p));
  // Writing what was read gives the same bytes: nothing is lost or reordered.
  const std::string first = to_json(t).dump(1);
  EXPECT_EQ(to_json(read_table(p)).dump(1), first);
}

TEST_F(Results, RoundTripOfAnEmptyHostTable) {
  results_table t;
  t.device.backend = "host";
  t.device.name = "host emulation";
  const fs::path p = dir / "host-emulation.json";
  write_table(t, p);
  const results_table back = read_table(p);
  expect_same_table(t, back);
  EXPECT_EQ(back.device.slug(), "host-emulation");
}

TEST(ResultsSlug, NamesTheModelForFiles) {
  device_fingerprint d;
  d.name = "NVIDIA H200";
  EXPECT_EQ(d.slug(), "nvidia-h200");
  d.name = "NVIDIA GeForce RTX 4090 (laptop)";
  EXPECT_EQ(d.slug(), "nvidia-geforce-rtx-4090-laptop");
  d.name = "";
  EXPECT_EQ(d.slug(), "unknown-gpu");
  d.backend = "host";
  EXPECT_EQ(d.slug(), "host-emulation");
}

TEST_F(Results, MissingFile) {
  const fs::path p = dir / "nope.json";
  expect_mentions(read_error(p), {p.string(), "cannot be opened"});
}

TEST_F(Results, EmptyFile) {
  const fs::path p = write_text("empty.json", "");
  expect_mentions(read_error(p), {p.string(), "empty"});
}

TEST_F(Results, TruncatedFile) {
  const std::string text = to_json(sample_table()).dump(1);
  for (std::size_t cut : {std::size_t(1), text.size() / 3, text.size() / 2, text.size() - 2}) {
    const fs::path p = write_text(fmt::format("truncated_{}.json", cut), text.substr(0, cut));
    expect_mentions(read_error(p), {p.string(), "not valid JSON"});
  }
}

TEST_F(Results, NotAnObject) {
  const fs::path p = write_text("array.json", "[1, 2, 3]");
  expect_mentions(read_error(p), {p.string(), "expected an object"});
}

TEST_F(Results, WrongSchemaNumber) {
  const fs::path p = write_changed("schema.json", [](json& j) { j["schema"] = 2; });
  expect_mentions(read_error(p), {p.string(), "'schema'", "is 2", "schema 1"});
  const fs::path q = write_changed("schema_text.json", [](json& j) { j["schema"] = "1"; });
  expect_mentions(read_error(q), {q.string(), "'schema'", "wrong type"});
}

TEST_F(Results, WrongTypeOfAField) {
  const fs::path p = write_changed("fast.json", [](json& j) { j["entries"][0]["winner"]["median_us"] = "fast"; });
  expect_mentions(read_error(p), {p.string(), "entries[0].winner", "'median_us'", "wrong type", "fast"});
  const fs::path q = write_changed("sm.json", [](json& j) { j["device"]["sm_count"] = 1.5; });
  expect_mentions(read_error(q), {q.string(), "device", "'sm_count'"});
  const fs::path r = write_changed("entries.json", [](json& j) { j["entries"] = json::object(); });
  expect_mentions(read_error(r), {r.string(), "'entries'", "array"});
}

TEST_F(Results, MissingField) {
  const fs::path p = write_changed("winner.json", [](json& j) { j["entries"][1].erase("winner"); });
  expect_mentions(read_error(p), {p.string(), "entries[1]", "'winner'", "missing"});
  const fs::path q = write_changed("device.json", [](json& j) { j["device"].erase("compute_capability"); });
  expect_mentions(read_error(q), {q.string(), "'compute_capability'", "missing"});
}

TEST_F(Results, UnknownDtype) {
  const fs::path p = write_changed("dtype.json", [](json& j) { j["entries"][1]["dtype"] = "f8"; });
  expect_mentions(read_error(p), {p.string(), "entries[1]", "'dtype'", "f8"});
}

TEST_F(Results, BadBucketName) {
  for (const char* bad : {"l13_r10_a3", "l13_r10", "big", ""}) {
    const std::string name = fmt::format("bucket_{}.json", std::string(bad).size());
    json j = to_json(sample_table());
    j["entries"][0]["bucket"] = bad;
    const fs::path p = write_text(name, j.dump());
    expect_mentions(read_error(p), {p.string(), "entries[0]", "'bucket'"});
  }
}

TEST_F(Results, BadShapeAndBackend) {
  const fs::path p = write_changed("shape.json", [](json& j) { j["entries"][0]["shape"] = {1, 2, 3}; });
  expect_mentions(read_error(p), {p.string(), "entries[0]", "'shape'"});
  const fs::path q = write_changed("backend.json", [](json& j) { j["device"]["backend"] = "opencl"; });
  expect_mentions(read_error(q), {q.string(), "'backend'"});
  const fs::path r = write_changed("cc.json", [](json& j) { j["device"]["compute_capability"] = "nine"; });
  expect_mentions(read_error(r), {r.string(), "'compute_capability'", "nine"});
}

TEST_F(Results, NegativeTimeIsRejected) {
  const fs::path p = write_changed("negative.json", [](json& j) { j["entries"][0]["runner_up"]["iqr_us"] = -1.0; });
  expect_mentions(read_error(p), {p.string(), "entries[0].runner_up", "negative"});
}

// 1e400 does not fit in a double: nlohmann rejects it while parsing (number overflow), so the file
// is not valid JSON. 1e300 is a finite double and a valid value: the reader checks types and
// ranges, not plausibility, and keeps it exactly.
TEST_F(Results, HugeNumbers) {
  std::string text = to_json(sample_table()).dump(1);
  const std::string median = "\"median_us\": 12.5";
  const auto at = text.find(median);
  ASSERT_NE(at, std::string::npos);
  const fs::path p = write_text("1e400.json", std::string(text).replace(at, median.size(), "\"median_us\": 1e400"));
  expect_mentions(read_error(p), {p.string(), "not valid JSON", "1e400"});

  const fs::path q = write_text("1e300.json", std::string(text).replace(at, median.size(), "\"median_us\": 1e300"));
  EXPECT_EQ(read_table(q).entries[0].winner.median_us, 1e300);
}

// An integer field out of the range of its type is refused (nlohmann's get<int> would wrap 2^40 to 0).
TEST_F(Results, IntegerOutOfRangeIsRejected) {
  const fs::path p = write_changed("int.json", [](json& j) { j["device"]["sm_count"] = 1LL << 40; });
  expect_mentions(read_error(p), {p.string(), "'sm_count'"});
  const fs::path q = write_changed("schema.json", [](json& j) { j["schema"] = (1LL << 32) + 1; });
  expect_mentions(read_error(q), {q.string(), "'schema'"});
}

// Numbers are read strictly: what a loose reader would turn into another value is refused.
TEST_F(Results, ShapesAreIntegersInRangeAndValidProblemsOfTheirBucket) {
  const fs::path huge = write_changed("huge.json", [](json& j) { j["entries"][0]["shape"][0] = 18446744073709551615ULL; });
  expect_mentions(read_error(huge), {huge.string(), "entries[0]", "'shape'", "18446744073709551615", "out of range"});
  const fs::path half = write_changed("half.json", [](json& j) { j["entries"][0]["shape"][2] = 8192.5; });
  expect_mentions(read_error(half), {half.string(), "'shape': L", "must be an integer", "8192.5"});
  const fs::path whole = write_changed("float.json", [](json& j) { j["entries"][0]["shape"][2] = 8192.0; });
  expect_mentions(read_error(whole), {whole.string(), "must be an integer"});
  const fs::path bytes = write_changed("bytes.json", [](json& j) {
    j["entries"][0]["shape"] = {1LL << 40, 1LL << 40, 8192, 3, 5};  // 2^93 elements
  });
  expect_mentions(read_error(bytes), {bytes.string(), "overflows 64 bits"});
  const fs::path ol = write_changed("ol.json", [](json& j) { j["entries"][0]["shape"] = {4, 256, 8192, -9000, 5}; });
  expect_mentions(read_error(ol), {ol.string(), "is negative"});
  const fs::path elsewhere = write_changed("bucket.json", [](json& j) { j["entries"][0]["shape"] = {4, 256, 100, 3, 5}; });
  expect_mentions(read_error(elsewhere), {elsewhere.string(), "lies in bucket l6_r10_a4", "not in the entry's bucket l13_r10_a4"});
  const fs::path sm = write_changed("sm.json", [](json& j) { j["device"]["sm_count"] = 132.5; });
  expect_mentions(read_error(sm), {sm.string(), "'sm_count'", "must be an integer"});
  const fs::path cc = write_changed("cc_tail.json", [](json& j) { j["device"]["compute_capability"] = "9.0abc"; });
  expect_mentions(read_error(cc), {cc.string(), "'compute_capability'"});
  const fs::path flag = write_changed("complete.json", [](json& j) { j["complete"] = 1; });
  expect_mentions(read_error(flag), {flag.string(), "'complete'", "true or false"});
}

// An entry's "ranked" (what the dispatcher's vote weighs) is optional, and strict when present;
// "exact" likewise.
TEST_F(Results, RankedAndExactAreReadStrictly) {
  const std::string w = sample_table().entries[0].winner.id;
  const auto one = [](const std::string& id, double ratio) { return json{{"id", id}, {"ratio", ratio}}; };
  const auto with_ranked = [&](const char* name, const json& ranked) {
    json j = to_json(sample_table());
    j["entries"][0]["ranked"] = ranked;
    return write_text(name, j.dump(1));
  };
  const fs::path good = with_ranked("ranked.json", json::array({one(w, 1), one("b", 1.25)}));
  EXPECT_EQ(read_table(good).entries[0].ranked, (std::vector<ranked_candidate>{{w, 1}, {"b", 1.25}}));
  const fs::path below = with_ranked("below.json", json::array({one(w, 1), one("b", 0.9)}));
  expect_mentions(read_error(below), {below.string(), "entries[0].ranked[1]", "'ratio'", "below 1"});
  const fs::path first = with_ranked("first.json", json::array({one("b", 1)}));
  expect_mentions(read_error(first), {first.string(), "entries[0].ranked[0]", "must be the winner"});
  const fs::path order = with_ranked("order.json", json::array({one(w, 1), one("b", 1.3), one("c", 1.2)}));
  expect_mentions(read_error(order), {order.string(), "entries[0].ranked[2]", "fastest first"});
  const fs::path twice = with_ranked("twice.json", json::array({one(w, 1), one("b", 1.3), one("b", 1.4)}));
  expect_mentions(read_error(twice), {twice.string(), "entries[0].ranked[2]", "listed twice"});
  // Longer than this build ranks (a later padtune's table): read, the first ranked_limit kept, every
  // one checked.
  json many = json::array({one(w, 1)});
  for (std::size_t k = 0; k < ranked_limit; ++k) many.push_back(one(fmt::format("c{}", k), 1.5 + 0.01 * double(k)));
  const std::vector<ranked_candidate> kept = read_table(with_ranked("many.json", many)).entries[0].ranked;
  ASSERT_EQ(kept.size(), ranked_limit);
  EXPECT_EQ(kept.back(), (ranked_candidate{fmt::format("c{}", ranked_limit - 2), 1.5 + 0.01 * double(ranked_limit - 2)}));
  many.push_back(one("c0", 2));
  const fs::path late_twice = with_ranked("late_twice.json", many);
  expect_mentions(read_error(late_twice), {late_twice.string(), fmt::format("entries[0].ranked[{}]", ranked_limit + 1), "listed twice"});
  const fs::path object = with_ranked("object.json", json{{"id", w}});
  expect_mentions(read_error(object), {object.string(), "entries[0].ranked"});
  const fs::path no_id = with_ranked("no_id.json", json::array({json{{"ratio", 1}}}));
  expect_mentions(read_error(no_id), {no_id.string(), "entries[0].ranked[0]", "'id' is missing"});
  const fs::path exact = write_changed("exact.json", [](json& j) { j["entries"][0]["exact"] = "yes"; });
  expect_mentions(read_error(exact), {exact.string(), "'exact'", "true or false"});
}

TEST_F(Results, AFolderOrAFifoIsNoTable) {
  fs::create_directories(dir / "folder.json");
  expect_mentions(read_error(dir / "folder.json"), {"folder.json: is a folder, not a file"});
  const fs::path fifo = dir / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_mentions(read_error(fifo), {"fifo.json: is not a regular file"});  // read at once, never blocking
}

TEST_F(Results, NaNIsNotAllowed) {
  // JSON has no NaN: the literal is a parse error.
  std::string text = to_json(sample_table()).dump(1);
  const std::string gbps = "\"gbps\": 1342.0";
  const auto at = text.find(gbps);
  ASSERT_NE(at, std::string::npos);
  const fs::path p = write_text("nan.json", text.replace(at, gbps.size(), "\"gbps\": NaN"));
  expect_mentions(read_error(p), {p.string(), "not valid JSON"});

  // A NaN or an infinity in memory is refused at writing, naming the field, and no file appears.
  results_table t = sample_table();
  t.entries[0].winner.median_us = std::numeric_limits<double>::quiet_NaN();
  const fs::path q = dir / "nan_written.json";
  try {
    write_table(t, q);
    ADD_FAILURE() << "a NaN median was written";
  } catch (const results_error& e) {
    EXPECT_NE(std::string(e.what()).find("median_us"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(q));
  t = sample_table();
  t.entries[0].margin = std::numeric_limits<double>::infinity();
  EXPECT_THROW(write_table(t, dir / "inf_written.json"), results_error);
}

// A deeply nested document is refused while parsing, naming the file: nothing recursive (copies,
// dumps) ever sees it.
TEST_F(Results, DeepNestingDoesNotCrash) {
  constexpr std::size_t depth = 100000;
  const fs::path p = write_text("deep.json", std::string(depth, '[') + std::string(depth, ']'));
  expect_mentions(read_error(p), {p.string(), "nested deeper than"});
  const fs::path q = write_text("deep_open.json", std::string(depth, '['));
  expect_mentions(read_error(q), {q.string(), "nested deeper than"});
  std::string objects;
  for (std::size_t i = 0; i < depth; ++i) objects += "{\"a\":";
  const fs::path r = write_text("deep_object.json", objects + "1" + std::string(depth, '}'));
  expect_mentions(read_error(r), {r.string(), "nested deeper than"});
}

// The same depth inside a field: json copies and dumps are recursive, so this would overflow the
// stack if the parser let it through.
TEST_F(Results, DeepNestingInsideAFieldDoesNotCrash) {
  constexpr std::size_t depth = 100000;
  for (const char* field : {"schema", "settings"}) {
    std::string text = to_json(sample_table()).dump();
    const std::string key = fmt::format("\"{}\":", field);
    const auto at = text.find(key);
    ASSERT_NE(at, std::string::npos);
    const auto end = text[at + key.size()] == '{' ? text.find('}', at) + 1 : text.find_first_of(",}", at);
    text.replace(at + key.size(), end - at - key.size(), std::string(depth, '[') + std::string(depth, ']'));
    const fs::path p = write_text(fmt::format("deep_{}.json", field), text);
    EXPECT_EXIT(
        {
          try {
            read_table(p);
          } catch (const results_error&) {
          }
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "");
  }
}

TEST_F(Results, WriteFileAtomicLeavesNoTemporaryFileBehind) {
  const fs::path p = dir / "sub" / "table.json";  // the folder is created
  write_output(p, "first");
  write_output(p, "second, longer than the first");
  std::ifstream in(p);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "second, longer than the first");
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(p.parent_path())) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"table.json"});
}

TEST_F(Results, WriteFileAtomicFailsWithTheFileNamed) {
  // The target is a folder that is not empty: refused before anything is written.
  const fs::path p = dir / "taken";
  fs::create_directories(p / "inside");
  try {
    write_output(p, "text");
    ADD_FAILURE() << "writing over a folder succeeded";
  } catch (const usage_error& e) {
    expect_mentions(e.what(), {p.string()});
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"taken"});
}

TEST(ResultsTime, UtcNowIsIso8601) {
  const std::string now = utc_now();
  ASSERT_EQ(now.size(), 20u) << now;
  EXPECT_EQ(now[4], '-');
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace padtune::tuner
