// The registry: every variant for every dtype over several BLOCK_OL values, ids derived from the
// parameters and unique, and the seed the only variant that needs a zeroed dx.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <map>
#include <set>

#include "padtune/registry.hpp"

namespace padtune {
namespace {

TEST(Registry, EveryVariantForEveryDtypeOverSeveralTileLengths) {
  std::map<std::pair<std::string, dtype>, std::set<int>> tiles;
  for (const instantiation& i : registry()) tiles[{std::string(i.variant), i.type}].insert(i.block_ol);
  for (const char* v : {"seed", "rowtile", "flat", "flatvec", "ewise", "staged", "rowelem"})
    for (dtype t : all_dtypes) EXPECT_GE((tiles[{v, t}].size()), 4u) << v << " " << name_of(t);
}

TEST(Registry, IdsAreDerivedFromParametersAndUnique) {
  std::set<std::string> seen;
  for (const instantiation& i : registry()) {
    EXPECT_EQ(i.id, fmt::format("constant_pad1d_backward__{}__{}__bo{}__t{}__w{}", name_of(i.type), i.variant, i.block_ol,
                                i.threads, i.access_width));
    EXPECT_TRUE(seen.insert(i.id).second) << "duplicate id " << i.id;
    EXPECT_EQ(find_instantiation(i.id), &i);
  }
  EXPECT_EQ(find_instantiation("constant_pad1d_backward__f32__nope"), nullptr);
}

TEST(Registry, ParametersAreInRange) {
  for (const instantiation& i : registry()) {
    EXPECT_EQ(i.needs_zeroed_dx, i.variant == "seed") << i.id;
    EXPECT_TRUE(i.block_ol >= 64 && i.block_ol <= 16384 && (i.block_ol & (i.block_ol - 1)) == 0) << i.id;  // staged: 32 KB tiles of 16-bit
    EXPECT_TRUE(i.threads >= 1 && i.threads <= 1024) << i.id;
    EXPECT_GE(i.access_width, int(size_of(i.type))) << i.id;
    EXPECT_TRUE(i.launch_cuda != nullptr && i.launch_host != nullptr) << i.id;
  }
}

}  // namespace
}  // namespace padtune
