#include "padtune/search/tune.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "padtune/detail/input.hpp"
#include "padtune/search/id_filter.hpp"
#include "padtune/candidates/jit_candidates.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/store/table_file.hpp"
#include "padtune/search/sweep.hpp"
#include "tune_run.hpp"

namespace padtune::tuner {
namespace detail {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::string shape_text(dtype type, const shape5& s) {
  return fmt::format("{} ({},{},{},{},{})", name_of(type), s.B, s.C, s.L, s.pad_left, s.pad_right);
}

tune_report tune_run::run() {
  model_run& model = models_.emplace_back();
  model.device = this_device();
  measure_settings m = o_.measure;
  plan_work(m);
  open_model(model);
  std::optional<std::pair<dtype, shape5>> in_hand;  // the shape being measured, until it is done
  try {
    for (const auto& [type, shapes] : plan_)
      for (const shape5& s : shapes) {
        if (stopped()) break;
        in_hand.emplace(type, s);
        const shape_work w = triage(model, type, s);
        if (w.empty()) tell(shape_text(type, s) + ": from the cache");
        else measure(model, w, m);
        if (!stopped()) in_hand.reset();  // stopped: judged below by what it has (finished)
      }
  } catch (const std::exception&) {
    if (!stopped()) throw;  // a worker stopped by the same signal that interrupted us: a partial table
  }
  report_.interrupted = stopped();
  if (in_hand) leave_out_unless_finished(model, in_hand->first, in_hand->second, "was stopped before all its candidates were measured");
  if (!report_.interrupted || report_.measured > 0) finish(model, true);  // a run stopped before it measured anything changes nothing
  report_.worker_starts = worker_ ? worker_->starts() : 0;
  report_.seconds = seconds_since(started_);
  return report_;
}

device_fingerprint tune_run::this_device() {
  if (isolated()) {
    worker_ = std::make_unique<worker_client>(o_.worker_command, o_.candidate_timeout_seconds, o_.interrupted);
    return worker_->device();
  }
  return o_.where == backend::cuda ? cuda_device_fingerprint() : host_fingerprint();
}

std::unique_ptr<workspace> tune_run::make_workspace(dtype type, const shape5& s) const {
  if (isolated()) return make_isolated_workspace(*worker_, type, s);
  return o_.where == backend::cuda ? make_cuda_workspace(type, s) : make_host_workspace(type, s);
}

void tune_run::plan_work(measure_settings& m) {
  if (o_.jit && o_.where != backend::cuda)
    throw std::runtime_error("--jit needs the CUDA backend: JIT kernels are compiled by NVRTC for a GPU");
  // A dtype or shape named twice is one: measured once, counted once.
  std::vector<dtype> dtypes;
  for (dtype type : o_.dtypes)
    if (std::find(dtypes.begin(), dtypes.end(), type) == dtypes.end()) dtypes.push_back(type);
  for (dtype type : dtypes) {
    candidates_[type] = candidates_for(type, o_);
    std::vector<shape5> shapes;
    std::set<std::tuple<long long, long long, long long, long long, long long>> seen;
    for (const shape5& s : o_.sizes.empty() ? (o_.where == backend::cuda ? default_sweep(type) : small_sweep()) : o_.sizes)
      if (seen.emplace(s.B, s.C, s.L, s.pad_left, s.pad_right).second) shapes.push_back(s);
    shapes = take_shard(shapes, o_.shard);
    if (o_.jit)
      for (const instantiation* j : jit_candidates_for(type, candidates_[type], shapes)) candidates_[type].push_back(j);
    for (const shape5& s : shapes) total_ += applicable(candidates_[type], s).size() + 1;
    plan_.emplace_back(type, std::move(shapes));
  }
  if (o_.budget_seconds) {  // spread the budget over every (shape, survivor) timing, about 3 per shape
    std::size_t shapes = 0;
    for (const auto& [type, s] : plan_) shapes += s.size();
    m.rule.budget_seconds = std::clamp(*o_.budget_seconds / double(3 * std::max<std::size_t>(shapes, 1)), 0.002,
                                       m.rule.budget_seconds);
  }
}

void tune_run::open_model(model_run& model) {
  // Both outputs are checked before any work: a folder, an unwritable place or one file named twice
  // is refused here, not after the measurements.
  model.table = resolve_output(o_.table_path.empty() ? o_.results_dir / (model.device.slug() + ".json") : o_.table_path);
  model.cache_file = resolve_output(o_.cache_path.empty() ? o_.results_dir / (model.device.slug() + ".cache.jsonl") : o_.cache_path);
  if (model.cache_file.stream)
    throw usage_error(fmt::format("--cache {}: a cache must be a regular file (it is read back and appended to)", model.cache_file.name()));
  refuse_same_file(model.table, "--table", model.cache_file, "--cache");
  refuse_other_outputs(model);
  // A table that must not be replaced (another device model, a newer schema) is refused now, before
  // anything is measured; finish() looks again, since another run may write it meanwhile.
  inspect_table(model.table, model.device);
  model.table_path = model.table.given;
  model.cache_path = model.cache_file.given;
  // One run at a time per cache: the others wait, then find the work done.
  model.lock = std::make_unique<file_lock>(lock_path_of(model.cache_file.target), [&] {
    if (progress_) progress_(0, total_, 0, "waiting for another padtune on " + model.cache_path.string() + " (Ctrl-C stops waiting)");
  }, o_.interrupted);
  model.cache = std::make_unique<measurement_cache>(model.cache_file.target, model.device, to_json(o_.measure));
  if (model.cache->set_aside() > 0)
    tell(fmt::format("note: {} unreadable line(s) of {} set aside in {}; the run goes on with the others",
                     model.cache->set_aside(), model.cache_path.string(), model.cache->rejected_path().string()));
  if (&model == &models_.front()) {
    report_.table_path = model.table_path;
    report_.cache_path = model.cache_path;
  }
}

/// Refuses a table or cache that is one of the other files the run writes (what it sets aside, the
/// locks, the summary), and a cache of several hard links: one lock per name would let two
/// runs append at once, and a rewrite (lines set aside) would split the names.
void tune_run::refuse_other_outputs(const model_run& model) const {
  std::vector<std::pair<output_target, std::string>> others;
  // A file beside the table or cache, named after it: one that cannot be (a name too long) names both.
  const auto beside = [&](const output_target& of, const char* option, const std::filesystem::path& p, const char* what) {
    try {
      others.emplace_back(resolve_output(p), what);
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("{} {}: {}: {}", option, of.name(), what, e.what()));
    }
  };
  beside(model.cache_file, "--cache", model.cache_file.target.string() + ".rejected", "the cache's set-aside lines");
  beside(model.cache_file, "--cache", lock_path_of(model.cache_file.target), "the cache's lock");
  if (!model.table.stream) {
    beside(model.table, "--table", rejected_table_path(model.table), "the table's set-aside entries");
    beside(model.table, "--table", lock_path_of(model.table.target), "the table's lock");
  }
  // The set-aside files are read back and appended to: regular files within the input limit, checked
  // now, not after the sweep.
  for (const auto& [t, what] : others) {
    if (!t.exists || what == "the cache's lock") continue;  // taken now: file_lock checks it
    std::error_code ec;
    if (t.stream && what == "the table's lock")  // taken after the sweep: checked now
      throw usage_error(fmt::format("{} ({}): a lock must be a regular file, and this is not one: move it away", t.name(), what));
    if (what == "the table's lock") continue;
    if (t.stream)
      throw usage_error(fmt::format("{} ({}): is not a regular file; padtune reads it back and appends to it: move it away",
                                    t.name(), what));
    if (const auto size = std::filesystem::file_size(t.target, ec); !ec && size > max_input_bytes)
      throw usage_error(fmt::format("{} ({}): over the limit of {} bytes padtune reads back: move it away", t.name(), what,
                                    max_input_bytes));
  }
  if (!o_.summary_path.empty()) {
    const output_target summary = resolve_output(o_.summary_path);
    for (const auto& [t, what] : others) refuse_same_file(summary, "--summary", t, what.c_str());
    others.emplace_back(summary, "--summary");
  }
  // An input is no output: the sizes file would be lost.
  if (!o_.sizes_path.empty()) {
    output_target sizes;
    try {
      sizes = resolve_output(o_.sizes_path);
    } catch (const usage_error&) {
      sizes = {};  // a path that cannot be an output cannot be one of them
    }
    if (!sizes.target.empty()) {
      refuse_same_file(model.table, "--table", sizes, "--sizes");
      refuse_same_file(model.cache_file, "--cache", sizes, "--sizes");
      for (const auto& [t, what] : others) refuse_same_file(sizes, "--sizes", t, what.c_str());
    }
  }
  for (const auto& [t, what] : others) {
    refuse_same_file(model.table, "--table", t, what.c_str());
    refuse_same_file(model.cache_file, "--cache", t, what.c_str());
  }
  struct stat st {};
  if (model.cache_file.exists && ::stat(model.cache_file.target.c_str(), &st) == 0 && st.st_nlink > 1)
    throw usage_error(fmt::format("--cache {} has {} hard links: each name would take a lock of its own, and padtune replaces a "
                                  "cache by renaming a new file over it, which would split them; use a symbolic link",
                                  model.cache_file.name(), st.st_nlink));
}

void tune_run::record(model_run& model, measurement m, bool fresh) {
  if (fresh) {
    if (sink_) sink_(m);
    else model.cache->add(m);
    ++report_.measured;
  } else {
    ++report_.from_cache;
  }
  if (m.status == "pruned") ++report_.pruned;
  else if (m.status != "ok") ++report_.failed;
  if (m.status == "fault") ++report_.faults;
  if (m.status == "timeout") ++report_.timeouts;
  model.all.push_back(std::move(m));
  ++done_;
}

void tune_run::tell(const std::string& what) {
  if (!progress_) return;
  const bool note = what.rfind("note: ", 0) == 0;
  if (rank_ != 0) {  // a team's other ranks say only what goes wrong; rank 0 tells the progress
    if (note) progress_(done_, total_, 0, fmt::format("note: rank {}: {}", rank_, what.substr(6)));
    return;
  }
  // A team's rate is its ranks' together: the wall clock over the measurements made so far.
  const bool team = !model_of_rank_.empty();
  const double per_item = team ? (report_.measured ? seconds_since(started_) / double(report_.measured) : 0.0)
                               : (fresh_done_ ? fresh_seconds_ / double(fresh_done_) : 0.0);
  progress_(done_, total_, per_item * double(total_ - done_), what);
}

shape_work tune_run::triage(model_run& model, dtype type, const shape5& s) {
  shape_work w{type, s, {}, false};
  // Reused: finished timings, verification failures and faults (the same code on the same input
  // faults again, and each costs a worker). Redone: "pruned" (a budgeted run's rough numbers),
  // launch failures, which may have been passing (out of memory, say), and timeouts when an
  // isolated run allows more time than the one that recorded them (never in process: it would hang).
  auto reusable = [&](const std::string& id) -> const measurement* {
    const measurement* c = model.cache->find(measurement_key(id, type, s));
    if (!c || c->status == "ok") return c;
    if (c->status == "pruned" && strategy_->pruned_is_final()) return c;
    if (id == memcpy_floor_id) return nullptr;
    if (c->status == "verify_failed" || c->status == "fault") return c;
    if (c->status == "timeout" && !(isolated() && o_.candidate_timeout_seconds > c->limit_seconds)) return c;
    return nullptr;
  };
  for (const instantiation* i : applicable(candidates_[type], s)) {  // a JIT candidate runs only on its own pads
    if (const measurement* c = reusable(i->id)) record(model, *c, false);
    else w.missing.push_back(i);
  }
  if (const measurement* floor = reusable(memcpy_floor_id)) record(model, *floor, false);
  else w.floor = true;
  return w;
}

/// A strategy's steps on one shape, over the run's model, workspace and settings: each candidate's step
/// runs through survived (an isolated candidate that faults is recorded, not thrown) and is recorded.
class shape_steps_of_run final : public shape_steps {
 public:
  shape_steps_of_run(tune_run& run, model_run& model, workspace& ws, dtype type, const shape5& s, const measure_settings& m)
      : run_(run), model_(model), ws_(ws), type_(type), s_(s), m_(m) {}
  bool stopped() const override { return run_.stopped(); }
  void measure_in_full(const instantiation& i) override {
    step(i, [&] {
      if (verifies(i)) record(i, "ok", "", full_timing(i));
    });
    run_.tell(shape_text(type_, s_) + " " + i.id);
  }
  rough verified(const std::vector<const instantiation*>& missing) override {
    rough alive;
    for (const instantiation* i : missing)
      step(*i, [&] {
        if (verifies(*i)) alive.emplace_back(i, timing{});
      });
    return alive;
  }
  void time_roughly(rough& alive, const rough_rule& rule) override {
    measure_settings quick = m_;
    quick.hot_too = false;
    quick.warmup = rule.warmup;
    quick.rule.min_samples = rule.min_samples;
    quick.rule.max_samples = rule.max_samples;
    quick.rule.target_spread = 0;  // the standard error decides, or the sample count
    quick.rule.target_standard_error = rule.target_standard_error;
    std::erase_if(alive, [&](auto& a) { return !step(*a.first, [&] { a.second = run_.timed([&] { return ws_.time(*a.first, quick); }); }); });
    std::sort(alive.begin(), alive.end(), [](const auto& a, const auto& b) { return a.second.cold.median < b.second.cold.median; });
  }
  void prune_after(rough& alive, std::size_t keep) override {
    for (std::size_t k = keep; k < alive.size(); ++k) record(*alive[k].first, "pruned", "", alive[k].second);
    if (keep < alive.size()) alive.resize(keep);
  }
  void time_in_full(const rough& alive) override {
    for (const auto& [i, t] : alive) step(*i, [&] { record(*i, "ok", "", full_timing(*i)); });
  }
  std::pair<std::size_t, double> timed_in_full_before() const override {
    std::size_t n = 0;
    double best = INFINITY;
    for (const measurement& done : model_.all)
      if (done.status == "ok" && done.id != memcpy_floor_id && done.type == type_ && done.shape == s_) {
        best = std::min(best, done.t.cold.median);
        ++n;
      }
    return {n, best};
  }

