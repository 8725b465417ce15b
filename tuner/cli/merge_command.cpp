// `padtune merge INPUT...`: tables and caches from several machines into one table per device model.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "padtune/store/file_lock.hpp"
#include "padtune/select/merge.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/store/table_file.hpp"
#include "commands.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::cli {
namespace {

namespace fs = std::filesystem;

struct merge_options {
  std::vector<std::string> inputs;
  std::string output, output_dir, cache_output;
  bool by_device = false;
};

/// Where each merged device's table and cache go; no cache where none was asked for.
struct output_paths {
  tuner::output_target table;
  std::optional<tuner::output_target> cache;
};

/// True if the file's first line is a cache header (read before the lock: a tune appending to the
/// cache never changes its first line).
bool is_cache_file(const fs::path& path) {
  try {
    return tuner::looks_like_cache(read_input_file(path));
  } catch (const std::exception&) {
    return false;  // reading it again, under the lock, says what is wrong with it
  }
}

/// Locks held until the merge is written, each taken once (a second flock of one file by one
/// process would wait for itself): shared for a cache merge only reads (creating no lock file: a
/// folder the user cannot write is readable), exclusive for a cache or table it writes.
class cache_locks {
 public:
  explicit cache_locks(const std::atomic<bool>* interrupted) : interrupted_(interrupted) {}
  void take(const fs::path& cache_target, tuner::file_lock::mode how) {
    const fs::path lock = tuner::lock_path_of(cache_target);
    if (!held_.insert(lock).second) return;
    locks_.push_back(std::make_unique<tuner::file_lock>(
        lock, [&] { print_error("padtune merge: waiting for another padtune holding {} (Ctrl-C stops waiting)\n", lock.string()); },
        interrupted_, how));
  }

