// The dispatcher's entry points: dispatch() finds the device's table (tables.hpp), takes the
// thread's recent choice for the shape or else the decision (decide.hpp: the exact entry, the rule
// for a tiny problem, first-use timing's kept finalist, the vote, the built-in default) and
// launches it through the registry; explain_dispatch puts the same decision in words.
//
// Fast path (every call after the first on a device): cudaGetDevice, one atomic load, the exact
// entries' scan and the tiny rule's test, then the thread's recent choices (16 shapes), else the
// decision (the vote: a scan over the entries of the call's dtype). Everything else happens once, under a mutex. With
// first-use timing on (first_use.hpp), a shape's first call times the vote's finalists and later
// calls find the choice under a second mutex, or in the thread's recent choices.
#include "padtune/enqueue.hpp"
#include "padtune/nvtx.hpp"
#include "padtune/padtune.hpp"

#include "padtune/dtype_of.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "padtune/buckets.hpp"
#include "padtune/detail/input.hpp"
#include "autotune.hpp"
#include "decide.hpp"
#include "tiny_rule.hpp"

namespace padtune {
namespace {

using detail::autotune_on;
using detail::decided_by;
using detail::default_source;
using detail::decision;
using detail::device_of;
using detail::device_table;
using detail::dispatch_entry;
using detail::launch_context;
using detail::lookup_table;
using detail::shape_key;
using detail::shape_vote;
using detail::table_for;

/// The thread's last few choices, so that a loop over a model's shapes votes once per shape (the
/// vote scans the dtype's entries: about 0.7 µs). Tables are never freed while the process runs
/// (set_results_path retires them), so a table's address names it.
struct recent_choices {
  struct choice {
    shape_key shape;     ///< its device -1 where timing is off (the vote's choice is any device's)
    bool timed = false;  ///< made with first-use timing on: a choice made with it off is not one
    const instantiation* inst = nullptr;
  };
  std::array<choice, 16> slots{};
  std::size_t next = 0;  ///< the slot the next new choice replaces (round robin)

