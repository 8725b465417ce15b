// `padtune list`: every compiled instantiation, as a table or as JSON.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "commands.hpp"
#include "padtune/detail/input.hpp"
#include "padtune/registry.hpp"
#include "padtune/search/id_filter.hpp"
#include "padtune/table.hpp"

namespace padtune::cli {
namespace {

struct list_options {
  std::string filter;
  bool json = false;
  bool variants = false;
};

/// The variants as their descriptions say (kernels/device/variants.cuh): what scripts read instead of
/// keeping a list of their own.
int run_list_variants(const list_options& o) {
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const variant_info& v : variants()) {
      std::size_t count = 0;
      for (const instantiation& i : registry()) count += i.variant == v.name;
      out.push_back({{"name", v.name},
                     {"idea", v.idea},
                     {"needs_zeroed_dx", v.needs_zeroed_dx},
                     {"takes_width", v.takes_width},
                     {"instantiations", count},
                     {"template", fmt::format("padtune::detail::{}_variant::kernel<T, BLOCK_OL, MAX_THREADS, W>", v.name)}});
    }
    fmt::print("{}\n", json_text(out));
    return exit_ok;
  }
  for (const variant_info& v : variants())
    fmt::print("{:<8} {}{}\n", v.name, v.idea, v.needs_zeroed_dx ? " (needs dx zeroed)" : "");
  return exit_ok;
}

int run_list(const list_options& o) {
  if (o.variants) return run_list_variants(o);
  std::vector<const instantiation*> chosen;
  try {
    const tuner::id_filter filter(o.filter);
    for (const instantiation& i : registry())
      if (filter.matches(i.id)) chosen.push_back(&i);
  } catch (const results_error& e) {
    print_error("padtune list: {}\n", e.what());
    return exit_bad_input;  // as in tune
  }

  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const instantiation* i : chosen)
      out.push_back({{"id", i->id},
                     {"variant", i->variant},
                     {"dtype", name_of(i->type)},
                     {"block_ol", i->block_ol},
                     {"threads", i->threads},
                     {"access_width", i->access_width},
                     {"needs_zeroed_dx", i->needs_zeroed_dx},
                     {"backends", {"cuda", "host"}}});
    fmt::print("{}\n", json_text(out));
    return exit_ok;
  }
  fmt::print("{:<58} {:<8} {:<5} {:>8} {:>7} {:>6} {}\n", "id", "variant", "dtype", "BLOCK_OL", "threads", "width",
             "needs zeroed dx");
  for (const instantiation* i : chosen)
    fmt::print("{:<58} {:<8} {:<5} {:>8} {:>7} {:>6} {}\n", i->id, i->variant, name_of(i->type), i->block_ol,
               i->threads, i->access_width, i->needs_zeroed_dx ? "yes" : "no");
  fmt::print("{} of {} instantiations\n", chosen.size(), registry().size());
  return exit_ok;
}

}  // namespace

void add_list_command(CLI::App& app, int* result) {
  auto opts = std::make_shared<list_options>();
  CLI::App* cmd = app.add_subcommand("list", "Print every compiled instantiation");
  cmd->add_option("--filter", opts->filter, "Only ids that match this regular expression (POSIX extended, found anywhere in the id)");
  cmd->add_flag("--json", opts->json, "Print JSON instead of a table");
  cmd->add_flag("--variants", opts->variants, "Print the variants of the family instead of the instantiations");
  cmd->callback([opts, result] { *result = run_list(*opts); });
}

}  // namespace padtune::cli