 private:
  const std::atomic<bool>* interrupted_;
  std::set<fs::path> held_;
  std::vector<std::unique_ptr<tuner::file_lock>> locks_;
};

/// The real path of an input (links followed), as its cache lock is named.
fs::path real_path(const std::string& path) {
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(path, ec);
  return ec ? fs::path(path) : real;
}

/// Refuses an output that would replace an input of the other kind: a table written over a cache
/// (or a cache over a table) would lose it. A cache over an input cache is their union: allowed.
void refuse_replacing_inputs(const std::vector<tuner::merge_input>& inputs, const tuner::output_target& out, bool out_is_cache,
                             const char* what) {
  for (const tuner::merge_input& in : inputs) {
    if (in.is_cache == out_is_cache) continue;
    tuner::output_target as_output;
    try {
      as_output = tuner::resolve_output(in.path);
    } catch (const tuner::usage_error&) {
      continue;  // an input that could not be an output is not this one
    }
    if (out.same_file(as_output))
      throw tuner::usage_error(fmt::format("{} {} is the input {} {}: writing the merged {} there would lose it", what, out.name(),
                                           in.is_cache ? "cache" : "table", in.path.string(), out_is_cache ? "cache" : "table"));
  }
}

/// Whether the input at `path` is the file `out` (a link and its target are one).
bool is_file(const fs::path& path, const tuner::output_target& out) {
  try {
    return out.same_file(tuner::resolve_output(path));
  } catch (const tuner::usage_error&) {
    return false;  // an input that could not be an output is not this one
  }
}

bool is_input(const std::vector<tuner::merge_input>& inputs, const tuner::output_target& out) {
  return std::any_of(inputs.begin(), inputs.end(), [&](const tuner::merge_input& in) { return is_file(in.path, out); });
}

/// Where each merged device's table and cache go, with every refusal made before anything is written.
std::vector<output_paths> decide_outputs(const merge_options& o, const tuner::merge_result& merged,
                                         const std::vector<tuner::merge_input>& inputs,
                                         const std::optional<tuner::output_target>& table_out,
                                         const std::optional<tuner::output_target>& cache_out) {
  std::vector<output_paths> paths;
  for (const tuner::merged_device& d : merged.devices) {
    output_paths p;
    if (table_out) {
      p.table = *table_out;
      p.cache = cache_out;
    } else {
      const std::string slug = d.table.device.slug();
      p.table = tuner::resolve_output(fs::path(o.output_dir) / (slug + ".json"));
      if (d.cache_text) p.cache = tuner::resolve_output(fs::path(o.output_dir) / (slug + ".cache.jsonl"));
      for (const output_paths& q : paths)
        if (q.table.same_file(p.table))
          throw results_error(fmt::format("two device models would both be written to {}: {} and {}", p.table.name(),
                                          merged.devices.front().table.device.describe(), d.table.device.describe()));
    }
    if (p.cache && !d.cache_text)
      throw results_error(fmt::format("--cache-output {}: no cache among the inputs to merge", p.cache->name()));
    refuse_replacing_inputs(inputs, p.table, false, o.output_dir.empty() ? "-o" : "table");
    if (p.cache) refuse_replacing_inputs(inputs, *p.cache, true, o.output_dir.empty() ? "--cache-output" : "cache");
    paths.push_back(p);
  }
  return paths;
}

int run_merge(const merge_options& o) {
  if (o.output.empty() == o.output_dir.empty()) {
    print_error("padtune merge: give exactly one of -o/--output PATH and --output-dir DIR\n");
    return exit_usage;
  }
  if (o.by_device && o.output_dir.empty()) {
    print_error("padtune merge: --by-device writes one table per device model: it needs --output-dir DIR\n");
    return exit_usage;
  }
  const char* table_option = o.output_dir.empty() ? "-o" : "table";
  tuner::merge_result merged;
  std::vector<output_paths> paths;
  std::vector<std::size_t> kept;  // per output: entries of the table found there that the merge kept
  try {
    // Outputs named on the command line are checked before anything is read.
    std::optional<tuner::output_target> table_out, cache_out;
    if (!o.output.empty()) table_out = tuner::resolve_output(o.output);
    if (!o.cache_output.empty()) cache_out = tuner::resolve_output(o.cache_output);
    if (table_out && cache_out) tuner::refuse_same_file(*table_out, "-o", *cache_out, "--cache-output");
    if (cache_out && cache_out->stream)
      throw tuner::usage_error(fmt::format("--cache-output {}: a cache must be a regular file", cache_out->name()));
    // The files named after the table (its lock, what is set aside) are checked now too.
    if (table_out && !table_out->stream) {
      const std::pair<fs::path, const char*> beside[] = {{tuner::lock_path_of(table_out->target), "lock"},
                                                         {tuner::rejected_table_path(*table_out), "set-aside entries"}};
      for (const auto& [path, what] : beside) {
        try {
          tuner::resolve_output(path);
        } catch (const tuner::usage_error& e) {
          throw tuner::usage_error(fmt::format("-o {}: the table's {}: {}", table_out->name(), what, e.what()));
        }
      }
    }
    // An output is the user's: a cache already there is merged in as one more input (one of other
    // measurements is refused as any input is), and a table there keeps what the merge does not
    // cover (below), as a tune's table does.
    std::vector<std::string> input_paths = o.inputs;
    std::error_code ec;
    if (cache_out && cache_out->exists && fs::file_size(cache_out->target, ec) > 0 && !ec &&
        std::none_of(o.inputs.begin(), o.inputs.end(), [&](const std::string& in) { return is_file(in, *cache_out); }))
      input_paths.push_back(cache_out->given.string());
    // Every writer of a cache holds its lock, and merge reads its input caches whole: it holds theirs
    // too, shared, so a tune appending to one finishes first. A cache it also writes (--cache-output
    // onto an input) is locked exclusively from the start; one it only writes, once every refusal
    // is past, so that a refused merge leaves no lock file behind. Taken in one order, so that two
    // merges cannot wait for each other; the tables' locks come after every cache's, as in tune.
    const std::atomic<bool>* interrupted = catch_interrupts();
    cache_locks locks(interrupted);
    std::map<fs::path, bool> to_lock;  // real path -> also written
    for (const std::string& in : input_paths)
      if (is_cache_file(in)) to_lock[real_path(in)] = false;
    if (cache_out)
      if (const auto it = to_lock.find(real_path(cache_out->target.string())); it != to_lock.end()) it->second = true;
    // With --output-dir the caches written are DIR/<gpu>.cache.jsonl, named by devices not read yet:
    // an input that is one of DIR's *.cache.jsonl (through a link too) may be one, so it is locked
    // exclusively now (a lock taken shared cannot become exclusive without letting a writer in).
    if (!o.output_dir.empty()) {
      std::set<fs::path> in_dir;
      for (const fs::directory_entry& e : fs::directory_iterator(o.output_dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() > 12 && name.ends_with(".cache.jsonl")) in_dir.insert(real_path(e.path().string()));
      }
      for (auto& [cache, written] : to_lock) written |= in_dir.count(cache) > 0;
    }
    for (const auto& [cache, written] : to_lock)
      locks.take(cache, written ? tuner::file_lock::mode::exclusive : tuner::file_lock::mode::shared);

    std::vector<tuner::merge_input> inputs;
    for (const std::string& path : input_paths) inputs.push_back(tuner::read_merge_input(path));
    // Every output is decided before any is written: a refusal leaves no file behind. A cache
    // already in --output-dir joins the inputs, under its lock, and the merge is made again.
    for (;;) {
      merged = tuner::merge(inputs, o.by_device, command_line());
      paths = decide_outputs(o, merged, inputs, table_out, cache_out);
      bool more = false;
      for (const output_paths& p : paths)
        if (p.cache && p.cache->exists && fs::file_size(p.cache->target, ec) > 0 && !ec && !is_input(inputs, *p.cache)) {
          locks.take(real_path(p.cache->target.string()), tuner::file_lock::mode::exclusive);
          inputs.push_back(tuner::read_merge_input(p.cache->given));
          more = true;
        }
      if (!more) break;
    }
    // A table of another device model (or a newer schema) where a table goes is refused before any
    // lock is taken, naming both; then looked at again under the table's lock.
    for (std::size_t k = 0; k < paths.size(); ++k) tuner::inspect_table(paths[k].table, merged.devices[k].table.device, table_option);
    for (const output_paths& p : paths)  // no refusal is left: the caches written are locked now
      if (p.cache) locks.take(real_path(p.cache->target.string()), tuner::file_lock::mode::exclusive);
    bool stale = false;  // an input table that is an output, read before its lock was taken
    for (const output_paths& p : paths) {
      if (p.table.stream) continue;
      locks.take(p.table.target, tuner::file_lock::mode::exclusive);
      for (tuner::merge_input& in : inputs)
        if (!in.is_cache && is_file(in.path, p.table)) in = tuner::read_merge_input(in.path), stale = true;
    }
    if (stale) {
      merged = tuner::merge(inputs, o.by_device, command_line());
      if (merged.devices.size() != paths.size())
        throw results_error("an input table changed while it was merged: run the merge again");
    }
    for (std::size_t k = 0; k < paths.size(); ++k) {
      results_table& t = merged.devices[k].table;
      const tuner::table_on_disk there = tuner::inspect_table(paths[k].table, t.device, table_option);
      if (const std::size_t n = tuner::set_aside(there, paths[k].table))
        print_error("padtune merge: note: {} of {} could not be read: set aside in {}\n",
                    there.unreadable.empty() ? fmt::format("{} entr{}", n, n == 1 ? "y" : "ies") : std::string("the whole table"),
                    paths[k].table.name(), tuner::rejected_table_path(paths[k].table).string());
      const std::size_t made = t.entries.size();
      tuner::keep_other_entries(there, t);
      kept.push_back(t.entries.size() - made);
    }
    for (const std::string& w : merged.warnings) print_error("padtune merge: warning: {}\n", w);
    for (std::size_t k = 0; k < merged.devices.size(); ++k) {
      const tuner::merged_device& d = merged.devices[k];
      tuner::write_output(paths[k].table, table_text(d.table), interrupted);
      if (paths[k].cache) tuner::write_output(*paths[k].cache, *d.cache_text, interrupted);
    }
  } catch (const std::exception& e) {
    print_error("padtune merge: {}\n", e.what());
    return exit_code_of(e);
  }
  // An output on standard output keeps it to itself: the report goes to standard error then.
  std::FILE* report = stdout;
  for (const output_paths& p : paths)
    if (tuner::is_standard_output(p.table) || (p.cache && tuner::is_standard_output(*p.cache))) report = stderr;
  for (std::size_t k = 0; k < merged.devices.size(); ++k) {
    const tuner::merged_device& d = merged.devices[k];
    print_table(d.table, report);
    print_error("padtune merge: {} inputs of {} -> table {}{}{}\n", d.sources.size(), d.table.device.name,
                paths[k].table.name(), paths[k].cache ? ", cache " + paths[k].cache->name() : "",
                kept[k] ? fmt::format("; kept {} entr{} of the table that was there", kept[k], kept[k] == 1 ? "y" : "ies") : "");
  }
  return exit_ok;
}

}  // namespace

