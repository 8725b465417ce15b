#pragma once
// The one decision for a shape (decide.cpp): the launch runs its kernel, explain puts it in words.
#include <cstdint>
#include <optional>
#include <vector>

#include "first_use.hpp"
#include "tables.hpp"
#include "vote.hpp"

namespace padtune::detail {

/// The vote for a shape, and whether the entry measured at that very shape overruled it.
struct shape_vote : detail::vote_result {
  const instantiation* overruled = nullptr;  ///< the vote's own pick, where the shape's entry overruled it
  float lead = 0;                            ///< log(that pick's time / the entry's winner's) at the shape; inf: unranked there
};

/// The vote of a dtype's entries for a shape (vote.hpp), its first `finalists` candidates ranked; an
/// entry measured at this very shape puts its winner first where the vote's pick ran more than
/// own_shape_margin slower there.
shape_vote vote_for(const std::vector<dispatch_entry>& entries, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                    std::int64_t pad_right, dtype type, std::size_t finalists = 1);

/// What decided a shape's kernel.
enum class decided_by { exact, rule, timed, vote, built_in };

/// The one decision for a shape: the launch runs its kernel, explain puts it in words.
struct decision {
  decided_by by = decided_by::built_in;
  const instantiation* inst = nullptr;
  const dispatch_entry* entry = nullptr;  ///< exact: the shape's entry
  shape_vote vote;  ///< timed (explain) and vote: the vote of the nearest entries
  /// explain, timing on: what first-use timing has for the shape (timed: its timings; vote: a timing
  /// that failed, or one under way, inst null)
  std::optional<timed_choice> timed;
  bool timing_on = false;  ///< first-use timing is on for this table
  bool keep = true;        ///< the launch may remember it among the thread's recent choices
};

/// A launch's part in a decision: with it, a shape that first-use timing has not met is timed now
/// (outside stream capture); without it (explain) nothing is timed or claimed.
struct launch_context {
  const problem* p = nullptr;
  cudaStream_t stream = nullptr;
};

/// What serves a shape whatever the vote and first-use timing say: its exact entry (then *entry
/// is set), else on a GPU the rule's kernel for a tiny problem (tiny_rule.hpp); nullptr for
/// neither. Cheap: a launch asks it before its thread's recent choices, which it never fills.
const instantiation* fixed_choice(const lookup_table& t, backend b, dtype type, std::int64_t rows, std::int64_t L,
                                  std::int64_t pad_left, std::int64_t pad_right, const dispatch_entry** entry = nullptr);

/// The kernel for shape `key` with table t, in this order: fixed_choice; with first-use timing on
/// (`timing_on`, key.device then the device's), the kept one of the vote's finalists (timed now by
/// a launch that is the shape's first, not in capture); the vote's choice; the built-in default.
decision decide(const device_table& t, const shape_key& key, bool timing_on, const launch_context* launch);

}  // namespace padtune::detail
