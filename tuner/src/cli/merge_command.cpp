// `padtune merge INPUT...`: tables and caches from several machines into one table per device model.
#include <fmt/format.h>

#include <memory>

#include "../merge.hpp"
#include "commands.hpp"

namespace padtune::cli {
namespace {

struct merge_options {
  std::vector<std::string> inputs;
  std::string output, output_dir, cache_output;
  bool by_device = false;
};

/// Where each merged device's table and cache go; "" for a cache not asked for.
struct output_paths {
  std::filesystem::path table, cache;
};

int run_merge(const merge_options& o) {
  if (o.output.empty() == o.output_dir.empty()) {
    fmt::print(stderr, "padtune merge: give exactly one of -o/--output PATH and --output-dir DIR\n");
    return exit_usage;
  }
  if (o.by_device && o.output_dir.empty()) {
    fmt::print(stderr, "padtune merge: --by-device writes one table per device model: it needs --output-dir DIR\n");
    return exit_usage;
  }
  tuner::merge_result merged;
  std::vector<output_paths> paths;
  try {
    std::vector<tuner::merge_input> inputs;
    for (const std::string& path : o.inputs) inputs.push_back(tuner::read_merge_input(path));
    merged = tuner::merge(inputs, o.by_device, command_line());
    // Every output is decided before any is written: a refusal leaves no file behind.
    for (const tuner::merged_device& d : merged.devices) {
      output_paths p;
      if (!o.output.empty()) {
        p.table = o.output;
        p.cache = o.cache_output;
      } else {
        const std::string slug = d.table.device.slug();
        p.table = std::filesystem::path(o.output_dir) / (slug + ".json");
        if (d.cache_text) p.cache = std::filesystem::path(o.output_dir) / (slug + ".cache.jsonl");
        for (const output_paths& q : paths)
          if (q.table == p.table)
            throw tuner::results_error(fmt::format("two device models would both be written to {}: {} and {}",
                                                   p.table.string(), merged.devices.front().table.device.describe(),
                                                   d.table.device.describe()));
      }
      if (!p.cache.empty() && !d.cache_text)
        throw tuner::results_error(fmt::format("--cache-output {}: no cache among the inputs to merge", p.cache.string()));
      paths.push_back(p);
    }
    for (const std::string& w : merged.warnings) fmt::print(stderr, "padtune merge: warning: {}\n", w);
    for (std::size_t k = 0; k < merged.devices.size(); ++k) {
      const tuner::merged_device& d = merged.devices[k];
      tuner::write_table(d.table, paths[k].table);
      if (!paths[k].cache.empty()) tuner::write_file_atomic(paths[k].cache, *d.cache_text);
    }
  } catch (const tuner::results_error& e) {
    fmt::print(stderr, "padtune merge: {}\n", e.what());
    return exit_bad_input;
  } catch (const std::filesystem::filesystem_error& e) {
    fmt::print(stderr, "padtune merge: {}\n", e.what());
    return exit_bad_input;
  }
  for (std::size_t k = 0; k < merged.devices.size(); ++k) {
    const tuner::merged_device& d = merged.devices[k];
    print_table(d.table);
    fmt::print(stderr, "padtune merge: {} inputs of {} -> table {}{}\n", d.sources.size(), d.table.device.name,
               paths[k].table.string(), paths[k].cache.empty() ? "" : ", cache " + paths[k].cache.string());
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
      "them as tune selects; per bucket, the entry whose winner is fastest relative to memcpy is kept.");
  cmd->callback([o, result] { *result = run_merge(*o); });
}

}  // namespace padtune::cli
