#include "decide.hpp"

#include <cmath>
#include <limits>

#include "autotune.hpp"
#include "tiny_rule.hpp"

namespace padtune::detail {
namespace {

/// The entry among `entries` measured at exactly this problem, or nullptr. A linear scan.
const dispatch_entry* measured_at(const std::vector<dispatch_entry>& entries, std::int64_t rows, std::int64_t L,
                                  std::int64_t pad_left, std::int64_t pad_right) {
  for (const dispatch_entry& e : entries)
    if (same_problem(e.shape, rows, L, pad_left, pad_right)) return &e;
  return nullptr;
}

/// The exact entry for this shape, or nullptr (tables hold a user's few shapes).
const dispatch_entry* exact(const lookup_table& t, dtype type, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                            std::int64_t pad_right) {
  return measured_at(t.exact_by_dtype[std::size_t(type)], rows, L, pad_left, pad_right);
}

}  // namespace

shape_vote vote_for(const std::vector<dispatch_entry>& entries, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                    std::int64_t pad_right, dtype type, std::size_t finalists) {
  shape_vote v{detail::vote(
      entries, detail::point_of(rows, L, pad_left, pad_right, type), [](const dispatch_entry& e) -> const detail::voter& { return e.votes; },
      finalists)};
  if (!v.inst || v.distance > 0) return v;  // an entry at the shape lies at distance 0
  const dispatch_entry* own = measured_at(entries, rows, L, pad_left, pad_right);
  if (!own || own->inst == v.inst) return v;
  float lead = std::numeric_limits<float>::infinity();
  for (const auto& [inst, log_ratio] : own->votes.ranked)
    if (inst == v.inst) lead = log_ratio;
  if (lead > detail::own_shape_margin) {
    v.overruled = v.inst, v.lead = lead;
    detail::put_first(v, own->inst, finalists);
  }
  return v;
}

const instantiation* fixed_choice(const lookup_table& t, backend b, dtype type, std::int64_t rows, std::int64_t L,
                                  std::int64_t pad_left, std::int64_t pad_right, const dispatch_entry** entry) {
  if (const dispatch_entry* e = exact(t, type, rows, L, pad_left, pad_right)) {
    if (entry) *entry = e;
    return e->inst;
  }
  return is_tiny(b, rows, L, pad_left, pad_right, type) ? tiny_instantiation(type) : nullptr;
}

decision decide(const device_table& t, const shape_key& key, bool timing_on, const launch_context* launch) {
  decision d;
  d.timing_on = timing_on;
  const lookup_table& table = *t.table;
  const backend b = key.where;
  const dtype type = key.type;
  const dispatch_entry* e = nullptr;
  if (const instantiation* fixed = fixed_choice(table, b, type, key.rows, key.L, key.pad_left, key.pad_right, &e)) {
    d.by = e ? decided_by::exact : decided_by::rule, d.inst = fixed, d.entry = e;
    return d;
  }
  bool time_now = d.timing_on && launch;
  if (time_now) {
    const auto [known, present] = timed_or_claim(key, false);
    if (known) {
      d.by = decided_by::timed, d.inst = known;
      return d;
    }
    if (present) time_now = false, d.keep = false;  // another thread is timing it: the vote's choice meanwhile
  } else if (d.timing_on) {
    d.timed = find_timed(key);
  }
  const std::vector<dispatch_entry>& entries = table.by_dtype[std::size_t(type)];
  d.vote = vote_for(entries, key.rows, key.L, key.pad_left, key.pad_right, type, time_now ? detail::autotune_finalists : 1);
  if (d.timed && d.timed->inst && d.timed->failed.empty()) {
    d.by = decided_by::timed, d.inst = d.timed->inst;
    return d;
  }
  if (!d.vote.inst) {
    d.by = decided_by::built_in, d.inst = &default_instantiation(type, key.L);
    return d;
  }
  d.by = decided_by::vote, d.inst = d.vote.inst;
  if (!time_now || d.vote.candidates <= 1) return d;
  if (b != backend::host && detail::capturing(launch->stream)) {  // the vote's; timed outside capture
    d.keep = false;
    return d;
  }
  if (const auto [known, present] = timed_or_claim(key, true); present) {  // claimed meanwhile by another thread
    d.keep = false;
    if (known) d.by = decided_by::timed, d.inst = known;
    return d;
  }
  d.inst = time_and_keep(key, d.vote, b, *launch->p, launch->stream);
  d.by = decided_by::timed;
  return d;
}

}  // namespace padtune::detail
