// `padtune tune` and `padtune verify`.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "padtune/search/sweep.hpp"
#include "padtune/search/tune.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/team/work_team.hpp"
#include "commands.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::cli {
namespace {

struct search_options {
  std::string backend_name;
  std::vector<std::string> dtypes, variants;
  std::string filter, sizes_file, results_dir = "results", table, cache, shard, summary;
  std::optional<double> budget;
  bool hot = false, hot_too = false, cold_only = false, exhaustive = false, json = false;
  bool isolate = false, no_isolate = false;
  bool jit = false;
  double candidate_timeout = 60;
};

void add_search_options(CLI::App* cmd, search_options& o) {
  cmd->add_option("--backend", o.backend_name, "cuda or host (default: cuda where a GPU is usable, else host)")
      ->check(CLI::IsMember({"cuda", "host"}));
  // dtype and variant names are checked by make_options, so that an unknown one is exit code 3 (input
  // padtune rejects) as in every other command, not CLI11's 2.
  cmd->add_option("--dtype", o.dtypes, "Only these dtypes (f32 f64 f16 bf16; repeat or list)");
  std::string names;
  for (const variant_info& v : variants()) names += (names.empty() ? "" : " ") + std::string(v.name);
  cmd->add_option("--variant", o.variants, "Only these variants (" + names + "; padtune list --variants)");
  cmd->add_option("--filter", o.filter, "Only instantiation ids matching this regular expression (POSIX extended, found anywhere in the id)");
  cmd->add_option("--sizes", o.sizes_file, "A file of shapes, 'B C L pad_left pad_right' per line");
}

bool cuda_usable() {
  try {
    tuner::cuda_device_fingerprint();
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

/// Fills tune_options from the command line; returns an exit code other than exit_ok on bad input.
int make_options(const search_options& s, tuner::tune_options& o) {
  o.where = s.backend_name.empty() ? (cuda_usable() ? backend::cuda : backend::host)
                                   : (s.backend_name == "cuda" ? backend::cuda : backend::host);
  if (o.where == backend::cuda && !cuda_usable()) {
    try {
      tuner::cuda_device_fingerprint();
    } catch (const std::exception& e) {
      print_error("padtune: --backend cuda, but no GPU is usable: {}\n", e.what());
    }
    return exit_no_device;
  }
  if (!s.dtypes.empty()) {
    o.dtypes.clear();
    for (const std::string& d : s.dtypes) {
      const auto t = parse_dtype(d);
      if (!t) {
        print_error("padtune: --dtype '{}' names no dtype (f32, f64, f16, bf16)\n", printable(d));
        return exit_bad_input;
      }
      o.dtypes.push_back(*t);
    }
  }
  for (const std::string& v : s.variants) {
    // A described variant, or one a test adds to the registry (tests/fault: "fault").
    const bool known = find_variant(v) || std::any_of(registry().begin(), registry().end(),
                                                      [&](const instantiation& i) { return i.variant == v; });
    if (!known) {
      print_error("padtune: --variant '{}' names no variant (see padtune list)\n", printable(v));
      return exit_bad_input;
    }
  }
  o.variants = s.variants;
  o.filter = s.filter;
  try {
    if (!s.sizes_file.empty()) o.sizes = tuner::read_sizes_file(s.sizes_file);
    for (dtype t : o.dtypes)
      if (tuner::candidates_for(t, o).empty()) {
        print_error("padtune: no instantiation of {} matches --variant/--filter\n", name_of(t));
        return exit_bad_input;
      }
  } catch (const std::exception& e) {
    print_error("padtune: {}\n", e.what());
    return exit_code_of(e);
  }
  return exit_ok;
}

/// A bar with the time left on a terminal; a plain line per finished shape otherwise.
tuner::progress_fn make_progress() {
  const bool tty = ::isatty(STDERR_FILENO);
  auto last = std::make_shared<std::chrono::steady_clock::time_point>();
  return [tty, last](std::size_t done, std::size_t total, double eta, const std::string& what) {
    const double pct = total ? 100.0 * double(done) / double(total) : 100.0;
    if (what.rfind("note: ", 0) == 0) {  // a fault, a replaced table: always on its own line
      print_error("{}padtune tune: {}\n", tty ? "\n" : "", what.substr(6));
      return;
    }
    if (tty) {
      const auto now = std::chrono::steady_clock::now();
      if (done != total && now - *last < std::chrono::milliseconds(100)) return;
      *last = now;
      const int width = 30, filled = int(pct / 100 * width);
      // The bar's own carriage return moves the cursor; what it quotes cannot (safe_text).
      fmt::print(stderr, "\r[{}{}] {:5.1f}% {}/{} ~{:.0f}s left  {:<60.60}", std::string(filled, '#'),
                 std::string(width - filled, '.'), pct, done, total, eta, safe_text(what));
      if (done == total) print_error("\n");
    } else if ((what.size() >= 6 && what.compare(what.size() - 6, 6, ": done") == 0) || what.rfind("waiting", 0) == 0) {
      print_error("[{:5.1f}%] {}/{} ~{:.0f}s left: {}\n", pct, done, total, eta, what);
    }
  };
}

/// The run's work team when launched by mpirun or srun --mpi (nullptr otherwise, and with --shard:
/// shards are independent processes that padtune merge combines). Sets *exit_code on refusal.
std::unique_ptr<tuner::work_team> join_team(const search_options& s, int* exit_code) {
  if (!s.shard.empty()) return nullptr;
  try {
    return tuner::join_launched_team();
  } catch (const std::exception& e) {
    print_error("padtune tune: {}\n", e.what());
    *exit_code = exit_usage;
    return nullptr;
  }
}

int run_tune_command(const search_options& s, const std::string& command) {
  int refused = exit_ok;
  const std::unique_ptr<tuner::work_team> team = join_team(s, &refused);
  if (refused != exit_ok) return refused;
  const int rank = team ? team->rank() : 0;
  tuner::tune_options o;
  if (const int rc = make_options(s, o); rc != exit_ok) {
    if (team) team->abort(rc);  // every rank has the same arguments: all refuse, but none may wait
    return rc;
  }
  // A team's rank takes the GPU of its rank on the host.
  const int device = team && o.where == backend::cuda ? tuner::cuda_device_for_local_rank(team->local_rank()) : -1;
  o.team = team.get();
  if (s.budget && (!std::isfinite(*s.budget) || *s.budget <= 0 || *s.budget > 365.0 * 24 * 3600)) {
    print_error("padtune tune: --budget must be a positive number of seconds, at most a year, got {}\n", *s.budget);
    if (team) team->abort(exit_usage);
    return exit_usage;
  }
  o.budget_seconds = s.budget;
  if (s.budget && s.exhaustive) {
    print_error("padtune tune: --budget and --exhaustive exclude each other (one prunes, the other times every candidate in full)\n");
    if (team) team->abort(exit_usage);
    return exit_usage;
  }
  if (s.hot_too && (s.cold_only || s.hot)) {
    print_error("padtune tune: --hot-too adds an L2-hot figure to L2-cold timing: not with --{}\n", s.hot ? "hot" : "cold-only");
    if (team) team->abort(exit_usage);
    return exit_usage;
  }
  o.exhaustive = s.exhaustive;
  o.exact_entries = !o.sizes.empty();  // a user's own shapes: each its own entry
  if (s.jit && o.where != backend::cuda) {
    print_error("padtune tune: --jit needs --backend cuda: JIT kernels are compiled by NVRTC for a GPU, and the "
                       "host backend cannot run them\n");
    return exit_usage;
  }
  o.jit = s.jit;
  if (!s.shard.empty() && !tuner::parse_shard(s.shard, o.shard)) {
    print_error("padtune tune: --shard '{}' is not I/N with 0 <= I < N <= 2147483647\n", printable(s.shard));
    return exit_usage;
  }
  o.results_dir = s.results_dir;
  o.table_path = s.table;
  o.cache_path = s.cache;
  o.summary_path = s.summary;
  o.sizes_path = s.sizes_file;
  o.measure.l2_cold = !s.hot;
  o.measure.hot_too = s.hot_too;
  o.command = command;
  // Isolation by default on the GPU, where a fault poisons the context; the host backend runs in
  // process unless asked, since its candidates are the same code the host tests run.
  if (s.isolate && s.no_isolate) {
    print_error("padtune tune: --isolate and --no-isolate exclude each other\n");
    return exit_usage;
  }
  // At most a year: a longer wait overflows the clock's arithmetic (and is no timeout at all).
  constexpr double longest_timeout = 365.0 * 24 * 3600;
  if (!std::isfinite(s.candidate_timeout) || s.candidate_timeout <= 0 || s.candidate_timeout > longest_timeout) {
    print_error("padtune tune: --candidate-timeout must be a positive number of seconds, at most {:.0f} (a year), got {}\n",
                longest_timeout, s.candidate_timeout);
    return exit_usage;
  }
  if (s.isolate || (o.where == backend::cuda && !s.no_isolate)) {
    o.worker_command = {"/proc/self/exe", "__worker", "--backend", std::string(name_of(o.where))};
    if (o.where == backend::cuda && device >= 0) o.worker_command.insert(o.worker_command.end(), {"--device", std::to_string(device)});
  }
  o.candidate_timeout_seconds = s.candidate_timeout;
  if (o.where == backend::host) {
    print_error("padtune tune: host backend: emulation on the CPU; its timings say nothing about GPU speed\n");
    o.measure.rule = tuner::stop_rule{3, 20, 0.02, 0.02};  // it ranks nothing real: keep it short
    o.retime_rounds = 5;
  }
  // The summary's path is checked before any work, as every output is.
  std::optional<tuner::output_target> summary;
  try {
    if (!s.summary.empty() && rank == 0) summary = tuner::resolve_output(s.summary);
  } catch (const std::exception& e) {
    print_error("padtune tune: --summary {}\n", e.what());
    if (team) team->abort(exit_code_of(e));
    return exit_code_of(e);
  }
  o.interrupted = catch_interrupts();
  tuner::tune_report r;
  int failed = exit_ok;
  try {
    if (team && o.where == backend::cuda && o.worker_command.empty() && device >= 0) tuner::use_cuda_device(device);
    r = tuner::run_tune(o, make_progress());
  } catch (const std::exception& e) {
    print_error("padtune tune: {}{}\n", team ? fmt::format("rank {}: ", rank) : "", e.what());
    failed = exit_code_of(e);
  }
  if (failed != exit_ok) {
    if (team) team->abort(failed);  // the other ranks would wait for this one forever
    return failed;
  }
  if (r.interrupted && !r.wrote_table && rank == 0) {  // a follower writes no table: it says what it sent
    print_error("padtune tune: {}interrupted before any measurement; no file was changed\n",
               team ? fmt::format("rank {}: ", rank) : "");
    return exit_interrupted;
  }
  if (rank != 0) {  // rank 0 reports the run and writes the tables
    print_error("padtune tune: rank {}: {}{} measured in {:.1f} s, streamed to rank 0; {}\n", rank,
               r.interrupted ? "interrupted: " : "", r.measured, r.seconds, tuner::phases_text(r.phases));
    return r.interrupted ? exit_interrupted : exit_ok;
  }
  // An output on standard output keeps it to itself: the report goes to standard error then.
  std::FILE* report = summary && tuner::is_standard_output(*summary) ? stderr : stdout;
  std::vector<std::filesystem::path> outputs = r.other_tables;
  outputs.insert(outputs.end(), {r.table_path, r.cache_path});
  for (const auto& path : outputs) {
    try {
      if (tuner::is_standard_output(tuner::resolve_output(path))) report = stderr;
    } catch (const std::exception&) {
      // written moments ago: a path that no longer resolves is no standard output
    }
  }
  if (s.json) {
    fmt::print(report, "{}\n", json_text(padtune::to_json(r.table)));
  } else {
    print_table(r.table, report);
  }
  print_error("padtune tune: {} measured, {} from the cache, {} failed, {} pruned in {:.1f} s; table {}, cache {}\n",
             r.measured, r.from_cache, r.failed, r.pruned, r.seconds, r.table_path.string(), r.cache_path.string());
  print_error("padtune tune: {}time: {}\n", team ? "rank 0's " : "", tuner::phases_text(r.phases));
  if (team) print_error("padtune tune: {} ranks{}\n", team->size(), r.other_tables.empty() ? "" : "; tables of the other device models:");
  for (const auto& t : r.other_tables) print_error("  {}\n", t.string());
  if (o.jit) {
    std::size_t jit_wins = 0;
    for (const table_entry& e : r.table.entries) jit_wins += is_jit_id(e.winner.id);
    print_error("padtune tune: --jit: JIT kernels (ids jit__...) won {} of {} entries\n", jit_wins, r.table.entries.size());
  }
  if (!o.worker_command.empty())
    print_error("padtune tune: isolated in a worker process: {} faults, {} timeouts (with those from the cache), {} worker starts\n",
               r.faults, r.timeouts, r.worker_starts);
  for (const std::string& u : r.unrunnable) print_error("padtune tune: no candidate ran on {}\n", u);
  if (!r.unrunnable.empty())
    print_error("padtune tune: {} shape(s) got no entry: the table is marked partial (exit 1)\n", r.unrunnable.size());
  if (summary) {
    nlohmann::json j = {{"table", safe_text(r.table_path.string())}, {"cache", safe_text(r.cache_path.string())},
                        {"measured", r.measured}, {"from_cache", r.from_cache}, {"failed", r.failed}, {"pruned", r.pruned},
                        {"seconds", r.seconds}, {"interrupted", r.interrupted}, {"complete", r.table.complete},
                        {"unrunnable", nlohmann::json::array()}, {"other_tables", nlohmann::json::array()}};
    for (const std::string& u : r.unrunnable) j["unrunnable"].push_back(safe_text(u));
    for (const auto& t : r.other_tables) j["other_tables"].push_back(safe_text(t.string()));
    try {
      tuner::write_output(*summary, j.dump(2) + "\n", o.interrupted);
    } catch (const std::exception& e) {
      print_error("padtune tune: --summary {}\n", e.what());
      return exit_code_of(e);
    }
  }
  if (r.interrupted) {
    print_error("padtune tune: interrupted; the table is marked partial, and running again resumes from the cache\n");
    return exit_interrupted;
  }
  return r.unrunnable.empty() ? exit_ok : exit_failed;
}

int run_verify_command(const search_options& s) {
  tuner::tune_options o;
  if (const int rc = make_options(s, o); rc != exit_ok) return rc;
  std::size_t passed = 0, failed = 0;
  for (dtype t : o.dtypes) {
    const std::vector<shape5> shapes = o.sizes.empty() ? tuner::small_sweep() : o.sizes;
    for (const shape5& sh : shapes) {
      std::unique_ptr<tuner::workspace> ws;
      try {
        ws = o.where == backend::cuda ? tuner::make_cuda_workspace(t, sh) : tuner::make_host_workspace(t, sh);
      } catch (const std::exception& e) {
        print_error("padtune verify: {} ({},{},{},{},{}): {}\n", name_of(t), sh.B, sh.C, sh.L, sh.pad_left, sh.pad_right, e.what());
        return exit_failed;
      }
      for (const instantiation* i : tuner::candidates_for(t, o)) {
        const std::string e = ws->verify(*i);
        if (e.empty()) {
          ++passed;
        } else {
          ++failed;
          fmt::print("FAIL {} on ({},{},{},{},{}): {}\n", i->id, sh.B, sh.C, sh.L, sh.pad_left, sh.pad_right, e);
        }
      }
    }
  }
  fmt::print("verify on the {} backend: {} passed, {} failed\n", name_of(o.where), passed, failed);
  return failed ? exit_failed : exit_ok;
}

/// CLI11 reads an empty value of an optional option as "not given": a '' must be refused instead.
const CLI::Validator not_empty([](std::string& text) { return text.empty() ? std::string("is empty") : std::string(); }, "", "not empty");

}  // namespace

void add_tune_command(CLI::App& app, int* result) {
  auto s = std::make_shared<search_options>();
  CLI::App* tune = app.add_subcommand("tune", "Verify and time candidates over a size sweep (or --sizes: exact entries); write results/<gpu>.json");
  add_search_options(tune, *s);
  tune->get_option("--sizes")->description("A file of shapes, 'B C L pad_left pad_right' per line: tune them as exact entries, "
                                           "which the dispatcher takes for those shapes before any bucket");
  tune->add_option("--budget", s->budget,
                   "Successive halving aiming at about this many seconds (positive). Default: the contenders screened with "
                   "a few samples and the close ones timed in full; --exhaustive: every candidate in full")
      ->check(not_empty);
  tune->add_option("--results-dir", s->results_dir, "Where the table and the cache go (default: results)");
  tune->add_option("--table", s->table, "The table's path (default: RESULTS_DIR/<gpu>.json)");
  tune->add_option("--cache", s->cache, "The measurement cache's path (default: RESULTS_DIR/<gpu>.cache.jsonl)");
  tune->add_option("--shard", s->shard, "Tune only shapes I, I+N, I+2N, ... of the sweep (0 <= I < N); merge the shards' "
                   "caches with padtune merge (scripts/slurm-tune.sbatch)")
      ->check(not_empty);
  tune->add_flag("--hot", s->hot, "Time with a warm L2 (default: L2-cold, flushed before every sample)");
  tune->add_flag("--hot-too", s->hot_too, "Also take an L2-hot second figure of each measurement (it never ranks; about 40% more time)");
  tune->add_flag("--cold-only", s->cold_only, "L2-cold figures only: the default (kept for scripts)");
  tune->add_flag("--exhaustive", s->exhaustive,
                 "Every instantiation (not only the contenders: what won or came second in a published table), each "
                 "timed in full (not screened first); the way published tables are made");
  tune->add_flag("--json", s->json, "Print the table as JSON");
  tune->add_option("--summary", s->summary,
                   "Also write the run's summary here as JSON: the table and cache it wrote, what it measured, the shapes "
                   "no candidate ran on (what padtune.tune() reads)");
  tune->add_flag("--jit", s->jit,
                 "Also time JIT kernels (NVRTC, pads compiled in): the twin of each candidate for each distinct "
                 "(pad_left, pad_right) of the sweep, measured on the shapes with those pads; winners' ids say jit__ "
                 "(--backend cuda only)");
  tune->add_flag("--isolate", s->isolate,
                 "Run candidates in a worker process: one that faults or hangs is recorded and the run goes on "
                 "(default with --backend cuda)");
  tune->add_flag("--no-isolate", s->no_isolate, "Run candidates in this process (a GPU fault then ends the run)");
  tune->add_option("--candidate-timeout", s->candidate_timeout,
                   "Isolated runs: seconds a request may take beyond its measuring budget before its worker is "
                   "killed and the candidate recorded as a timeout (default 60)");
  tune->callback([s, result] { *result = run_tune_command(*s, command_line()); });

  auto v = std::make_shared<search_options>();
  CLI::App* verify = app.add_subcommand("verify", "Check candidates bit-exactly against the reference (the small sweep, or --sizes)");
  add_search_options(verify, *v);
  verify->callback([v, result] { *result = run_verify_command(*v); });
}

}  // namespace padtune::cli
