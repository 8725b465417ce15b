// padtune merge: tables and caches of one device model combined; other models refused or kept
// apart; caches merged select the table that tuning over their union selects.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "padtune/select/merge.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/padtune.hpp"
#include "padtune/search/tune.hpp"

namespace padtune::tuner {
namespace {

namespace fs = std::filesystem;

const std::string rowtile = "constant_pad1d_backward__f32__rowtile__bo1024__t256__w16";
const std::string flat = "constant_pad1d_backward__f32__flat__bo1024__t256__w16";
const std::string seed = "constant_pad1d_backward__f32__seed__bo256__t256__w16";

fs::path fresh_merge_dir(const std::string& name) {
  const auto d = fs::temp_directory_path() / ("padtune_merge_test_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

device_fingerprint h200(const std::string& uuid = "GPU-a") {
  device_fingerprint d;
  d.name = "NVIDIA H200";
  d.cc_major = 9, d.sm_count = 132, d.l2_bytes = 62914560, d.memory_clock_khz = 2619000, d.bus_width_bits = 6144;
  d.driver_version = 13000, d.runtime_version = 13000, d.uuid = uuid;
  return d;
}

table_entry entry(const std::string& bucket_name, candidate_numbers winner, std::optional<candidate_numbers> runner_up, double margin) {
  table_entry e;
  e.type = dtype::f32;
  EXPECT_TRUE(parse_bucket(bucket_name, e.where)) << bucket_name;
  // A shape in that bucket: 2^r rows of 2^l, pad_left of `align` bytes (f32).
  e.shape = {1, 1ll << e.where.log2_rows, 1ll << e.where.log2_L, e.where.align / 4, 0};
  e.winner = std::move(winner);
  e.runner_up = std::move(runner_up);
  e.margin = margin;
  return e;
}

candidate_numbers numbers(const std::string& id, double median, double ratio) { return {id, median, 0.1, 100, ratio}; }

merge_input table_input(const std::string& path, const device_fingerprint& d, std::vector<table_entry> entries) {
  merge_input in;
  in.path = path;
  in.device = d;
  in.harness = harness_version;
  in.settings = {{"l2_cold", true}, {"backend", d.backend}};
  in.search = "exhaustive";
  in.entries = std::move(entries);
  return in;
}

TEST(MergeEntries, KeepsPerBucketTheWinnerWithTheLowestRatioAndTheBestOtherAsRunnerUp) {
  const std::vector<table_entry> a{entry("l12_r0_a16", numbers(rowtile, 10, 1.10), numbers(flat, 11, 1.21), 0.1),
                                   entry("l3_r0_a16", numbers(flat, 2, 1.5), numbers(seed, 2.2, 1.65), 0.1)};
  const std::vector<table_entry> b{entry("l12_r0_a16", numbers(flat, 9, 1.05), numbers(seed, 9.9, 1.3), 0.2),
                                   entry("l3_r0_a16", numbers(flat, 2.1, 1.6), numbers(rowtile, 2.15, 1.62), 0.03)};
  const std::vector<table_entry> m = merge_entries({a, b});
  ASSERT_EQ(m.size(), 2u);
  // l3 sorts first (log2 L = 3). Its winner is a's entry, whose own runner-up (1.65) is beaten by
  // rowtile's 1.62 from b; the winner's id is never its own runner-up.
  EXPECT_EQ(m[0].where.name(), "l3_r0_a16");
  EXPECT_EQ(m[0].winner.median_us, 2);
  ASSERT_TRUE(m[0].runner_up);
  EXPECT_EQ(m[0].runner_up->id, rowtile);
  EXPECT_NEAR(m[0].margin, 1.62 / 1.5 - 1, 1e-12);
  // l12: b's flat (1.05) beats a's rowtile (1.10), which is the best other candidate seen.
  EXPECT_EQ(m[1].winner.id, flat);
  EXPECT_EQ(m[1].winner.ratio_to_memcpy, 1.05);
  ASSERT_TRUE(m[1].runner_up);
  EXPECT_EQ(m[1].runner_up->id, rowtile);
  EXPECT_NEAR(m[1].margin, 1.10 / 1.05 - 1, 1e-12);
}

TEST(MergeEntries, ARunnerUpFromAnotherTableJoinsTheRankedListAtItsMargin) {
  // b wins with its own ranked list; a's winner (rowtile, 1.10 against 1.05) becomes the runner-up
  // and must be weighed by the vote at that margin, not as unranked.
  std::vector<table_entry> a{entry("l12_r0_a16", numbers(rowtile, 10, 1.10), numbers(flat, 11, 1.21), 0.1)};
  std::vector<table_entry> b{entry("l12_r0_a16", numbers(flat, 9, 1.05), numbers(seed, 9.9, 1.3), 0.2)};
  b[0].ranked = {{flat, 1}, {seed, 1.2}};
  const std::vector<table_entry> m = merge_entries({a, b});
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].ranked.size(), 3u);
  EXPECT_EQ(m[0].ranked[0], (ranked_candidate{flat, 1}));
  EXPECT_EQ(m[0].ranked[1].id, rowtile);
  EXPECT_NEAR(m[0].ranked[1].ratio, 1.10 / 1.05, 1e-12);
  EXPECT_EQ(m[0].ranked[2], (ranked_candidate{seed, 1.2}));
  // It reads back: in order, the winner first, no id twice.
  results_table t;
  t.entries = m;
  EXPECT_EQ(parse_table(table_text(t), "merged").entries[0].ranked, m[0].ranked);
}

TEST(MergeEntries, ExactEntriesMergeByTheirShapeAndApartFromTheBuckets) {
  table_entry exact = entry("l12_r0_a16", numbers(flat, 9, 1.0), std::nullopt, 0);
  exact.exact = true;
  table_entry same_shape = exact;  // B*C, L and pads alike: one shape
  same_shape.shape.B = 1, same_shape.shape.C = 1;
  same_shape.winner = numbers(rowtile, 8, 0.9);
  const std::vector<table_entry> a{entry("l12_r0_a16", numbers(rowtile, 10, 1.1), std::nullopt, 0), exact};
  const std::vector<table_entry> b{same_shape};
  const std::vector<table_entry> m = merge_entries({a, b});
  ASSERT_EQ(m.size(), 2u);  // the bucket's entry and one exact entry
  const auto e = std::find_if(m.begin(), m.end(), [](const table_entry& x) { return x.exact; });
  ASSERT_NE(e, m.end());
  EXPECT_EQ(e->winner.id, rowtile);  // the better of the two exact entries
  EXPECT_EQ(std::count_if(m.begin(), m.end(), [](const table_entry& x) { return !x.exact; }), 1);
}

TEST(MergeEntries, TheWinningEntryKeepsItsOwnRunnerUpAndMarginWhenNoneIsBetter) {
  const std::vector<table_entry> a{entry("l12_r0_a16", numbers(rowtile, 10, 1.0), numbers(flat, 10.2, 1.02), 0.015)};
  const std::vector<table_entry> b{entry("l12_r0_a16", numbers(rowtile, 10.5, 1.04), numbers(seed, 12, 1.2), 0.1)};
  const std::vector<table_entry> m = merge_entries({b, a});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].winner.ratio_to_memcpy, 1.0);
  EXPECT_EQ(m[0].runner_up->id, flat);
  EXPECT_EQ(m[0].margin, 0.015);  // measured side by side: kept, not recomputed
}