  const instantiation* find(const choice& key) const {
    for (const choice& c : slots)
      if (c.timed == key.timed && c.shape == key.shape) return c.inst;  // an empty slot's table is null
    return nullptr;
  }
  void add(const choice& c) {
    slots[next] = c;
    next = (next + 1) % slots.size();
  }
};

/// The kernel for problem p (its rows `rows`) on backend b: its exact entry or the tiny rule's,
/// else the thread's recent choice for the shape, else the decision.
const instantiation& choose(const device_table& t, const problem& p, std::int64_t rows, backend b, cudaStream_t stream) {
  if (const instantiation* fixed = detail::fixed_choice(*t.table, b, p.type, rows, p.L, p.pad_left, p.pad_right)) return *fixed;
  const bool timing = autotune_on(&t);
  thread_local recent_choices recent;
  recent_choices::choice key{{t.table, b, timing ? device_of(b) : -1, p.type, rows, p.L, p.pad_left, p.pad_right}, timing};
  if (const instantiation* known = recent.find(key)) return *known;
  const launch_context launch{&p, stream};
  const decision d = detail::decide(t, key.shape, timing, &launch);
  if (d.keep) {
    key.inst = d.inst;
    recent.add(key);
  }
  return *d.inst;
}

}  // namespace

void dispatch(const problem& p, backend b, cudaStream_t stream) {
  std::string why;
  problem_sizes sizes;
  if (const status s = check(p, &why, &sizes); s != status::ok) throw error(s, why);
  if (b != backend::cuda && b != backend::host)  // before the empty problem's return: refused as explain refuses it
    throw error(status::unsupported_backend, fmt::format("unknown backend (value {})", int(b)));
  if (sizes.dx_elems == 0) return;
  const device_table& t = table_for(b, true);
  const instantiation& inst = choose(t, p, sizes.rows, b, stream);
  const nvtx_range range(inst);  // the seed's zeroing is part of its cost: inside the range
  if (const status s = enqueue(inst, b, p, stream, &why); s != status::ok) throw error(s, why);
}

void constant_pad1d_backward(const void* dy, void* dx, std::int64_t B, std::int64_t C, std::int64_t L,
                             std::int64_t pad_left, std::int64_t pad_right, dtype type, cudaStream_t stream) {
  dispatch(problem{dy, dx, B, C, L, pad_left, pad_right, type}, backend::cuda, stream);
}

template <class T>
void constant_pad1d_backward(const T* dy, T* dx, std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                             std::int64_t pad_right, cudaStream_t stream) {
  dispatch(problem{dy, dx, B, C, L, pad_left, pad_right, dtype_of<T>()}, backend::cuda, stream);
}

template void constant_pad1d_backward<float>(const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                                             std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<double>(const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                                              std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<__half>(const __half*, __half*, std::int64_t, std::int64_t, std::int64_t,
                                              std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, std::int64_t, std::int64_t,
                                                     std::int64_t, std::int64_t, std::int64_t, cudaStream_t);

dispatch_choice explain_dispatch(std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                                 std::int64_t pad_right, dtype type, backend b) {
  std::string why;
  problem_sizes sizes;
  if (const status s = check_shape(B, C, L, pad_left, pad_right, type, &why, &sizes); s != status::ok)
    throw error(s, why);
  const device_table& dt = table_for(b, false);
  const lookup_table& t = *dt.table;
  const bucket where = bucket_of(sizes.rows, L, pad_left, type);
  const bool timing = autotune_on(&dt);
  const decision d = detail::decide(dt, {&t, b, timing ? device_of(b) : -1, type, sizes.rows, L, pad_left, pad_right}, timing, nullptr);

  dispatch_choice c;
  c.table = t.source;
  c.bucket = where.name();
  c.inst = d.inst;
  const auto winner_text = [](const dispatch_entry& e) {
    std::string text = e.ratio_to_memcpy > 0 ? fmt::format("winner {:.2f}x memcpy", e.ratio_to_memcpy)
                                             : std::string("winner (no memcpy ratio recorded)");
    return e.note.empty() ? text : text + "; " + e.note;
  };
  const std::vector<dispatch_entry>& entries = t.by_dtype[std::size_t(type)];
  const shape_vote& v = d.vote;
  switch (d.by) {
    case decided_by::exact: {
      const dispatch_entry& e = *d.entry;
      c.served_by = "exact";
      c.matched_bucket = e.where.name();
      c.reason = fmt::format("exact entry ({},{},{},{},{}) in {}, {}", e.shape.B, e.shape.C, e.shape.L, e.shape.pad_left,
                             e.shape.pad_right, t.source, winner_text(e));
      break;
    }
    case decided_by::rule:
      c.served_by = "rule";
      c.reason = fmt::format("the rule for tiny problems: {} bytes of dy plus dx in {} rows (at most {} in at most {}) are "
                             "launch-bound, and {} bo{} t{} runs them within 1.05 of the best kernel on every such shape of the H100's "
                             "and the H200's sweeps; the table ({}) is not asked",
                             sizes.dx_bytes() + sizes.dy_bytes(), sizes.rows,
                             detail::tiny_payload_bytes, detail::tiny_rows, detail::tiny_variant, detail::tiny_block_ol,
                             detail::tiny_threads, t.source);
      break;
    case decided_by::timed: {
      c.served_by = "timed";
      c.matched_bucket = entries[v.nearest].where.name();
      double taken = 0, fastest = 0;
      for (const detail::finalist_timing& f : d.timed->timings.runs) {
        c.timings.emplace_back(f.inst, f.median_us);
        if (f.inst == c.inst) taken = f.median_us;
        fastest = fastest == 0 ? f.median_us : std::min(fastest, f.median_us);
      }
      const detail::finalist_timing& first = d.timed->timings.runs.front();
      const std::string how = b == backend::host                ? " (host emulation)"
                              : d.timed->timings.l2_flushed ? ", L2 flushed"
                                                            : ", L2 not flushed (no memory for it)";
      c.reason = c.inst == first.inst
                     ? fmt::format("the vote's first of its {} finalists ({}), timed on this shape's first dispatch{}: {:.2f} us, "
                                   "no other {:.0f}% faster (the fastest {:.2f} us)",
                                   d.timed->timings.runs.size(), t.source, how, first.median_us, 100 * detail::autotune_margin,
                                   fastest)
                     : fmt::format("the fastest of the vote's {} finalists ({}), timed on this shape's first dispatch{}: {:.2f} us; "
                                   "the vote's first, {}, {:.2f} us",
                                   d.timed->timings.runs.size(), t.source, how, taken, first.inst->id, first.median_us);
      break;
    }
    case decided_by::vote: {
      const dispatch_entry& n = entries[v.nearest];
      c.served_by = n.where == where ? "bucket" : "fallback";
      c.matched_bucket = n.where.name();
      const std::string nearest_text = n.where == where ? fmt::format("its bucket {}", c.matched_bucket)
                                                        : fmt::format("fallback: nearest bucket {} (distance {:.2f})",
                                                                      c.matched_bucket, v.distance);
      const std::string vote_text =
          v.overruled ? fmt::format("the {} nearest entries vote for {}, {} at this very shape's entry: its winner serves it",
                                    v.voters, v.overruled->id,
                                    std::isinf(v.lead) ? std::string("not among its fastest")
                                                       : fmt::format("{:.1f}% slower", 100 * std::expm1(v.lead)))
          : v.inst == n.inst ? fmt::format("the {} nearest entries vote for it", v.voters)
                             : fmt::format("the {} nearest entries vote for another kernel", v.voters);
      c.reason = fmt::format("{} in {}, {}; {}", nearest_text, t.source, winner_text(n), vote_text);
      if (d.timed && !d.timed->failed.empty())
        c.reason += fmt::format("; first-use timing failed ({}): the vote's choice serves it", d.timed->failed);
      else if (d.timed)
        c.reason += "; first-use timing is on: another thread is timing this shape's finalists now";
      else if (d.timing_on && v.candidates > 1)
        c.reason += fmt::format("; first-use timing is on: the first dispatch of this shape times the vote's {} finalists",
                                std::min(detail::autotune_finalists, v.candidates));
      break;
    }
    case decided_by::built_in:
      c.served_by = "fallback";
      c.reason = t.source == default_source ? builtin_default_reason(type, L)
                                            : fmt::format("{} has no {} entry; {}", t.source, name_of(type), builtin_default_reason(type, L));
      break;
  }
  if (!dt.note.empty()) c.reason += fmt::format(" ({})", dt.note);
  if (sizes.dx_elems == 0) c.reason += "; the shape has no elements: dispatch does nothing";
  return c;
}

}  // namespace padtune
