#pragma once
// The search: candidates from the registry x problem sizes, each verified then timed (or taken from
// the cache), the best per measured (dtype, shape) selected and written as the results table.
#include <atomic>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "padtune/store/cache.hpp"
#include "padtune/measure/workspace.hpp"
#include "padtune/table.hpp"
#include "padtune/select/selection.hpp"
#include "padtune/search/sweep.hpp"

namespace padtune::tuner {

class work_team;

struct tune_options {
  backend where = backend::cuda;
  std::vector<dtype> dtypes{std::begin(all_dtypes), std::end(all_dtypes)};
  std::vector<std::string> variants;  ///< empty: every variant
  /// Also the JIT twins of the candidates for each distinct pads of the sweep (jit_candidates.hpp);
  /// CUDA backend only. Each is measured only on the shapes with its pads.
  bool jit = false;
  std::string filter;                 ///< POSIX extended regex over ids (id_filter.hpp); empty: every id
  std::vector<shape5> sizes;          ///< empty: the default sweep (cuda) or the small sweep (host)
  /// The table's entries, one per shape: exact (padtune tune --sizes: served to that shape alone),
  /// or the sweep's (voters for the shapes near them).
  bool exact_entries = false;
  sweep_shard shard;                  ///< this machine's share of those shapes (--shard I/N)
  std::optional<double> budget_seconds;  ///< set: successive halving aiming at this many seconds
  /// false (the default): the contenders (contenders()) unless --variant or --filter choose, each
  /// screened with a few samples, the close ones timed in full (tune_run::screen). true: every
  /// candidate, each timed in full.
  bool exhaustive = false;
  std::filesystem::path table_path, cache_path;  ///< empty: results/<gpu>.json and .cache.jsonl
  std::filesystem::path summary_path;  ///< the CLI's --summary (written by the CLI): refused where it is the table or cache
  std::filesystem::path sizes_path;    ///< the file `sizes` came from: refused as any output
  std::filesystem::path results_dir = "results";
  measure_settings measure;
  int retime_rounds = 30;  ///< interleaved samples per finalist when selecting
  std::string command;
  const std::atomic<bool>* interrupted = nullptr;  ///< set by a signal handler: stop, keep what is done
  /// Set: every candidate runs in a worker process started with this command (worker.hpp), and
  /// one that faults or hangs is recorded ("fault", "timeout") while the run goes on; the device is
  /// then the worker's. Empty: in this process, where a fault ends the run.
  std::vector<std::string> worker_command;
  double candidate_timeout_seconds = 60;  ///< isolated: what a request may take beyond its own budget
  /// Set, of more than one rank: this process is one rank of a run launched together (work_team.hpp).
  /// Rank 0 plans, hands out (dtype, shape) work, measures too, and alone writes caches and tables,
  /// one per device model among the ranks; the others measure and stream what they measure to it.
  work_team* team = nullptr;
};

/// Progress for the CLI: done and total pairs, the seconds the rest should take, and a line.
using progress_fn = std::function<void(std::size_t done, std::size_t total, double eta_seconds, const std::string& what)>;

/// Where one process's wall time went, in seconds: the figures that tell a slow phase from a slow
/// kernel (a team's ranks each report their own). Not in any figure: planning, starting the
/// worker, and rank 0's answers to the other ranks between its own measurements (their cache lines
/// included).
struct tune_phases {
  double workspaces = 0;    ///< each shape's buffers, random fill and reference
  double verify = 0;        ///< candidates' launches compared against the reference
  double timing = 0;        ///< the timed samples, the memcpy floor's included
  double selection = 0;     ///< finalists re-timed, tables written
  double waiting = 0;       ///< team runs: sending to rank 0 and waiting for its work, or for the other ranks
  std::size_t samples = 0;  ///< timed samples of the fresh measurements (cold and hot)
};

struct tune_report {
  results_table table;
  std::filesystem::path table_path, cache_path;
  std::size_t measured = 0, from_cache = 0, failed = 0, pruned = 0;
  std::size_t faults = 0, timeouts = 0;  ///< of failed: candidates that ended or outlived their worker
  int worker_starts = 0;                 ///< isolated: workers started (1 + restarts after faults)
  int rank = 0;                          ///< team runs: this rank; only rank 0's report has tables
  std::vector<std::filesystem::path> other_tables;  ///< team runs: tables of the other device models
  double seconds = 0;
  tune_phases phases;
  bool interrupted = false;
  bool wrote_table = false;  ///< false for an interrupted run that measured nothing: it changes no file
  /// Shapes asked for on which no candidate ran ("f32 (2,3,10,2,1): launch_failed: workspace: ..."):
  /// the table is written without them and marked partial, and the command fails (exit 1).
  std::vector<std::string> unrunnable;
};

/// One line: "1.2 s workspaces, 0.4 s verify, 9.8 s timing (51000 samples, 192 us each), ...".
std::string phases_text(const tune_phases& p);

/// What won or came second for the dtype in a table the library embeds (results/*.json) measured on
/// this backend by an exhaustive search; empty when there is none.
std::vector<const instantiation*> contenders(dtype type, backend where);

/// The table's "search" setting for these options.
std::string search_name(const tune_options& o);

/// Candidates for a dtype: after --variant and --filter, or without them the contenders (every
/// candidate with --exhaustive, or when there are none). Throws results_error on a bad regex.
std::vector<const instantiation*> candidates_for(dtype type, const tune_options& o);

/// Runs the search. Throws usage_error for outputs that cannot be written (checked before any
/// work), interrupted_error for a wait cut short (the lock of a cache another run holds),
/// results_error for a foreign cache, io_error for a failed read or write, and
/// std::runtime_error when the backend cannot run.
tune_report run_tune(const tune_options& o, const progress_fn& progress);

}  // namespace padtune::tuner