TEST(Merge, TablesOfOneModelOnTwoCardsMergeAndReadBackAndTheDispatcherUsesThem) {
  const auto dir = fresh_merge_dir("tables");
  device_fingerprint host = h200();
  host.backend = "host", host.name = "host emulation";
  const std::vector<merge_input> inputs{
      table_input("a.json", host, {entry("l12_r0_a16", numbers(rowtile, 10, 1.1), std::nullopt, 0)}),
      table_input("b.json", [&] { auto d = host; d.uuid = "GPU-b"; return d; }(),
                  {entry("l12_r0_a16", numbers(flat, 9, 1.0), std::nullopt, 0)})};
  const merge_result r = merge(inputs, false, "padtune merge a.json b.json");
  ASSERT_EQ(r.devices.size(), 1u);
  EXPECT_TRUE(r.warnings.empty());
  const results_table& t = r.devices[0].table;
  EXPECT_EQ(t.device.uuid, "GPU-a,GPU-b");
  EXPECT_EQ(t.settings["search"], "exhaustive");
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].winner.id, flat);
  EXPECT_EQ(t.entries[0].runner_up->id, rowtile);

  const fs::path path = dir / "merged.json";
  write_table(t, path);
  const results_table back = read_table(path);
  EXPECT_EQ(back.entries[0].winner.id, flat);
  set_results_path(path.string());
  const dispatch_choice ch = explain_dispatch(1, 1, 4096, 4, 0, dtype::f32, backend::host);
  set_results_path("");
  EXPECT_EQ(ch.table, path.string());
  EXPECT_EQ(ch.inst->id, flat);
}

