// The tuner end to end on the host backend: a table is written, a second run measures nothing new,
// a torn cache line is redone, a foreign cache is refused; and selection alone.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <set>

#include "padtune/store/errors.hpp"
#include "padtune/store/file_lock.hpp"
#include "quick_tune.hpp"
#include "padtune/search/tune.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::tuner {
namespace {

std::filesystem::path fresh_tune_dir(const std::string& name) {
  const auto d = std::filesystem::temp_directory_path() / ("padtune_tune_test_" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

tune_options quick_options(const std::filesystem::path& dir) { return quick_tune_options(dir); }

TEST(Tune, HostRunWritesATableAndResumesFromTheCache) {
  const auto dir = fresh_tune_dir("resume");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  std::size_t pairs = 0;  // shapes x (candidates + the memcpy floor), per dtype
  for (dtype t : o.dtypes) pairs += o.sizes.size() * (candidates_for(t, o).size() + 1);
  EXPECT_EQ(pairs, 3u * (4 + 1) * 2);  // seed bo256, rowtile bo1024, flat bo1024 at widths 16 and 8
  EXPECT_EQ(first.measured, pairs);
  EXPECT_EQ(first.from_cache, 0u);
  EXPECT_EQ(first.failed, 0u);
  EXPECT_FALSE(first.interrupted);
  ASSERT_TRUE(std::filesystem::exists(first.table_path));
  EXPECT_EQ(first.table_path.filename(), "host-emulation.json");
  const results_table t = read_table(first.table_path);
  EXPECT_TRUE(t.complete);
  EXPECT_EQ(t.device.backend, "host");
  // Three shapes, three buckets per dtype (the two long ones differ in alignment).
  EXPECT_EQ(t.entries.size(), 6u);
  for (const table_entry& e : t.entries) {
    EXPECT_NE(find_instantiation(e.winner.id), nullptr) << e.winner.id;
    EXPECT_GT(e.winner.median_us, 0);
    EXPECT_GT(e.winner.ratio_to_memcpy, 0);
    EXPECT_TRUE(e.runner_up.has_value());
    EXPECT_FALSE(e.exact);
  }

  // Where the time went: every fresh measurement took at least min_samples, and the phases fit
  // inside the run's wall time.
  const tune_phases& p = first.phases;
  EXPECT_GE(p.samples, first.measured * std::size_t(o.measure.rule.min_samples));
  EXPECT_GT(p.timing, 0);
  EXPECT_GT(p.verify, 0);
  EXPECT_GT(p.workspaces, 0);
  EXPECT_GT(p.selection, 0);
  EXPECT_EQ(p.waiting, 0);  // no team
  EXPECT_LE(p.workspaces + p.verify + p.timing + p.selection, first.seconds);
  EXPECT_NE(phases_text(p).find(std::to_string(p.samples) + " samples"), std::string::npos) << phases_text(p);

  const tune_report second = run_tune(o, nullptr);
  EXPECT_EQ(second.measured, 0u);
  EXPECT_EQ(second.from_cache, pairs);
  EXPECT_EQ(second.phases.samples, 0u);
  EXPECT_EQ(second.phases.timing, 0);
}

TEST(Tune, ATornLastLineIsRedoneAndTheRestKept) {
  const auto dir = fresh_tune_dir("torn");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  {  // a kill in the middle of a write leaves half a line
    std::ofstream(first.cache_path, std::ios::app) << "{\"id\": \"constant_pad1d_backward__f32__flat";
  }
  const tune_report second = run_tune(o, nullptr);
  EXPECT_EQ(second.measured, 0u);
  EXPECT_EQ(second.from_cache, first.measured);
}

// A cache whose last line is whole but has no newline (an editor, a copy cut at a line's end) is
// appended to on a line of its own: glued on, the next measurement made both lines unreadable, and
// after a header alone the whole cache was refused.
TEST(Tune, ACacheWithoutItsLastNewlineIsAppendedToOnANewLine) {
  const auto dir = fresh_tune_dir("open_line");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  const tune_report first = run_tune(o, nullptr);
  const auto drop_last_newline = [&] {
    std::string text = read_input_file(first.cache_path);
    ASSERT_EQ(text.back(), '\n');
    text.pop_back();
    std::ofstream(first.cache_path, std::ios::trunc) << text;
  };
  drop_last_newline();
  o.dtypes = {dtype::f32, dtype::bf16};  // the f32 lines are reused, the bf16 ones appended
  const tune_report second = run_tune(o, nullptr);
  EXPECT_EQ(second.from_cache, first.measured);
  const tune_report third = run_tune(o, nullptr);
  EXPECT_EQ(third.measured, 0u);
  EXPECT_EQ(third.from_cache, first.measured + second.measured);
  EXPECT_FALSE(std::filesystem::exists(first.cache_path.string() + ".rejected"));
  {  // a header alone, without its newline
    std::ifstream in(first.cache_path);
    std::string header;
    std::getline(in, header);
    in.close();
    std::ofstream(first.cache_path, std::ios::trunc) << header;
  }
  const tune_report after_header = run_tune(o, nullptr);
  EXPECT_EQ(after_header.measured, third.from_cache);
  EXPECT_EQ(run_tune(o, nullptr).from_cache, third.from_cache);  // read back whole
}

TEST(Tune, AForeignCacheIsRefused) {
  const auto dir = fresh_tune_dir("foreign");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  std::string text;
  {
    std::ifstream in(first.cache_path);
    std::getline(in, text);
  }
  auto refused_with = [&](const std::string& header, const std::string& needle) {
    std::ofstream(first.cache_path, std::ios::trunc) << header << "\n";
    try {
      run_tune(o, nullptr);
      ADD_FAILURE() << "a foreign cache was accepted: " << header;
    } catch (const results_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(first.cache_path.string()), std::string::npos) << e.what();
    }
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string h = text;
    const auto at = h.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return h.replace(at, from.size(), to);
  };
  refused_with(replaced("\"harness_version\":\"0.1.0\"", "\"harness_version\":\"9.9.9\""), "made by padtune 9.9.9");
  refused_with(replaced("\"name\":\"host emulation", "\"name\":\"NVIDIA H200 (not this"), "measured on 'NVIDIA H200");
  refused_with(replaced(std::string("\"kernel_sources\":\"") + kernel_sources_hash + "\"", "\"kernel_sources\":\"0123456789abcdef\""),
               "kernels/device changed");
  refused_with("{\"something\": 1}", "not a padtune measurement cache");
  refused_with("not json", "not a padtune cache header");
}

// Two caches joined into one file (probe A61: a host cache with an H200 cache after it): the second
// header is no corrupt line to set aside, with the other device's measurements adopted after it.
TEST(Tune, ACacheWithASecondHeaderOfAnotherDeviceIsRefused) {
  const auto dir = fresh_tune_dir("second_header");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  std::vector<std::string> lines;
  {
    std::ifstream in(first.cache_path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  std::string foreign = lines[0];
  const std::string name = "\"name\":\"host emulation";
  ASSERT_NE(foreign.find(name), std::string::npos) << foreign;
  foreign.replace(foreign.find(name), name.size(), "\"name\":\"NVIDIA H200 (joined");
  auto write = [&](const std::string& second_header) {
    std::ofstream out(first.cache_path, std::ios::trunc);
    out << lines[0] << "\n" << lines[1] << "\n" << second_header << "\n";
    for (std::size_t i = 2; i < lines.size(); ++i) out << lines[i] << "\n";
  };
  write(foreign);
  const std::string joined = read_input_file(first.cache_path);
  try {
    run_tune(o, nullptr);
    ADD_FAILURE() << "a cache with a second header of another device was used";
  } catch (const results_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(first.cache_path.string() + ":3"), std::string::npos) << what;
    EXPECT_NE(what.find("NVIDIA H200 (joined"), std::string::npos) << what;
    EXPECT_NE(what.find("host emulation"), std::string::npos) << what;
  }
  EXPECT_EQ(read_input_file(first.cache_path), joined);  // nothing written, nothing set aside
  EXPECT_FALSE(std::filesystem::exists(first.cache_path.string() + ".rejected"));
  write(lines[0]);  // the same device's header again: two caches of this device, used as one
  const tune_report again = run_tune(o, nullptr);
  EXPECT_EQ(again.measured, 0u);
  EXPECT_FALSE(std::filesystem::exists(first.cache_path.string() + ".rejected"));
}

TEST(Tune, ACacheThatPredatesTheKernelHashIsUsed) {
  const auto dir = fresh_tune_dir("legacy");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  std::vector<std::string> lines;
  {
    std::ifstream in(first.cache_path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  const std::string field = std::string("\"kernel_sources\":\"") + kernel_sources_hash + "\",";
  const auto at = lines[0].find(field);
  ASSERT_NE(at, std::string::npos) << lines[0];
  lines[0].erase(at, field.size());
  {
    std::ofstream out(first.cache_path, std::ios::trunc);
    for (const std::string& l : lines) out << l << "\n";
  }
  const tune_report second = run_tune(o, nullptr);
  EXPECT_EQ(second.measured, 0u);
  EXPECT_EQ(second.from_cache, first.measured);
}

TEST(Tune, AnInterruptedRunWritesAPartialTable) {
  const auto dir = fresh_tune_dir("interrupted");
  tune_options o = quick_options(dir);
  std::atomic<bool> stop{false};
  o.interrupted = &stop;
  int calls = 0;  // SIGINT after a few measurements
  const tune_report r = run_tune(o, [&](std::size_t, std::size_t, double, const std::string&) {
    if (++calls == 3) stop = true;
  });
  EXPECT_TRUE(r.interrupted);
  EXPECT_TRUE(r.wrote_table);
  EXPECT_GT(r.measured, 0u);
  EXPECT_FALSE(read_table(r.table_path).complete);
}

// A stop in the middle of a shape leaves that shape's entry as it was: an entry made of the few
// candidates measured before the stop would replace a good one (a winner 2x slower, seen).
TEST(Tune, AShapeCutShortByAStopKeepsItsEntryFromTheTableBefore) {
  const auto dir = fresh_tune_dir("interrupted_shape");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.exhaustive = true;  // every candidate in full, each told as it is done
  const tune_report complete = run_tune(o, nullptr);
  const results_table before = read_table(complete.table_path);
  ASSERT_EQ(before.entries.size(), o.sizes.size());
  o.cache_path = dir / "again.cache.jsonl";  // everything measured anew
  std::atomic<bool> stop{false};
  o.interrupted = &stop;
  std::size_t told = 0;
  const tune_report r = run_tune(o, [&](std::size_t, std::size_t, double, const std::string& what) {
    if (what.find("__") != std::string::npos && ++told == 1) stop = true;  // after the first shape's first candidate
  });
  ASSERT_TRUE(r.interrupted);
  ASSERT_GT(r.measured, 1u);
  ASSERT_LT(r.measured, candidates_for(dtype::f32, o).size() + 1);  // the first shape was not finished
  const results_table after = read_table(r.table_path);
  EXPECT_FALSE(after.complete);
  ASSERT_EQ(after.entries.size(), before.entries.size());
  for (std::size_t k = 0; k < before.entries.size(); ++k) {
    EXPECT_TRUE(same_place(after.entries[k], before.entries[k]));
    EXPECT_EQ(after.entries[k].winner.id, before.entries[k].winner.id);
    EXPECT_EQ(after.entries[k].winner.median_us, before.entries[k].winner.median_us);  // the old entry, not a new one
  }
  // The stopped shape's measurements are in the cache: the resumed run measures only the rest.
  o.interrupted = nullptr;
  const tune_report resumed = run_tune(o, nullptr);
  EXPECT_EQ(resumed.from_cache, r.measured);
  EXPECT_TRUE(read_table(resumed.table_path).complete);
}

// SIGINT while an isolated worker opens the next shape's workspace (a large one: the opening takes
// long enough for the stop to fall in it) ends the run with nothing recorded for that shape. Once
// it was recorded as launch_failed for every candidate, which the resumed run redid (CI: "expected
// 106 from the cache").
TEST(Tune, AnInterruptWhileAWorkerOpensAWorkspaceRecordsNoFailure) {
  const auto dir = fresh_tune_dir("interrupted_open");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes = {{2, 4, 8, 2, 3}, {1, 64, 1 << 18, 1, 1}};  // then 64 MB of dy to fill in the worker
  o.worker_command = {PADTUNE_FAULT_CLI, "__worker", "--backend", "host"};
  std::atomic<bool> stop{false};
  o.interrupted = &stop;
  std::thread stopper;
  const tune_report r = run_tune(o, [&](std::size_t, std::size_t, double, const std::string& what) {
    if (what.find("(2,4,8,2,3): done") != std::string::npos)
      stopper = std::thread([&] { std::this_thread::sleep_for(std::chrono::milliseconds(20)), stop = true; });
  });
  ASSERT_TRUE(stopper.joinable()) << "the first shape never finished";
  stopper.join();
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(r.failed, 0u);
  std::ifstream cache(r.cache_path);
  std::size_t records = 0;
  for (std::string line; std::getline(cache, line);) {
    EXPECT_EQ(line.find("launch_failed"), std::string::npos) << line.substr(0, 300);
    records += line.find("\"status\"") != std::string::npos;
  }
  EXPECT_EQ(records, r.measured);
}

TEST(Tune, AnInterruptedRunThatMeasuredNothingChangesNoFile) {
  const auto dir = fresh_tune_dir("interrupted_early");
  tune_options o = quick_options(dir);
  const tune_report complete = run_tune(o, nullptr);  // the table another run wrote
  const std::string before = read_input_file(complete.table_path);
  std::atomic<bool> stop{true};  // as if SIGINT came before the first measurement
  o.interrupted = &stop;
  o.dtypes = {dtype::f64};       // work the cache cannot answer for
  const tune_report r = run_tune(o, nullptr);
  EXPECT_TRUE(r.interrupted);
  EXPECT_FALSE(r.wrote_table);
  EXPECT_EQ(r.measured, 0u);
  EXPECT_EQ(read_input_file(complete.table_path), before);  // not marked partial, not rewritten
}

TEST(Tune, AWaitForAnotherRunsLockEndsOnInterruptAndWritesNothing) {
  const auto dir = fresh_tune_dir("lock_wait");
  tune_options o = quick_options(dir);
  const tune_report complete = run_tune(o, nullptr);
  const std::string before = read_input_file(complete.table_path);
  const file_lock other(lock_path_of(std::filesystem::canonical(complete.cache_path)));  // another run holds the cache
  std::atomic<bool> stop{false};
  o.interrupted = &stop;
  bool waited = false;
  try {
    run_tune(o, [&](std::size_t, std::size_t, double, const std::string& what) {
      if (what.rfind("waiting for another padtune", 0) == 0) waited = true, stop = true;  // SIGINT while it waits
    });
    ADD_FAILURE() << "the run did not wait for the lock";
  } catch (const interrupted_error& e) {
    EXPECT_NE(std::string(e.what()).find("nothing was written"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(waited);
  EXPECT_EQ(read_input_file(complete.table_path), before);
}

// Two runs of other caches into one table: the table is read and replaced under its own lock, so
// the later run keeps what the earlier wrote while it waited (probe A16 lost an entry in 1 of 5).
TEST(Tune, TwoRunsOfOtherCachesIntoOneTableTakeTurnsOnTheTablesLock) {
  const auto dir = fresh_tune_dir("table_lock");
  tune_options other = quick_options(dir);
  other.dtypes = {dtype::f32};
  other.sizes = {{2, 3, 11, 2, 1}};
  other.exact_entries = true;
  other.table_path = dir / "T.json";
  other.cache_path = dir / "b.cache.jsonl";
  run_tune(other, nullptr);
  const std::string theirs = read_input_file(other.table_path);  // what the other run writes
  std::filesystem::remove(other.table_path);

  tune_options o = other;
  o.sizes = {{2, 3, 10, 2, 1}};
  o.cache_path = dir / "a.cache.jsonl";
  auto held = std::make_unique<file_lock>(lock_path_of(std::filesystem::canonical(dir) / "T.json"));
  bool waited = false;
  const tune_report r = run_tune(o, [&](std::size_t, std::size_t, double, const std::string& what) {
    if (!held || what.rfind("waiting for another padtune", 0) != 0) return;
    waited = what.find("T.json") != std::string::npos;
    std::ofstream(other.table_path, std::ios::trunc) << theirs;  // the other run writes, then lets go
    held.reset();
  });
  EXPECT_TRUE(waited) << "the run did not wait for the table's lock";
  std::set<long long> lengths;
  for (const table_entry& e : read_table(r.table_path).entries) lengths.insert(e.shape.L);
  EXPECT_EQ(lengths, (std::set<long long>{10, 11}));
}

TEST(Tune, CorruptLinesOfTheCacheAreSetAsideAndTheRunGoesOn) {
  const auto dir = fresh_tune_dir("corrupt_lines");
  const tune_options o = quick_options(dir);
  const tune_report first = run_tune(o, nullptr);
  std::vector<std::string> lines;
  {
    std::ifstream in(first.cache_path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 5u);
  lines[3] = "{\"id\": 3, \"shape\": [18446744073709551615, 1, 1, 0, 0]}";  // not a measurement
  lines[4] = "\x01\x02 binary junk";
  {
    std::ofstream out(first.cache_path, std::ios::trunc);
    for (const std::string& l : lines) out << l << "\n";
  }
  std::vector<std::string> notes;
  const tune_report second = run_tune(o, [&](std::size_t, std::size_t, double, const std::string& what) {
    if (what.rfind("note: ", 0) == 0) notes.push_back(what);
  });
  EXPECT_EQ(second.measured, 2u);  // the two lines set aside, measured again
  EXPECT_EQ(second.from_cache, first.measured - 2);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.front().find("2 unreadable line(s)"), std::string::npos) << notes.front();
  const std::string aside = read_input_file(first.cache_path.string() + ".rejected");
  EXPECT_NE(aside.find("# line 4: "), std::string::npos) << aside;
  EXPECT_NE(aside.find("# line 5: "), std::string::npos) << aside;
  EXPECT_NE(aside.find("binary junk"), std::string::npos) << aside;
  // The cache holds readable lines only now: a third run measures nothing and sets nothing aside.
  const tune_report third = run_tune(o, nullptr);
  EXPECT_EQ(third.measured, 0u);
  EXPECT_EQ(read_input_file(first.cache_path.string() + ".rejected"), aside);
}

TEST(Tune, CroppingPadsTimeTheFloorWithinBounds) {
  // dy is far shorter than dx here: the memcpy floor must copy dx's bytes from somewhere that has them.
  const auto dir = fresh_tune_dir("crop");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes = {{1, 1, 1 << 20, -(1 << 19) + 100, -(1 << 19)}};
  const tune_report r = run_tune(o, nullptr);
  EXPECT_EQ(r.failed, 0u);
  ASSERT_EQ(read_table(r.table_path).entries.size(), 1u);
}

TEST(Tune, BudgetedSearchFillsEntriesOfSeveralShapesAndAnExhaustiveRunRedoesPruned) {
  const auto dir = fresh_tune_dir("budget");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.filter = "";  // every f32 candidate, so that halving prunes
  o.sizes = {{2, 8, 4096, 3, 5}, {2, 8, 5000, 3, 5}};  // one bucket, two shapes: an entry each
  o.budget_seconds = 1;
  const tune_report budgeted = run_tune(o, nullptr);
  EXPECT_GT(budgeted.pruned, 0u);
  ASSERT_EQ(read_table(budgeted.table_path).entries.size(), 2u);
  o.budget_seconds.reset();
  o.exhaustive = true;
  const tune_report exhaustive = run_tune(o, nullptr);
  EXPECT_EQ(exhaustive.measured, budgeted.pruned);  // the pruned are measured in full now
  EXPECT_EQ(exhaustive.pruned, 0u);
  EXPECT_EQ(read_table(exhaustive.table_path).entries.size(), 2u);
  EXPECT_EQ(read_table(exhaustive.table_path).settings.value("search", ""), "exhaustive");
}

TEST(Tune, TheDefaultSearchScreensAndTimesOnlyTheCloseOnesInFull) {
  const auto dir = fresh_tune_dir("screen");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.filter = "__(seed|rowtile|flat)__";  // many candidates, some far apart (the seed zeroes dx first)
  o.sizes = {{2, 8, 4096, 3, 5}};
  const std::size_t candidates = candidates_for(dtype::f32, o).size();
  ASSERT_GT(candidates, 6u);
  const tune_report screened = run_tune(o, nullptr);
  EXPECT_EQ(screened.measured, candidates + 1);  // each candidate once, ok or pruned, and the floor
  EXPECT_GE(screened.pruned, candidates - 4);    // at most four timed in full
  EXPECT_EQ(screened.failed, 0u);
  const results_table t = read_table(screened.table_path);
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_NE(t.settings.value("search", "").find("screened"), std::string::npos) << t.settings.dump();
  // The winner is among the ones timed in full: a screened-out candidate only ranks below them.
  std::ifstream lines(screened.cache_path);
  std::string status;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.value("id", "") == t.entries[0].winner.id) status = j.value("status", "");
  }
  EXPECT_EQ(status, "ok");
  // A second run takes everything from the cache, the screened-out ones included.
  const tune_report again = run_tune(o, nullptr);
  EXPECT_EQ(again.measured, 0u);
  EXPECT_EQ(again.from_cache, candidates + 1);
}

TEST(Tune, SizesAddExactEntriesAndASweepKeepsThem) {
  const auto dir = fresh_tune_dir("exact");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes.clear();  // the host's small sweep: bucket entries
  const std::size_t buckets = read_table(run_tune(o, nullptr).table_path).entries.size();
  ASSERT_GT(buckets, 0u);
  o.sizes = {{2, 3, 3000, 1, 1}, {1, 6, 3000, 8, 0}};
  o.exact_entries = true;  // padtune tune --sizes
  run_tune(o, nullptr);
  o.sizes = {{6, 1, 3000, 8, 0}};  // the same rows, L and pads as the second: replaces its entry
  run_tune(o, nullptr);
  o.sizes.clear();
  o.exact_entries = false;
  const results_table t = read_table(run_tune(o, nullptr).table_path);  // a sweep again keeps them
  std::size_t exact = 0;
  for (const table_entry& e : t.entries)
    if (e.exact) {
      ++exact;
      EXPECT_TRUE(e.shape == (shape5{2, 3, 3000, 1, 1}) || e.shape == (shape5{6, 1, 3000, 8, 0})) << e.shape.B;
    }
  EXPECT_EQ(exact, 2u);
  EXPECT_EQ(t.entries.size(), buckets + 2);
}

TEST(Tune, DefaultCandidatesAreThePublishedContenders) {
  // What won or came second in the embedded tables measured exhaustively on the GPU (results/*.json).
  std::set<std::string> published;
  for (const results_table& t : embedded_results_tables())
    if (t.device.backend == "cuda" && t.settings.value("search", "") == "exhaustive") {
      for (const table_entry& e : t.entries) {
        if (e.type != dtype::f32) continue;
        published.insert(e.winner.id);
        if (e.runner_up) published.insert(e.runner_up->id);
      }
    }
  // The published H200 table is exhaustive (merged from exhaustive shards): what scripts/tune's
  // figure in the README rests on. A label that lost it (merge once wrote "selected from the merged
  // caches + exhaustive") made every candidate the default: 240 s instead of 109.
  bool gpu_table = false;
  for (const results_table& t : embedded_results_tables()) gpu_table |= t.device.backend == "cuda";
  ASSERT_TRUE(!gpu_table || !published.empty()) << "an embedded GPU table is not marked exhaustive";
  if (published.empty()) GTEST_SKIP() << "this build embeds no GPU table (results/*.json)";
  tune_options o;
  o.where = backend::cuda;
  const auto chosen = candidates_for(dtype::f32, o);
  ASSERT_FALSE(chosen.empty());
  for (const instantiation* i : chosen) EXPECT_TRUE(published.count(i->id)) << i->id;
  std::size_t all_f32 = 0;
  for (const instantiation& i : registry()) all_f32 += i.type == dtype::f32;
  EXPECT_LT(chosen.size(), all_f32);
  o.exhaustive = true;
  EXPECT_EQ(candidates_for(dtype::f32, o).size(), all_f32);
  o.exhaustive = false;
  o.variants = {"seed"};  // named: taken though it never wins
  EXPECT_FALSE(candidates_for(dtype::f32, o).empty());
  for (const instantiation* i : candidates_for(dtype::f32, o)) EXPECT_EQ(i->variant, "seed");
  o.variants.clear();
  o.where = backend::host;  // no exhaustive table of the host emulation is embedded: every candidate
  bool host_table = false;
  for (const results_table& t : embedded_results_tables()) host_table |= t.device.backend == "host";
  if (!host_table) {
    EXPECT_EQ(candidates_for(dtype::f32, o).size(), all_f32);
  }
}

TEST(Tune, ARunReplacesTheEntriesOfTheShapesItMeasuresAndKeepsTheOthersOfTheirBucket) {
  const auto dir = fresh_tune_dir("cover");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  o.sizes = {{2, 8, 4096, 3, 5}, {2, 8, 5000, 3, 5}};  // one bucket, l12_r4_a4: two entries
  run_tune(o, nullptr);
  ASSERT_EQ(bucket_of(16, 4096, 3, dtype::f32), bucket_of(16, 5000, 3, dtype::f32));
  o.sizes = {{2, 8, 5000, 3, 5}};  // one of them again (a shard, a stopped run): the other stays
  o.cache_path = dir / "other.cache.jsonl";  // measured anew, not from the cache
  const results_table again = read_table(run_tune(o, nullptr).table_path);
  ASSERT_EQ(again.entries.size(), 2u);
  EXPECT_EQ(again.entries[0].shape, (shape5{2, 8, 4096, 3, 5}));
  EXPECT_EQ(again.entries[1].shape, (shape5{2, 8, 5000, 3, 5}));
  o.sizes = {{2, 8, 300, 3, 5}};  // another bucket: both stay
  const results_table t = read_table(run_tune(o, nullptr).table_path);
  ASSERT_EQ(t.entries.size(), 3u);
  EXPECT_EQ(t.entries[0].shape, (shape5{2, 8, 300, 3, 5}));
}

TEST(Tune, ARunOverOneDtypeKeepsTheOthersInTheTable) {
  const auto dir = fresh_tune_dir("keep");
  tune_options o = quick_options(dir);
  o.dtypes = {dtype::f32};
  run_tune(o, nullptr);
  o.dtypes = {dtype::bf16};
  const tune_report r = run_tune(o, nullptr);
  std::set<dtype> types;
  for (const table_entry& e : read_table(r.table_path).entries) types.insert(e.type);
  EXPECT_EQ(types, (std::set<dtype>{dtype::f32, dtype::bf16}));
}

measurement ok(const std::string& id, const shape5& s, double median) {
  measurement m;
  m.id = id, m.type = dtype::f32, m.shape = s, m.status = "ok";
  m.t.cold.median = median;
  return m;
}

TEST(Selection, EveryMeasuredShapeRanksOnItsOwnThoughTwoShareABucket) {
  const shape5 a{1, 1, 4096, 4, 0}, b{1, 1, 5000, 4, 0}, b_split{2, 1, 2500, 4, 0};  // one bucket: l12_r0_a16
  ASSERT_EQ(bucket_of(1, 4096, 4, dtype::f32), bucket_of(1, 5000, 4, dtype::f32));
  const auto ranked = rank_shapes({ok("x", a, 10), ok("x", b, 40), ok("y", a, 20), ok("y", b, 10), ok("z", a, 10)});
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].shape, a);  // by bucket, then rows, L and pads
  EXPECT_EQ(ranked[1].shape, b);
  EXPECT_EQ(ranked[0].where.name(), "l12_r0_a16");
  EXPECT_EQ(ranked[1].where, ranked[0].where);
  // a: x and z tie at 10 (by id), y 2x; b: y first, x 4x, z not measured there.
  ASSERT_EQ(ranked[0].ranked.size(), 3u);
  EXPECT_EQ(ranked[0].ranked[0], (std::pair<std::string, double>{"x", 1.0}));
  EXPECT_EQ(ranked[0].ranked[1], (std::pair<std::string, double>{"z", 1.0}));
  EXPECT_EQ(ranked[0].ranked[2], (std::pair<std::string, double>{"y", 2.0}));
  ASSERT_EQ(ranked[1].ranked.size(), 2u);
  EXPECT_EQ(ranked[1].ranked[0], (std::pair<std::string, double>{"y", 1.0}));
  EXPECT_EQ(ranked[1].ranked[1], (std::pair<std::string, double>{"x", 4.0}));
  // One problem whose rows split into B and C otherwise (2 x 1, 1 x 2) is one shape.
  const auto split = rank_shapes({ok("x", b_split, 10), ok("y", shape5{1, 2, 2500, 4, 0}, 5)});
  ASSERT_EQ(split.size(), 1u);
  EXPECT_EQ(split[0].ranked[0].first, "y");
}

TEST(Selection, TwoShapesOfABucketMakeTwoEntriesEachAtItsShape) {
  const shape5 a{1, 1, 4096, 4, 0}, b{1, 1, 5000, 4, 0};
  std::vector<std::string> ids;
  for (const instantiation& i : registry())
    if (i.type == dtype::f32 && ids.size() < 2) ids.push_back(i.id);
  ASSERT_EQ(ids.size(), 2u);
  // ids[0] wins a, ids[1] wins b: one entry for the bucket would have lost one of them.
  const std::vector<measurement> ms{ok(ids[0], a, 10), ok(ids[1], a, 12), ok(ids[0], b, 15), ok(ids[1], b, 11)};
  const std::vector<table_entry> entries = select_entries(ms, cached_timings(ms));
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].shape, a);
  EXPECT_EQ(entries[0].winner.id, ids[0]);
  EXPECT_EQ(entries[1].shape, b);
  EXPECT_EQ(entries[1].winner.id, ids[1]);
  EXPECT_EQ(entries[0].where, entries[1].where);
  EXPECT_FALSE(same_place(entries[0], entries[1]));
}

TEST(Selection, AnEntryOfOneProblemMeasuredUnderTwoSplitsStandsWhereItsWinnerWasMeasured) {
  // Two caches (merged, or --sizes files) may hold one problem as 1 x 2 and 2 x 1 rows: one entry,
  // at the split its winner was timed on, with that measurement's numbers and floor.
  std::vector<std::string> ids;
  for (const instantiation& i : registry())
    if (i.type == dtype::f32 && ids.size() < 2) ids.push_back(i.id);
  ASSERT_EQ(ids.size(), 2u);
  const shape5 first{2, 1, 2500, 4, 0}, second{1, 2, 2500, 4, 0};
  measurement floor = ok(std::string(memcpy_floor_id), second, 4);
  measurement pruned = ok(ids[1], first, 1);  // a lucky screen on the other split: pruned, so not ranked
  pruned.status = "pruned";
  const std::vector<measurement> ms{ok(ids[0], first, 10), ok(ids[1], second, 5), floor, pruned};
  const std::vector<table_entry> entries = select_entries(ms, cached_timings(ms));
  ASSERT_EQ(entries.size(), 1u);
  const table_entry& e = entries[0];
  EXPECT_EQ(e.shape, second);
  EXPECT_EQ(e.winner.id, ids[1]);
  EXPECT_EQ(e.winner.median_us, 5);
  EXPECT_EQ(e.winner.ratio_to_memcpy, 5.0 / 4);
}

TEST(Selection, EntriesRankTheirFastestForTheVote) {
  // ranked_limit + 2 f32 candidates on one shape, 10 us and up: the entry ranks the winner and the
  // next ranked_limit - 1.
  const shape5 s{1, 1, 4096, 4, 0};
  std::vector<measurement> ms;
  std::vector<std::string> ids;
  for (const instantiation& i : registry())
    if (i.type == dtype::f32 && ids.size() < ranked_limit + 2) ids.push_back(i.id);
  ASSERT_EQ(ids.size(), ranked_limit + 2);
  for (std::size_t k = 0; k < ids.size(); ++k) ms.push_back(ok(ids[k], s, 10.0 + double(k)));
  const std::vector<table_entry> entries = select_entries(ms, cached_timings(ms));
  ASSERT_EQ(entries.size(), 1u);
  const table_entry& e = entries[0];
  ASSERT_EQ(e.ranked.size(), ranked_limit);
  EXPECT_EQ(e.ranked[0], (ranked_candidate{e.winner.id, 1}));
  for (std::size_t k = 1; k < e.ranked.size(); ++k) {
    EXPECT_EQ(e.ranked[k].id, ids[k]);
    EXPECT_NEAR(e.ranked[k].ratio, (10.0 + double(k)) / 10.0, 1e-12);
  }
  // Written and read back whole.
  results_table t;
  t.entries = entries;
  EXPECT_EQ(parse_table(table_text(t), "t").entries[0].ranked, e.ranked);
}

TEST(Selection, TheBestRankedFinalistWithinNoiseWins) {
  const summary fast{100.0, 99.9, 100.1, 30}, close{100.5, 100.4, 100.6, 30}, slow{110.0, 109.9, 110.1, 30};
  EXPECT_EQ(pick_finalist({close, fast}), 0u);        // within 1%: the ranking's first
  EXPECT_EQ(pick_finalist({slow, fast}), 1u);         // 10% slower: the fastest
  EXPECT_EQ(pick_finalist({fast, close}), 0u);
  EXPECT_EQ(pick_finalist({slow, close, fast}), 1u);  // the best-ranked of those within noise
}

TEST(Selection, ANoisyFastestIsNoCoverForASlowerOne) {
  // P5 f32 in the re-tune at 31a4f45: flat bo4096 39.26 us with an IQR of 1.41 (200 samples),
  // staged bo2048 39.98 us, IQR 0.21. The samples' spread (3.6%) is not the medians' uncertainty
  // (0.5%): the fastest wins over a better-ranked one 1.8% slower.
  const summary noisy_fast{39.26, 38.6, 40.01, 200}, steady{39.98, 39.88, 40.09, 200};
  EXPECT_EQ(pick_finalist({steady, noisy_fast}), 1u);
  // With ten samples each the same medians are within their uncertainty: the ranking's first.
  const summary few_fast{39.26, 38.6, 40.01, 10}, few_steady{39.98, 39.88, 40.09, 10};
  EXPECT_EQ(pick_finalist({few_steady, few_fast}), 0u);
}

TEST(Tune, TheDefaultCandidateCountIsWhatTheDocsSay) {
  // docs/tuning.md: "N to M of the X to Y instantiations per dtype on CUDA" (the README's tune time
  // rests on it): the default set's and the registry's smallest and largest counts over the dtypes.
  std::ifstream in(std::string(PADTUNE_SOURCE_DIR) + "/docs/tuning.md");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string doc = std::regex_replace(text.str(), std::regex("\\s+"), " ");
  ASSERT_TRUE(std::regex_search(doc, m, std::regex("([0-9]+) to ([0-9]+) of the ([0-9]+) to ([0-9]+) instantiations per dtype on CUDA")))
      << "docs/tuning.md no longer states the default candidate count";
  std::size_t lo = SIZE_MAX, hi = 0, all_lo = SIZE_MAX, all_hi = 0;
  for (dtype t : all_dtypes) {
    tune_options o;
    o.where = backend::cuda;
    const std::size_t n = candidates_for(t, o).size();
    o.exhaustive = true;
    const std::size_t all = candidates_for(t, o).size();
    ASSERT_LT(n, all) << name_of(t) << ": no published exhaustive table of CUDA gives the default set";
    lo = std::min(lo, n), hi = std::max(hi, n), all_lo = std::min(all_lo, all), all_hi = std::max(all_hi, all);
  }
  EXPECT_EQ(m.str(1) + " " + m.str(2) + " " + m.str(3) + " " + m.str(4),
            fmt::format("{} {} {} {}", lo, hi, all_lo, all_hi));
}

}  // namespace
}  // namespace padtune::tuner
