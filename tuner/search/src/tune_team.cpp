// The tune run of a team (work_team.hpp): ranks launched together share one sweep.
//
// Dynamic hand-out by rank 0, at the granularity of a (dtype, shape): rank 0 holds the caches, so it
// alone knows what is missing; it queues each model's missing shapes costliest first and hands the
// next one to whichever rank of that model asks, measuring from the same queue itself and answering
// between two of its own measurements. Costliest first on demand is LPT scheduling that also absorbs
// ranks of unequal speed (rank 0's own answering, a slower card). A shape, not a candidate, is the
// unit because its workspace (allocation, random fill, reference) is built once for all its
// candidates. Every measurement is streamed to rank 0 as it is made, and rank 0 appends and flushes
// it to the cache: one writer, and a rank that dies loses only its measurement in flight, those it
// sent that had not yet left it, and the rest of its shape, which the next run measures (OpenMPI
// ends the job when a rank dies).
//
// Messages (JSON text): to rank 0 {"kind": "ready", "after": text} (asks for work),
// {"kind": "measurement", "m": cache line}, {"kind": "stopped"} (interrupted: asks for nothing more);
// from rank 0 {"kind": "work", "dtype", "shape", "missing": [ids], "floor": bool} or {"kind": "stop"}.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>

#include "padtune/candidates/jit_candidates.hpp"
#include "tune_run.hpp"

