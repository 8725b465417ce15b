// `padtune show FILE`: a results table as a readable table (or its JSON).
#include <fmt/format.h>

#include <memory>

#include <nlohmann/json.hpp>

#include "padtune/table.hpp"
#include "commands.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::cli {

std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', /*ensure_ascii=*/true, nlohmann::json::error_handler_t::replace);
}

// Every text of a table came from a file: printed through safe_text, it cannot drive the terminal.
void print_table(const results_table& t, std::FILE* to) {
  fmt::print(to, "{} ({} backend{}), padtune {}, {}{}\n", safe_text(t.device.name), safe_text(t.device.backend),
             t.device.backend == "host" ? ": emulation, timings say nothing about GPU speed" : "", safe_text(t.harness),
             safe_text(t.created), t.complete ? "" : ", PARTIAL: the run was interrupted or some shapes could not be measured (its log says which)");
  fmt::print(to, "{:<5} {:<13} {:<34} {:<58} {:>10} {:>8} {:>7} {:>8}\n", "dtype", "bucket", "shape (B,C,L,pl,pr)", "winner",
             "median us", "GB/s", "x copy", "margin");
  for (const table_entry& e : t.entries)
    fmt::print(to, "{:<5} {:<13} {:<34} {:<58} {:>10.2f} {:>8.1f} {:>7.3f} {:>7.1f}%\n", name_of(e.type), e.where.name(),
               fmt::format("({},{},{},{},{})", e.shape.B, e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right),
               safe_text(e.winner.id), e.winner.median_us, e.winner.gbps, e.winner.ratio_to_memcpy, 100 * e.margin);
  fmt::print(to, "{} entries; 'x copy' is the winner's time over a device-to-device memcpy of the same payload\n", t.entries.size());
  std::size_t jit_wins = 0;
  for (const table_entry& e : t.entries) jit_wins += is_jit_id(e.winner.id);
  if (jit_wins)  // only tables of padtune tune --jit: the others print as before
    fmt::print(to, "{} of {} winners are JIT kernels (jit__..., pads compiled in); the dispatcher runs ahead-of-time kernels "
               "and takes their runner-up, or leaves the entry to its neighbours\n",
               jit_wins, t.entries.size());
}

void add_show_command(CLI::App& app, int* result) {
  struct options {
    std::string file;
    bool json = false;
  };
  auto o = std::make_shared<options>();
  CLI::App* cmd = app.add_subcommand("show", "Print a results table (results/<gpu>.json) as a readable table");
  cmd->add_option("FILE", o->file, "The results table")->required();
  cmd->add_flag("--json", o->json, "Print the table's JSON instead");
  cmd->callback([o, result] {
    try {
      const results_table t = read_table(o->file);
      if (o->json) fmt::print("{}\n", json_text(padtune::to_json(t)));
      else print_table(t);
      *result = exit_ok;
    } catch (const std::exception& e) {
      print_error("padtune show: {}\n", e.what());
      *result = exit_code_of(e);
    }
  });
}

}  // namespace padtune::cli
