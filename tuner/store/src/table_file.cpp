#include "padtune/store/table_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "padtune/detail/input.hpp"

namespace padtune::tuner {

table_on_disk inspect_table(const output_target& out, const device_fingerprint& device, const char* option) {
  const bool merging = std::string_view(option) != "--table";
  const char* nothing = merging ? "nothing was written" : "nothing was measured or written";
  table_on_disk found;
  if (out.stream) return found;  // a device or FIFO is not read back
  // Looked at now, not when the path was resolved: another run may have written it since (under the
  // cache's lock, which this run waited for).
  std::error_code ec;
  if (!std::filesystem::exists(out.target, ec)) return found;
  const std::string name = out.name();
  const std::string text = read_input_file(out.target, max_table_bytes, "table");
  try {
    found.table = parse_table_keeping_good(text, name, found.rejected);
  } catch (const newer_schema_error& e) {
    throw results_error(fmt::format("{} {}; {}", option, e.what(), nothing));
  } catch (const results_error& e) {
    found.unreadable = e.what();
    found.unreadable_text = text;
    found.rejected.clear();
    return found;
  }
  const device_fingerprint& theirs = found.table->device;
  if (!theirs.same_model(device))
    throw results_error(fmt::format("{} {} is a table of {}; this {} {}: it would replace that table's {} entries, so it is "
                                    "refused. N{}: move the file away or pass another {}", option, name, theirs.describe(),
                                    merging ? "merge writes" : "run measures", device.describe(), found.table->entries.size(),
                                    nothing + 1, std::string_view(option) == "table" ? "--output-dir" : option));
  return found;
}

std::filesystem::path rejected_table_path(const output_target& out) { return out.target.string() + ".rejected"; }

std::size_t set_aside(const table_on_disk& found, const output_target& out) {
  if (!found.has_something_to_set_aside()) return 0;
  const std::filesystem::path aside_path = rejected_table_path(out);
  std::string aside;
  std::error_code ec;
  if (std::filesystem::exists(aside_path, ec)) aside = read_input_file(aside_path);  // kept: earlier runs' pieces
  if (!found.unreadable.empty()) {
    aside += fmt::format("# {}: the whole table {} set aside by padtune {} before it was replaced: {}\n", utc_now(), out.name(),
                         harness_version, found.unreadable);
    aside += found.unreadable_text;
    if (!found.unreadable_text.empty() && found.unreadable_text.back() != '\n') aside += '\n';
  } else {
    aside += fmt::format("# {}: {} entr{} of {} set aside by padtune {} (entries[index]: why, then the entry as it was)\n",
                         utc_now(), found.rejected.size(), found.rejected.size() == 1 ? "y" : "ies", out.name(), harness_version);
    for (const rejected_entry& r : found.rejected) aside += fmt::format("# entries[{}]: {}\n{}\n", r.index, r.why, r.text);
  }
  write_output(aside_path, aside);
  return found.unreadable.empty() ? found.rejected.size() : 1;
}

void keep_other_entries(const table_on_disk& found, results_table& t) {
  if (!found.table) return;
  // Covered means measured again at its own shape: a bucket holds several entries (the vote weighs each
  // at its shape), and a run over part of a bucket (a shard, --sizes, a stopped run) must not drop the
  // others. Covered by the new table, not by an old entry kept before.
  const std::size_t made = t.entries.size();
  for (const table_entry& e : found.table->entries) {
    const bool covered = std::any_of(t.entries.begin(), t.entries.begin() + std::ptrdiff_t(made),
                                     [&](const table_entry& n) { return same_place(n, e); });
    if (!covered) t.entries.push_back(e);
  }
  std::stable_sort(t.entries.begin(), t.entries.end(),
                   [](const table_entry& a, const table_entry& b) { return entry_order(a) < entry_order(b); });
}

}  // namespace padtune::tuner