namespace padtune::tuner::detail {
namespace {

using nlohmann::json;

/// What a shape's work costs, in bytes moved: each measurement moves the payload per sample and an
/// L2 flush (twice the L2) per cold sample, plus a fixed 1 MB for launches; the workspace's fill
/// and reference move the payload once more.
double cost_of(const shape_work& w, const device_fingerprint& device) {
  const double payload = 2.0 * double(w.shape.B) * double(w.shape.C) * double(w.shape.L) * double(size_of(w.type));
  const double measurements = double(w.missing.size()) + (w.floor ? 1 : 0);
  return measurements * (payload + 2.0 * double(device.l2_bytes) + 1e6) + payload;
}

json to_json(const shape_work& w) {
  json ids = json::array();
  for (const instantiation* i : w.missing) ids.push_back(i->id);
  return {{"kind", "work"},
          {"dtype", std::string(name_of(w.type))},
          {"shape", {w.shape.B, w.shape.C, w.shape.L, w.shape.pad_left, w.shape.pad_right}},
          {"missing", ids},
          {"floor", w.floor}};
}

shape_work shape_work_from_json(const json& j) {
  shape_work w;
  const auto type = parse_dtype(j.at("dtype").get<std::string>());
  const auto s = j.at("shape").get<std::vector<long long>>();
  if (!type || s.size() != 5) throw std::runtime_error("rank 0 sent work with no dtype or no shape of 5 numbers: " + j.dump());
  w.type = *type;
  w.shape = shape5{s[0], s[1], s[2], s[3], s[4]};
  for (const auto& id : j.at("missing")) {
    const instantiation* i = find_candidate(id.get<std::string>());  // a JIT id builds its candidate here
    if (!i) throw std::runtime_error(fmt::format("rank 0 sent {}, which this padtune does not have: ranks must run one build",
                                                 id.get<std::string>()));
    w.missing.push_back(i);
  }
  w.floor = j.at("floor").get<bool>();
  return w;
}

/// Test hook (tests/cli/mpi_tune.sh): rank 1 ends at once, as if killed, after this many
/// measurements. Unset or 0: never.
long die_after() {
  const char* v = std::getenv("PADTUNE_TEST_DIE_AFTER");
  return v ? std::strtol(v, nullptr, 10) : 0;
}

/// Test hook (tests/cli/mpi_tune.sh): rank 1 sends itself SIGTERM, as `kill -TERM` of that rank
/// alone, after this many measurements. Unset or 0: never.
long stop_after() {
  const char* v = std::getenv("PADTUNE_TEST_STOP_AFTER");
  return v ? std::strtol(v, nullptr, 10) : 0;
}

/// Test hook (tests/cli/mpi_tune.sh): the rank named by PADTUNE_TEST_SECOND_MODEL claims to be on
/// another device model, "Test Model B", so that one host runs a team of two models.
device_fingerprint claimed_device(device_fingerprint d, int rank) {
  const char* v = std::getenv("PADTUNE_TEST_SECOND_MODEL");
  if (v && *v && std::atoi(v) == rank) d.backend = "cuda", d.name = "Test Model B";
  return d;
}

}  // namespace

tune_report tune_run::run_in_team(work_team& team) {
  rank_ = team.rank();
  report_.rank = rank_;
  measure_settings m = o_.measure;
  plan_work(m);  // every rank plans alike: same build, same arguments
  group_models(team, claimed_device(this_device(), rank_));
  if (rank_ == 0) lead(team, m);
  else follow(team, m);
  report_.worker_starts = worker_ ? worker_->starts() : 0;
  report_.seconds = std::chrono::duration<double>(clock_type::now() - started_).count();
  return report_;
}

/// Every rank learns every rank's device; ranks of one model (same hardware, driver and runtime:
/// what a cache accepts) form one model_run, rank 0's first.
void tune_run::group_models(work_team& team, const device_fingerprint& mine) {
  const std::vector<std::string> devices = team.all_gather(padtune::to_json(mine).dump());
  for (int r = 0; r < team.size(); ++r) {
    const device_fingerprint d = fingerprint_from_json(json::parse(devices[std::size_t(r)]), fmt::format("rank {}'s device", r));
    auto it = std::find_if(models_.begin(), models_.end(), [&](const model_run& x) { return x.device.same_model(d); });
    if (it == models_.end()) {
      it = models_.emplace(models_.end());
      it->device = d;
    }
    it->ranks.push_back(r);
    model_of_rank_.push_back(std::size_t(it - models_.begin()));
  }
  total_ *= models_.size();
}

void tune_run::lead(work_team& team, const measure_settings& m) {
  followers_left_ = team.size() - 1;
  if (models_.size() > 1) {
    if (!o_.table_path.empty() || !o_.cache_path.empty())
      throw results_error(fmt::format("--table and --cache name one file, but the ranks have {} device models: leave them out "
                                      "(each model gets RESULTS_DIR/<gpu>.json)", models_.size()));
    for (std::size_t a = 0; a < models_.size(); ++a)
      for (std::size_t b = a + 1; b < models_.size(); ++b)
        if (models_[a].device.slug() == models_[b].device.slug())
          throw results_error(fmt::format("ranks {} and {} have two device models of one file name {}: '{}' and '{}'; run them "
                                          "apart", models_[a].ranks.front(), models_[b].ranks.front(), models_[a].device.slug(),
                                          models_[a].device.describe(), models_[b].device.describe()));
  }
  std::size_t shapes_to_measure = 0;
  for (model_run& model : models_) {
    open_model(model);
    std::vector<std::pair<double, shape_work>> work;
    for (const auto& [type, shapes] : plan_)
      for (const shape5& s : shapes)
        if (shape_work w = triage(model, type, s); !w.empty()) work.emplace_back(cost_of(w, model.device), std::move(w));
    std::stable_sort(work.begin(), work.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (auto& [cost, w] : work) model.queue.push_back(std::move(w));
    shapes_to_measure += model.queue.size();
  }
  tell(fmt::format("note: {} ranks, {} device model(s); {} shapes to measure", team.size(), models_.size(), shapes_to_measure));
  model_run& mine = models_.front();
  std::optional<std::pair<dtype, shape5>> mine_in_hand;  // rank 0's own shape, until it is done
  std::optional<clock_type::time_point> stopped_at;
  for (;;) {
    between_measurements_ = [&] { serve(team, 0); };
    try {
      while (!stopped() && !mine.queue.empty()) {
        const shape_work w = std::move(mine.queue.front());
        mine.queue.pop_front();
        mine_in_hand.emplace(w.type, w.shape);
        measure(mine, w, m);
        if (!stopped()) mine_in_hand.reset();
      }
    } catch (const std::exception&) {
      if (!stopped()) throw;  // as in a single-process run: a worker stopped by the same signal
    }
    between_measurements_ = nullptr;
    // Once stopped, the others get a while to finish their measurement in flight; a rank that is
    // gone (the launcher is then ending the job) is not waited for.
    const phase_timer clock(report_.phases.waiting);
    while (followers_left_ > 0 && (stopped() || mine.queue.empty())) {
      serve(team, 0.05);
      if (stopped() && !stopped_at) stopped_at = clock_type::now();
      if (stopped_at && clock_type::now() - *stopped_at > std::chrono::seconds(10)) break;
    }
    if (stopped() || mine.queue.empty()) break;  // else a stopped rank's shape came back: measured here
  }
  report_.interrupted = stopped();
  if (report_.interrupted && report_.measured == 0) return;  // stopped before anything was measured: no file changes
  // What was not measured to its end gets no entry: rank 0's shape cut short, a shape whose rank stopped
  // or left with it, and shapes still queued (their cached measurements alone are some of the candidates).
  if (mine_in_hand)
    leave_out_unless_finished(mine, mine_in_hand->first, mine_in_hand->second, "was stopped before all its candidates were measured");
  for (const auto& [rank, shape] : in_hand_)
    leave_out_unless_finished(models_[model_of_rank_.at(std::size_t(rank))], shape.first, shape.second,
                              fmt::format("was being measured by rank {}, which stopped or left before it was done", rank));
  for (model_run& model : models_)
    for (const shape_work& w : model.queue)
      leave_out_unless_finished(model, w.type, w.shape, "was not measured: the team stopped, or its ranks left, before it");
  for (std::size_t k = 0; k < models_.size(); ++k) finish(models_[k], k == 0);  // rank 0 has a GPU of model 0 only
}

void tune_run::take_back(int rank) {
  const auto it = in_hand_.find(rank);
  if (it == in_hand_.end() || stopped()) return;  // the whole team stopping: left out at the end, unless finished
  const auto [type, s] = it->second;
  // What the rank measured of it reached rank 0 and stays; the rest goes to the front of the queue.
  model_run& model = models_[model_of_rank_.at(std::size_t(rank))];
  shape_work rest = rest_of(model, type, s);
  if (rest.empty()) {
    in_hand_.erase(it);
    return;
  }
  // Rank 0 measures its own model's queue to the end; another model's only while one of its ranks is
  // still asking for work (one told to stop asks no more).
  const bool someone = model_of_rank_.at(std::size_t(rank)) == 0 ||
                       std::any_of(model.ranks.begin(), model.ranks.end(),
                                   [&](int r) { return r != rank && r != 0 && !done_followers_.count(r); });
  if (!someone) {  // stays in hand: left out at the end
    tell(fmt::format("note: rank {} stopped during {}, and no other rank of {} is left to measure its {} unmeasured "
                     "candidate(s)", rank, shape_text(type, s), model.device.describe(), rest.missing.size()));
    return;
  }
  tell(fmt::format("note: rank {} stopped during {}: its {} unmeasured candidate(s) go to another rank", rank,
                   shape_text(type, s), rest.missing.size()));
  model.queue.push_front(std::move(rest));
  in_hand_.erase(it);
}

void tune_run::follower_done(int rank) {
  if (done_followers_.insert(rank).second) --followers_left_;
}

/// Rank 0: answers every message that has come, waiting up to wait_seconds for the first.
void tune_run::serve(work_team& team, double wait_seconds) {
  for (auto msg = team.receive(-1, wait_seconds); msg; msg = team.receive(-1, 0)) {
    const json j = json::parse(msg->text);
    model_run& model = models_[model_of_rank_.at(std::size_t(msg->from))];
    const std::string kind = j.at("kind").get<std::string>();
    if (kind == "measurement") {
      record(model, measurement_from_json(j.at("m"), fmt::format("rank {}'s measurement", msg->from)), true);
    } else if (kind == "stopped") {
      take_back(msg->from);  // its shape was cut short, or handed to it as it stopped waiting
      follower_done(msg->from);
    } else if (kind == "ready") {
      if (const auto after = j.find("after"); after != j.end()) tell(fmt::format("rank {}: {}: done", msg->from, after->get<std::string>()));
      in_hand_.erase(msg->from);
      if (stopped() || model.queue.empty()) {
        team.send(msg->from, json{{"kind", "stop"}}.dump());
        follower_done(msg->from);  // a rank stopped while it waited says "stopped" too: counted once
      } else {
        in_hand_[msg->from] = {model.queue.front().type, model.queue.front().shape};
        team.send(msg->from, to_json(model.queue.front()).dump());
        model.queue.pop_front();
      }
    }
  }
}

/// Ranks other than 0: measure what rank 0 hands out, streaming each measurement to it.
void tune_run::follow(work_team& team, const measure_settings& m) {
  model_run& mine = models_[model_of_rank_.at(std::size_t(rank_))];
  const long die = rank_ == 1 ? die_after() : 0, stop = rank_ == 1 ? stop_after() : 0;
  long sent = 0;
  sink_ = [&](const measurement& x) {
    {
      const phase_timer clock(report_.phases.waiting);
      team.send(0, json{{"kind", "measurement"}, {"m", tuner::to_json(x)}}.dump());
    }
    ++sent;
    if (die > 0 && sent >= die) ::_exit(1);  // the test hooks: as abrupt as a kill,
    if (stop > 0 && sent == stop) ::raise(SIGTERM);  // or a signal to this rank alone
  };
  json ready = {{"kind", "ready"}};
  for (;;) {
    team.send(0, ready.dump());
    std::optional<team_message> answer;
    {
      const phase_timer clock(report_.phases.waiting);
      while (!(answer = team.receive(0, 0.1)) && !stopped()) {
      }
    }
    if (!answer) {  // interrupted while waiting: rank 0 hears so and hands this rank nothing more
      team.send(0, json{{"kind", "stopped"}}.dump());
      break;
    }
    const json j = json::parse(answer->text);
    if (j.at("kind") == "stop") break;
    const shape_work w = shape_work_from_json(j);
    try {
      measure(mine, w, m);
    } catch (const std::exception&) {
      if (!stopped()) throw;
    }
    if (stopped()) {
      team.send(0, json{{"kind", "stopped"}}.dump());
      break;
    }
    ready["after"] = shape_text(w.type, w.shape);
  }
  report_.interrupted = stopped();
}

}  // namespace padtune::tuner::detail