void add_merge_command(CLI::App& app, int* result) {
  auto o = std::make_shared<merge_options>();
  CLI::App* cmd = app.add_subcommand(
      "merge", "Combine tables (.json) and measurement caches (.cache.jsonl) of one GPU model from several machines");
  cmd->add_option("INPUT", o->inputs, "Tables and caches, mixed; each is recognised by its content")->required();
  cmd->add_option("-o,--output", o->output, "The merged table");
  cmd->add_option("--output-dir", o->output_dir, "Write DIR/<gpu>.json, and DIR/<gpu>.cache.jsonl where caches were merged");
  cmd->add_option("--cache-output", o->cache_output, "With -o: also write the merged cache here")->excludes("--output-dir");
  cmd->add_flag("--by-device", o->by_device, "Keep inputs of different device models apart: one table each (needs --output-dir)");
  cmd->footer(
      "Inputs merge when measured on one hardware model (name, compute capability, SMs, L2, memory clock and bus\n"
      "width) with the same settings; other drivers or runtimes are merged with a warning. Caches are unioned\n"
      "(a key measured twice: the verification failure, else the lower spread) and a table is selected from\n"
      "them as tune selects; per (dtype, shape), the entry whose winner is fastest relative to memcpy is kept.\n"
      "Merge holds the lock of every cache it reads or writes and of every table it writes, so it waits for a\n"
      "tune that holds one. An output already there that is no input keeps what the merge does not cover (a\n"
      "cache there is merged in); a table of another device model there is refused.");
  cmd->callback([o, result] { *result = run_merge(*o); });
}

}  // namespace padtune::cli