TEST(Merge, DifferentModelsAreRefusedNamingBothOrKeptApartByDevice) {
  device_fingerprint h100 = h200("GPU-c");
  h100.name = "NVIDIA H100 80GB HBM3", h100.memory_clock_khz = 2619000 - 1;
  const std::vector<merge_input> inputs{table_input("a.json", h200(), {entry("l12_r0_a16", numbers(rowtile, 10, 1.1), std::nullopt, 0)}),
                                        table_input("b.json", h100, {entry("l12_r0_a16", numbers(flat, 9, 1.0), std::nullopt, 0)})};
  try {
    merge(inputs, false, "");
    ADD_FAILURE() << "two device models were merged";
  } catch (const results_error& e) {
    const std::string m = e.what();
    for (const char* needle : {"a.json", "b.json", "NVIDIA H200 (cuda", "NVIDIA H100 80GB HBM3 (cuda", "--by-device"})
      EXPECT_NE(m.find(needle), std::string::npos) << m;
  }
  const merge_result r = merge(inputs, true, "");
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.devices[0].table.device.slug(), "nvidia-h200");
  EXPECT_EQ(r.devices[1].table.device.slug(), "nvidia-h100-80gb-hbm3");
  EXPECT_EQ(r.devices[0].table.entries[0].winner.id, rowtile);
  EXPECT_EQ(r.devices[1].table.entries[0].winner.id, flat);
}

TEST(Merge, OtherDriversMergeWithAWarningOtherSettingsAreRefused) {
  device_fingerprint newer = h200("GPU-b");
  newer.driver_version = 13010;
  EXPECT_TRUE(newer.same_hardware(h200()));
  EXPECT_FALSE(newer.same_model(h200()));
  std::vector<merge_input> inputs{table_input("a.json", h200(), {}), table_input("b.json", newer, {})};
  const merge_result r = merge(inputs, false, "");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("driver 13010"), std::string::npos) << r.warnings[0];
  inputs[1].settings["l2_cold"] = false;
  EXPECT_THROW(merge(inputs, false, ""), results_error);
}

measurement measured(const std::string& id, const std::string& status, double median, double iqr, int samples) {
  measurement m;
  m.id = id, m.status = status, m.shape = {1, 1, 4096, 4, 0};
  m.t.cold = {median, median - iqr / 2, median + iqr / 2, samples};
  return m;
}

TEST(Merge, OfOneKeyMeasuredTwiceTheFailureOrThePreciserMeasurementIsKept) {
  const measurement noisy = measured(flat, "ok", 10, 1, 30), precise = measured(flat, "ok", 11, 0.1, 30);
  const measurement failed = measured(flat, "verify_failed", 0, 0, 0), pruned = measured(flat, "pruned", 9, 0, 3);
  EXPECT_EQ(&better_measurement(noisy, precise), &precise);
  EXPECT_EQ(&better_measurement(precise, noisy), &precise);
  EXPECT_EQ(&better_measurement(precise, failed), &failed);
  EXPECT_EQ(&better_measurement(pruned, noisy), &noisy);
  const measurement faulted = measured(flat, "fault", 0, 0, 0), hung = measured(flat, "timeout", 0, 0, 0);
  EXPECT_EQ(&better_measurement(precise, faulted), &faulted);  // a fault or a hang anywhere is never chosen
  EXPECT_EQ(&better_measurement(hung, precise), &hung);
  const measurement more = measured(flat, "ok", 11, 0.1, 40);
  EXPECT_EQ(&better_measurement(precise, more), &more);
}