 private:
  template <class Step>
  bool step(const instantiation& i, Step&& body) {
    return run_.survived(model_, i.id, type_, s_, std::forward<Step>(body));
  }
  void record(const instantiation& i, const char* status, std::string error, timing t) {
    run_.record(model_, {i.id, type_, s_, status, std::move(error), t}, true);
  }
  /// Verifies `i` on the workspace; one that fails is recorded as verify_failed, with why.
  bool verifies(const instantiation& i) {
    std::string e = run_.verified(ws_, i);
    if (e.empty()) return true;
    record(i, "verify_failed", std::move(e), {});
    return false;
  }
  timing full_timing(const instantiation& i) { return run_.timed([&] { return ws_.time(i, m_); }); }

  tune_run& run_;
  model_run& model_;
  workspace& ws_;
  dtype type_;
  const shape5& s_;
  const measure_settings& m_;
};

void tune_run::measure(model_run& model, const shape_work& w, const measure_settings& m) {
  const dtype type = w.type;
  const shape5& s = w.shape;
  const std::string where = shape_text(type, s);
  const auto t0 = clock_type::now();
  const std::size_t done_before = done_;
  std::unique_ptr<workspace> ws;
  try {
    const phase_timer clock(report_.phases.workspaces);
    ws = make_workspace(type, s);
  } catch (const std::exception& e) {
    // An interrupt while an isolated worker opens the workspace is no launch failure: recorded,
    // it would be redone on resume and counted as a failure in the partial table.
    if (stopped()) throw;
    for (const instantiation* i : w.missing) record(model, {i->id, type, s, "launch_failed", std::string("workspace: ") + e.what(), {}}, true);
    if (w.floor) record(model, {memcpy_floor_id, type, s, "launch_failed", std::string("workspace: ") + e.what(), {}}, true);
    tell(where + ": " + e.what());
    return;
  }
  if (w.floor)
    survived(model, memcpy_floor_id, type, s, [&] { record(model, {memcpy_floor_id, type, s, "ok", "", timed([&] { return ws->time_memcpy(m); })}, true); });
  shape_steps_of_run steps(*this, model, *ws, type, s, m);
  strategy_->measure(steps, w.missing);
  if (const std::string f = ws->failure(); !f.empty())
    throw std::runtime_error(fmt::format("the device failed while measuring {}: {}", where, f));
  fresh_seconds_ += seconds_since(t0);
  fresh_done_ += done_ - done_before;
  tell(where + ": done");
}

shape_work tune_run::rest_of(const model_run& model, dtype type, const shape5& s) const {
  std::set<std::string> recorded;  // any status: a pruned or failed candidate is done with too
  for (const measurement& m : model.all)
    if (m.type == type && m.shape == s) recorded.insert(m.id);
  shape_work rest{type, s, {}, !recorded.count(memcpy_floor_id)};
  if (const auto it = candidates_.find(type); it != candidates_.end())
    for (const instantiation* i : applicable(it->second, s))
      if (!recorded.count(i->id)) rest.missing.push_back(i);
  return rest;
}

void tune_run::leave_out_unless_finished(model_run& model, dtype type, const shape5& s, const std::string& why) {
  if (!rest_of(model, type, s).empty()) leave_out(model, type, s, why);
}

void tune_run::leave_out(model_run& model, dtype type, const shape5& s, const std::string& why) {
  const auto before = model.all.size();
  std::erase_if(model.all, [&](const measurement& m) { return m.type == type && m.shape == s; });
  model.left_out.insert(shape_text(type, s));
  tell(fmt::format("note: {} {}: it gets no entry in this table ({} measurement(s) of it are in the cache; the next run "
                   "measures the rest)", shape_text(type, s), why, before - model.all.size()));
}

std::string tune_run::verified(workspace& ws, const instantiation& i) {
  const phase_timer clock(report_.phases.verify);
  return ws.verify(i);
}

timing tune_run::timed(const std::function<timing()>& take) {
  const phase_timer clock(report_.phases.timing);
  timing t = take();
  report_.phases.samples += std::size_t(t.cold.samples) + std::size_t(t.hot.samples);
  return t;
}

/// Runs one step of a candidate. An isolated candidate that faults or hangs is recorded (and
/// said) instead, and false returned; the next request starts a fresh worker.
template <class Step>
bool tune_run::survived(model_run& model, const std::string& id, dtype type, const shape5& s, Step&& step) {
  bool ok = true;
  try {
    step();
  } catch (const candidate_fault& f) {
    measurement m{id, type, s, f.status, f.what(), {}};
    m.limit_seconds = f.limit_seconds;
    record(model, m, true);
    tell(fmt::format("note: {} on {}: {}: {}", id, shape_text(type, s), f.status, f.what()));
    ok = false;
  }
  if (between_measurements_) between_measurements_();
  return ok;
}

void tune_run::finish(model_run& model, bool retime_here) {
  const phase_timer clock(report_.phases.selection);
  results_table t = select(model, retime_here);
  if (const std::vector<std::string> bad = unrunnable(model); !bad.empty()) {
    t.complete = false;  // a shape asked for has no entry
    for (const std::string& b : bad)
      report_.unrunnable.push_back(models_.size() > 1 ? fmt::format("{}: {}", model.device.slug(), b) : b);
  }
  // Read, merged and replaced under the table's own lock: runs of other caches take turns on it too.
  std::unique_ptr<file_lock> table_lock;
  if (!model.table.stream) {
    const std::filesystem::path lock = lock_path_of(model.table.target);
    try {
      table_lock = std::make_unique<file_lock>(lock, [&] {
        tell("waiting for another padtune writing " + model.table_path.string() + " (Ctrl-C stops waiting)");
      }, o_.interrupted);
    } catch (const interrupted_error&) {
      throw interrupted_error(fmt::format("interrupted while waiting for the lock {} (another padtune writes the table); the "
                                          "table was not written, the measurements are in the cache", lock.string()));
    }
  }
  const table_on_disk old = inspect_table(model.table, model.device);
  if (const std::size_t n = set_aside(old, model.table))
    tell(fmt::format("note: {} of {} could not be read: set aside in {} ({}), never dropped",
                     old.unreadable.empty() ? fmt::format("{} entr{}", n, n == 1 ? "y" : "ies") : std::string("the whole table"),
                     model.table_path.string(), rejected_table_path(model.table).string(),
                     old.unreadable.empty() ? old.rejected.front().why : old.unreadable));
  keep_other_entries(old, t);
  write_output(model.table, table_text(t), o_.interrupted);
  if (&model == &models_.front()) {
    report_.table = std::move(t);
    report_.wrote_table = true;
  }
  else report_.other_tables.push_back(model.table_path);
}

results_table tune_run::select(model_run& model, bool retime_here) {
  results_table t;
  t.device = model.device;
  t.settings = table_settings(to_json(o_.measure), std::string(name_of(o_.where)), search_name(o_), kernel_sources_hash);
  t.command = o_.command;
  t.created = utc_now();
  t.complete = !report_.interrupted && model.left_out.empty();
  const entry_kind kind = o_.exact_entries ? entry_kind::exact : entry_kind::bucket;
  if (!retime_here) {
    t.entries = select_entries(model.all, cached_timings(model.all), kind);
    return t;
  }
  t.entries = select_entries(model.all, [&](dtype type, const shape5& rep, const std::vector<const instantiation*>& finalists) {
    if (stopped()) return std::vector<summary>{};
    try {
      return time_interleaved(*make_workspace(type, rep), finalists, o_.retime_rounds, o_.measure);
    } catch (const std::exception&) {
      return std::vector<summary>{};  // keep the ranking's order
    }
  }, kind);
  return t;
}

std::vector<std::string> tune_run::unrunnable(const model_run& model) const {
  if (stopped()) return {};  // an interrupted run's unmeasured shapes are only not measured yet
  std::set<std::string> timed;
  std::map<std::string, const measurement*> first_failure;
  for (const measurement& m : model.all) {
    if (m.id == memcpy_floor_id) continue;
    const std::string key = shape_text(m.type, m.shape);
    if (m.status == "ok") timed.insert(key);
    else if (m.status != "pruned") first_failure.emplace(key, &m);
  }
  std::vector<std::string> out;
  for (const auto& [type, shapes] : plan_)
    for (const shape5& s : shapes) {
      const std::string key = shape_text(type, s);
      if (timed.count(key) || model.left_out.count(key)) continue;  // left out: not measured, not unrunnable
      const auto f = first_failure.find(key);
      out.push_back(f == first_failure.end() ? key + ": no candidate applies"
                                             : fmt::format("{}: {}: {}", key, f->second->status, f->second->error));
    }
  return out;
}

}  // namespace detail

