#pragma once
// The tune run's inside, shared by the single-process run (tune.cpp) and the team run
// (tune_team.cpp): what is missing, how it is measured, where measurements go, how a table is made.
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "padtune/store/file_lock.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/store/table_file.hpp"
#include "padtune/search/tune.hpp"
#include "padtune/team/work_team.hpp"
#include "padtune/isolate/worker.hpp"
#include "strategy.hpp"

namespace padtune::tuner::detail {

/// The work left on one (dtype, shape): the candidates the cache cannot answer for, and the floor.
struct shape_work {
  dtype type = dtype::f32;
  shape5 shape;
  std::vector<const instantiation*> missing;
  bool floor = false;  ///< the memcpy floor is missing too
  bool empty() const { return missing.empty() && !floor; }
};

/// One device model of a run: its cache and table (opened by the writer only) and its measurements.
/// A single-process run has one; a team run one per model among its ranks.
struct model_run {
  device_fingerprint device;
  std::vector<int> ranks;  ///< the team's ranks on this model
  std::filesystem::path table_path, cache_path;  ///< as given (or defaulted): what messages name
  output_target table, cache_file;              ///< resolved and checked
  std::unique_ptr<file_lock> lock;
  std::unique_ptr<measurement_cache> cache;
  std::vector<measurement> all;
  std::deque<shape_work> queue;  ///< team runs: the shapes still to hand out, costliest first
  std::set<std::string> left_out;  ///< shapes (shape_text) not measured to their end: no entry (leave_out)
};

std::string shape_text(dtype type, const shape5& s);

/// Adds the wall time of its scope to one of tune_phases' figures, an exception's way out included.
class phase_timer {
 public:
  explicit phase_timer(double& seconds) : seconds_(seconds) {}
  ~phase_timer() { seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  phase_timer(const phase_timer&) = delete;
  phase_timer& operator=(const phase_timer&) = delete;

 private:
  double& seconds_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

class tune_run {
 public:
  tune_run(const tune_options& o, const progress_fn& progress) : o_(o), progress_(progress) {}
  tune_report run();
  /// The run as one rank of a team: rank 0 plans, measures and writes; the others measure what it
  /// hands them (tune_team.cpp).
  tune_report run_in_team(work_team& team);

 private:
  using clock_type = std::chrono::steady_clock;

  bool stopped() const { return o_.interrupted && o_.interrupted->load(); }
  bool isolated() const { return !o_.worker_command.empty(); }
  device_fingerprint this_device();
  std::unique_ptr<workspace> make_workspace(dtype type, const shape5& s) const;
  void plan_work(measure_settings& m);
  void open_model(model_run& model);
  void refuse_other_outputs(const model_run& model) const;
  /// Records what the model's cache already answers for on (type, s) and returns the rest.
  shape_work triage(model_run& model, dtype type, const shape5& s);
  void measure(model_run& model, const shape_work& w, const measure_settings& m);
  void record(model_run& model, measurement m, bool fresh);
  /// Takes a shape not measured to its end (a stop cut it short, its rank left) out of the model's
  /// measurements, not the cache: the table gets no entry made of some of its candidates, keeps the old
  /// table's entry there, and is partial.
  void leave_out(model_run& model, dtype type, const shape5& s, const std::string& why);
  /// The candidates of (type, s), and the floor, with no measurement of any status in the model's
  /// measurements: empty once the shape is finished (a stop after its last one cut nothing short).
  shape_work rest_of(const model_run& model, dtype type, const shape5& s) const;
  /// leave_out, unless the shape is finished.
  void leave_out_unless_finished(model_run& model, dtype type, const shape5& s, const std::string& why);
  void tell(const std::string& what);
  /// ws.verify(i) and ws.time(...), with their wall time (and samples) added to the report's phases.
  std::string verified(workspace& ws, const instantiation& i);
  timing timed(const std::function<timing()>& take);
  template <class Step>
  bool survived(model_run& model, const std::string& id, dtype type, const shape5& s, Step&& step);
  // The steps a search strategy takes (strategy.hpp) on one shape: shape_steps_of_run (tune.cpp).
  friend class shape_steps_of_run;
  /// Selects the model's table and writes it; finalists are re-timed here when `retime_here`,
  /// else their cached timings stand in (a model whose GPU this process does not have).
  void finish(model_run& model, bool retime_here);
  results_table select(model_run& model, bool retime_here);
  /// The model's planned shapes that no candidate ran on to a timing (each with its first failure):
  /// they get no entry, and the table is not complete.
  std::vector<std::string> unrunnable(const model_run& model) const;

  // The team run (tune_team.cpp).
  void group_models(work_team& team, const device_fingerprint& mine);
  void lead(work_team& team, const measure_settings& m);
  void serve(work_team& team, double wait_seconds);
  void follow(work_team& team, const measure_settings& m);
  /// Rank 0: a follower that will send nothing more (told to stop, or stopped by a signal).
  void follower_done(int rank);
  /// Rank 0: a follower stopped with a shape in hand; while the team goes on, the shape's unmeasured
  /// candidates go back to the front of its model's queue.
  void take_back(int rank);

  const tune_options& o_;
  const progress_fn& progress_;
  const std::unique_ptr<search_strategy> strategy_ = make_strategy(o_);
  std::vector<std::pair<dtype, std::vector<shape5>>> plan_;
  std::map<dtype, std::vector<const instantiation*>> candidates_;
  std::unique_ptr<worker_client> worker_;  ///< isolated runs: the worker, started again after a fault
  std::vector<model_run> models_;
  /// Team runs: where a fresh measurement goes instead of a cache (ranks other than 0), and what
  /// runs between two measurements (rank 0 answers the others).
  std::function<void(const measurement&)> sink_;
  std::function<void()> between_measurements_;
  std::vector<std::size_t> model_of_rank_;
  int rank_ = 0, followers_left_ = 0;
  std::set<int> done_followers_;
  std::map<int, std::pair<dtype, shape5>> in_hand_;  ///< rank 0: the shape each follower measures now
  clock_type::time_point started_ = clock_type::now();
  std::size_t total_ = 0, done_ = 0, fresh_done_ = 0;
  double fresh_seconds_ = 0;
  tune_report report_;
};

}  // namespace padtune::tuner::detail