tune_options host_options(const fs::path& dir, std::vector<shape5> sizes, const std::string& filter) {
  tune_options o;
  o.where = backend::host;
  o.exhaustive = true;  // the tables say "exhaustive"
  o.dtypes = {dtype::f32, dtype::f64};
  o.filter = filter;
  o.sizes = std::move(sizes);
  o.results_dir = dir;
  o.measure.warmup = 1;
  o.measure.rule = stop_rule{3, 5, 0.01, 0.01};
  o.retime_rounds = 3;
  return o;
}

// Sorted as union_of_caches orders shapes, so that the entries come out in the same order.
const std::vector<shape5> part_a{{2, 3, 3000, 1, 1}, {2, 8, 4096, 3, 5}}, part_b{{2, 3, 3500, 1, 1}, {2, 4, 8, 2, 3}};

TEST(Merge, CachesOfTwoShardsSelectWhatATuneOverTheirUnionSelects) {
  const auto dir = fresh_merge_dir("caches");
  ASSERT_EQ(candidates_for(dtype::f64, host_options(dir, {}, "__rowtile__bo1024__t256__w16$")).size(), 1u);
  // One candidate per dtype, so that the tune's re-timing on this machine cannot pick another.
  const std::string one = "__rowtile__bo1024__t256__w16$";
  const tune_report a = run_tune(host_options(dir / "a", part_a, one), nullptr);
  const tune_report b = run_tune(host_options(dir / "b", part_b, one), nullptr);
  const merge_result m = merge({read_merge_input(a.cache_path), read_merge_input(b.cache_path)}, false, "merge");
  ASSERT_EQ(m.devices.size(), 1u);
  ASSERT_TRUE(m.devices[0].cache_text);

  // The union, tuned from a cache that holds both shards' lines: nothing is measured again.
  const fs::path union_cache = dir / "union" / "host-emulation.cache.jsonl";
  write_output(union_cache, *m.devices[0].cache_text);
  std::vector<shape5> all{part_a[0], part_b[0], part_a[1], part_b[1]};
  const tune_report u = run_tune(host_options(dir / "union", all, one), nullptr);
  EXPECT_EQ(u.measured, 0u);
  const results_table& merged = m.devices[0].table;
  ASSERT_EQ(merged.entries.size(), u.table.entries.size());
  for (std::size_t k = 0; k < merged.entries.size(); ++k) {
    const table_entry &x = merged.entries[k], &y = u.table.entries[k];
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.where, y.where);
    EXPECT_EQ(x.shape, y.shape);
    EXPECT_EQ(x.winner.id, y.winner.id);
    EXPECT_EQ(x.winner.median_us, y.winner.median_us);
    EXPECT_EQ(x.winner.ratio_to_memcpy, y.winner.ratio_to_memcpy);
  }
  // Without "search", the merged settings are the tune's; the shards of an exhaustive sweep merge
  // into an exhaustive table, which the default tune takes its contenders from.
  nlohmann::json s = merged.settings, t = u.table.settings;
  EXPECT_EQ(s.value("search", ""), "exhaustive");
  s.erase("search"), t.erase("search");
  EXPECT_EQ(s, t);
  // A cache with screened-out ("pruned") measurements is not exhaustive.
  tune_options screened = host_options(dir / "screened", part_a, "__(rowtile|flat)__bo1024__");
  screened.exhaustive = false;
  const tune_report c = run_tune(screened, nullptr);
  ASSERT_GT(c.pruned, 0u);
  const merge_result mc = merge({read_merge_input(c.cache_path)}, false, "merge");
  EXPECT_NE(mc.devices[0].table.settings.value("search", ""), "exhaustive");
}