std::string phases_text(const tune_phases& p) {
  const double per_sample = p.samples ? p.timing / double(p.samples) * 1e6 : 0.0;
  return fmt::format("{:.1f} s workspaces, {:.1f} s verify, {:.1f} s timing ({} samples, {:.0f} us each), {:.1f} s selection, "
                     "{:.1f} s waiting", p.workspaces, p.verify, p.timing, p.samples, per_sample, p.selection, p.waiting);
}

std::string search_name(const tune_options& o) { return detail::make_strategy(o)->name(); }

std::vector<const instantiation*> contenders(dtype type, backend where) {
  std::set<std::string> ids;
  for (const results_table& t : embedded_results_tables()) {
    if (t.device.backend != name_of(where) || !t.settings.is_object() || t.settings.value("search", "") != "exhaustive") continue;
    for (const table_entry& e : t.entries) {
      if (e.type != type) continue;
      ids.insert(e.winner.id);
      if (e.runner_up) ids.insert(e.runner_up->id);
    }
  }
  std::vector<const instantiation*> out;
  for (const instantiation& i : registry())
    if (i.type == type && ids.count(i.id)) out.push_back(&i);
  return out;
}

std::vector<const instantiation*> candidates_for(dtype type, const tune_options& o) {
  // The default set: what won or came second in a published table of this backend (the others never
  // did: opt-in by --exhaustive, --variant or --filter); every candidate where no such table exists.
  if (!o.exhaustive && o.variants.empty() && o.filter.empty())
    if (std::vector<const instantiation*> c = contenders(type, o.where); !c.empty()) return c;
  const id_filter filter(o.filter);
  std::vector<const instantiation*> out;
  for (const instantiation& i : registry()) {
    if (i.type != type || !filter.matches(i.id)) continue;
    if (!o.variants.empty() && std::find(o.variants.begin(), o.variants.end(), i.variant) == o.variants.end()) continue;
    out.push_back(&i);
  }
  return out;
}

tune_report run_tune(const tune_options& o, const progress_fn& progress) {
  detail::tune_run run(o, progress);
  return o.team && o.team->size() > 1 ? run.run_in_team(*o.team) : run.run();
}

}  // namespace padtune::tuner
