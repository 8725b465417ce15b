// padtune tune --jit without a GPU: which JIT candidates a sweep makes, their ids and how they parse
// back, which shapes each applies to; nothing here compiles or launches.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>

#include "padtune/candidates/jit_candidates.hpp"
#include "padtune/search/tune.hpp"

namespace padtune::tuner {
namespace {

tune_options rowtile_and_flat(dtype type) {
  tune_options o;
  o.dtypes = {type};
  o.variants = {"rowtile", "flat"};
  return o;
}

TEST(JitCandidates, OneTwinPerAotCandidateAndDistinctPads) {
  const tune_options o = rowtile_and_flat(dtype::f32);
  const std::vector<const instantiation*> aot = candidates_for(dtype::f32, o);
  ASSERT_FALSE(aot.empty());
  const std::vector<shape5> shapes = {{1, 4, 100, 2, 3}, {2, 2, 50, 2, 3}, {1, 1, 64, 1, -2}};
  const std::vector<jit::kernel> twins = plan_jit_twins(dtype::f32, aot, shapes);
  ASSERT_FALSE(twins.empty());
  EXPECT_EQ(twins.size() % 2, 0u) << "the same configurations for both pads";
  std::set<std::pair<int, int>> pads;
  for (const jit::kernel& k : twins) {
    pads.insert({k.pad_left(), k.pad_right()});
    EXPECT_EQ(k.type(), dtype::f32);
    EXPECT_TRUE(k.variant() == "rowtile" || k.variant() == "flat") << k.id();
    const bool has_twin = std::any_of(aot.begin(), aot.end(), [&](const instantiation* i) {
      return i->variant == k.variant() && i->block_ol == k.block_ol() && i->threads == k.threads() &&
             i->access_width == k.access_width();
    });
    EXPECT_TRUE(has_twin) << k.id() << " is no twin of an ahead-of-time candidate";
  }
  EXPECT_EQ(pads, (std::set<std::pair<int, int>>{{2, 3}, {1, -2}}));
  // The first pads first: the plan's order is the sweep's.
  EXPECT_EQ(twins.front().pad_left(), 2);
  EXPECT_EQ(twins.back().pad_right(), -2);
  // How large a --jit run is: twins per distinct pads, for the README's slot limit.
  std::size_t per_pads = 0, default_sweep_total = 0;
  for (dtype t : all_dtypes) {
    per_pads += plan_jit_twins(t, candidates_for(t, tune_options{}), {shapes[0]}).size();
    default_sweep_total += plan_jit_twins(t, candidates_for(t, tune_options{}), default_sweep(t)).size();
  }
  std::cout << "[          ] JIT twins, every dtype, the default candidates: " << per_pads << " per distinct pads, "
            << default_sweep_total << " for the default sweep (at most " << max_jit_candidates << ")\n";
  EXPECT_LE(default_sweep_total, max_jit_candidates) << "padtune tune --jit over the default sweep must fit";
}

TEST(JitCandidates, OnlyAotCandidatesOfTheDtypeHaveTwins) {
  const tune_options o = rowtile_and_flat(dtype::f64);
  const auto aot_f64 = candidates_for(dtype::f64, o);
  EXPECT_TRUE(plan_jit_twins(dtype::f32, aot_f64, {{1, 1, 8, 0, 0}}).empty());
  EXPECT_TRUE(plan_jit_twins(dtype::f64, aot_f64, {}).empty()) << "no shapes, no pads, no twins";
}

TEST(JitCandidates, IdsSayJitAndParseBack) {
  const tune_options o = rowtile_and_flat(dtype::bf16);
  for (const jit::kernel& k : plan_jit_twins(dtype::bf16, candidates_for(dtype::bf16, o), {{3, 5, 70, -1, 4}})) {
    const std::string id = jit_id_of(k);
    EXPECT_TRUE(is_jit_id(id)) << id;
    EXPECT_EQ(id.rfind("jit__constant_pad1d_backward__bf16__-1__4__", 0), 0u) << id;
    const std::optional<jit::kernel> back = parse_jit_id(id);
    ASSERT_TRUE(back) << id;
    EXPECT_EQ(back->id(), k.id());
    EXPECT_EQ(back->hash(), k.hash());
  }
  // The seed with its default threads has the short JIT id.
  const jit::kernel seed(dtype::f16, 2, 3, 256);
  ASSERT_TRUE(parse_jit_id(jit_id_of(seed)));
  EXPECT_EQ(parse_jit_id(jit_id_of(seed))->variant(), "seed");
}

TEST(JitCandidates, MalformedIdsAreNoCandidates) {
  for (const char* id : {"", "jit__", "constant_pad1d_backward__f32__2__3__16",  // no prefix
                         "jit__constant_pad1d_backward__f99__2__3__16", "jit__constant_pad1d_backward__f32__2__3",
                         "jit__constant_pad1d_backward__f32__2__x__16", "jit__other__f32__2__3__16",
                         "jit__constant_pad1d_backward__f32__2__3__16__rowtile__t128",
                         "jit__constant_pad1d_backward__f32__2__3__1024__rowtile__128__w16",
                         "jit__constant_pad1d_backward__f32__2__3__1024__fastest__t128__w16",
                         "jit__constant_pad1d_backward__f32__02__3__16"}) {  // not the canonical spelling
    EXPECT_FALSE(parse_jit_id(id)) << id;
    EXPECT_EQ(find_candidate(id), nullptr) << id;
  }
}

TEST(JitCandidates, FindCandidateBuildsTheSameCandidateFromItsId) {
  // What a worker does with an id it was sent.
  const tune_options o = rowtile_and_flat(dtype::f32);
  const auto made = jit_candidates_for(dtype::f32, candidates_for(dtype::f32, o), {{1, 2, 30, 7, 1}});
  ASSERT_FALSE(made.empty());
  for (const instantiation* c : made) {
    EXPECT_EQ(find_candidate(c->id), c) << c->id;
    EXPECT_EQ(jit_candidate(*parse_jit_id(c->id)), c) << c->id;
    EXPECT_TRUE(c->launch_cuda != nullptr);
  }
  EXPECT_NE(made.front()->launch_cuda, made.back()->launch_cuda) << "each candidate has its own trampoline";
  const instantiation& aot = registry().front();
  EXPECT_EQ(find_candidate(aot.id), &aot);
  EXPECT_EQ(load_jit_candidate(aot), "") << "nothing to load for an ahead-of-time kernel";
}

TEST(JitCandidates, AJitCandidateAppliesOnlyToItsPads) {
  const tune_options o = rowtile_and_flat(dtype::f32);
  const auto aot = candidates_for(dtype::f32, o);
  const auto jit = jit_candidates_for(dtype::f32, aot, {{1, 2, 30, 2, 3}, {1, 2, 30, 0, 0}});
  std::vector<const instantiation*> all = aot;
  all.insert(all.end(), jit.begin(), jit.end());
  const shape5 with_2_3{4, 4, 500, 2, 3}, with_0_0{1, 1, 9, 0, 0}, with_2_4{4, 4, 500, 2, 4};
  const auto on_2_3 = applicable(all, with_2_3), on_0_0 = applicable(all, with_0_0), on_2_4 = applicable(all, with_2_4);
  EXPECT_EQ(on_2_4, aot) << "no JIT candidate has pads (2, 4): the ahead-of-time ones only";
  EXPECT_EQ(on_2_3.size() + on_0_0.size(), 2 * aot.size() + jit.size());
  for (const instantiation* i : on_2_3)
    if (is_jit_id(i->id)) {
      EXPECT_NE(i->id.find("__f32__2__3__"), std::string::npos) << i->id;
    }
  for (const instantiation* i : on_0_0)
    if (is_jit_id(i->id)) {
      EXPECT_NE(i->id.find("__f32__0__0__"), std::string::npos) << i->id;
    }
  for (const instantiation* i : aot) EXPECT_TRUE(applies_to(*i, with_2_4));
}

TEST(JitCandidates, ATuneOnTheHostBackendRefusesJit) {
  tune_options o;
  o.where = backend::host;
  o.jit = true;
  o.dtypes = {dtype::f32};
  o.sizes = {{1, 1, 8, 1, 1}};
  o.results_dir = std::filesystem::temp_directory_path() / "padtune_jit_candidates_test_host";
  EXPECT_THROW(run_tune(o, nullptr), std::runtime_error);
}

}  // namespace
}  // namespace padtune::tuner