TEST(Merge, CachesWithSeveralCandidatesMergeAlikeInAnyOrderAndAsTheirUnion) {
  const auto dir = fresh_merge_dir("order");
  const std::string three = "__(seed__bo256__t256__w[48]|rowtile__bo1024__t256__w16|flat__bo1024__t256__w16)$";
  const tune_report a = run_tune(host_options(dir / "a", part_a, three), nullptr);
  const tune_report b = run_tune(host_options(dir / "b", part_b, three), nullptr);
  const merge_input ia = read_merge_input(a.cache_path), ib = read_merge_input(b.cache_path);
  const results_table ab = merge({ia, ib}, false, "").devices[0].table, ba = merge({ib, ia}, false, "").devices[0].table;
  const std::vector<measurement> all = union_of_caches({&ia.cache, &ib.cache});
  const std::vector<table_entry> direct = select_entries(all, cached_timings(all));
  ASSERT_EQ(ab.entries.size(), direct.size());
  ASSERT_EQ(ba.entries.size(), direct.size());
  EXPECT_EQ(direct.size(), 8u);  // per dtype four shapes, two of them (L 3000 and 3500) in one bucket
  for (std::size_t k = 0; k < direct.size(); ++k) {
    EXPECT_EQ(ab.entries[k].winner.id, direct[k].winner.id);
    EXPECT_EQ(ba.entries[k].winner.id, direct[k].winner.id);
    EXPECT_EQ(ab.entries[k].margin, direct[k].margin);
    ASSERT_TRUE(direct[k].runner_up);
    EXPECT_NE(direct[k].runner_up->id, direct[k].winner.id);
  }
}

TEST(Merge, ATableAndACacheMix) {
  const auto dir = fresh_merge_dir("mixed");
  const std::string one = "__rowtile__bo1024__t256__w16$";
  const tune_report a = run_tune(host_options(dir / "a", part_a, one), nullptr);
  const tune_report b = run_tune(host_options(dir / "b", part_b, one), nullptr);
  const merge_result m = merge({read_merge_input(a.table_path), read_merge_input(b.cache_path)}, false, "");
  ASSERT_EQ(m.devices.size(), 1u);
  std::set<std::tuple<dtype, long long, long long, long long, long long>> shapes;  // one entry per measured shape
  for (const auto* t : {&a.table, &b.table})
    for (const table_entry& e : t->entries) shapes.emplace(e.type, e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right);
  EXPECT_EQ(m.devices[0].table.entries.size(), shapes.size());
  EXPECT_EQ(m.devices[0].table.settings["search"], "exhaustive");  // an exhaustive table and an exhaustive cache
}

std::string input_error(const fs::path& p) {
  try {
    read_merge_input(p);
  } catch (const results_error& e) {
    return e.what();
  }
  ADD_FAILURE() << p << " was read";
  return "";
}

TEST(Merge, BadInputsAreRefusedNamingTheFileAndLine) {
  const auto dir = fresh_merge_dir("bad");
  const tune_report a = run_tune(host_options(dir / "a", part_a, "__rowtile__bo1024__t256__w16$"), nullptr);
  std::vector<std::string> lines;
  {
    std::ifstream in(a.cache_path);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  ASSERT_GT(lines.size(), 3u);
  const auto write = [&](const std::string& name, std::vector<std::string> text) {
    std::ofstream out(dir / name);
    for (const std::string& l : text) out << l << "\n";
    return dir / name;
  };
  auto corrupt = lines;
  corrupt[2] = "{\"id\": 3}";
  EXPECT_NE(input_error(write("corrupt.jsonl", corrupt)).find("corrupt.jsonl:3: corrupt line"), std::string::npos);
  auto torn = lines;
  torn.back().resize(torn.back().size() / 2);
  {  // a kill mid-write: half a line, no newline after it
    std::ofstream out(dir / "torn.jsonl");
    for (std::size_t k = 0; k < torn.size(); ++k) out << torn[k] << (k + 1 < torn.size() ? "\n" : "");
  }
  EXPECT_NE(input_error(dir / "torn.jsonl").find("the last line is torn"), std::string::npos);
  // Half a line that ends with its newline is a corrupt line, refused as any other (a tune sets it aside).
  EXPECT_NE(input_error(write("half.jsonl", torn)).find("corrupt line"), std::string::npos);
  EXPECT_NE(input_error(dir / "missing.json").find("missing.json: cannot be opened"), std::string::npos);
  EXPECT_NE(input_error(write("truncated.json", {"{\"schema\": 1, \"entr"})).find("truncated.json: not valid JSON"), std::string::npos);
  EXPECT_NE(input_error(write("empty.json", {})).find("empty.json"), std::string::npos);
}

}  // namespace
}  // namespace padtune::tuner
