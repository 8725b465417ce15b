#pragma once
// The table a `padtune tune` writes, as it finds it on disk first: a tune never destroys a table.
// - A table of a newer schema (a newer padtune's) or of another device model is refused before any
//   work (results_error, exit 3), naming both, as a cache of another device is.
// - A table that cannot be read at all is set aside whole in TABLE.rejected; one whose header reads
//   keeps every entry that reads, and only the others are set aside. Nothing is dropped.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "padtune/store/output_file.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// What a tune finds where its table goes.
struct table_on_disk {
  std::optional<results_table> table;  ///< the header and the entries that read; none if absent or unreadable
  std::string unreadable;              ///< why the file as a whole could not be read ("" if it could, or is absent)
  std::string unreadable_text;         ///< that file's bytes, to set aside
  std::vector<rejected_entry> rejected;  ///< entries that did not read
  bool has_something_to_set_aside() const { return !unreadable.empty() || !rejected.empty(); }
};

/// Reads the table at `out` (nothing for a stream or a path that does not exist). Throws
/// results_error if it must not be replaced by a table of `device`: a newer schema, another device
/// model (a different driver or runtime included, as for caches); io_error if it cannot be read.
/// `option` names the path in refusals: "--table" (tune), "-o" or "table" (merge, -o or --output-dir).
table_on_disk inspect_table(const output_target& out, const device_fingerprint& device, const char* option = "--table");

/// TABLE.rejected beside the table's real path.
std::filesystem::path rejected_table_path(const output_target& out);

/// Appends what `found` could not read to rejected_table_path(out), each piece with why, and
/// returns how many pieces (the whole file counts one).
std::size_t set_aside(const table_on_disk& found, const output_target& out);

/// Adds to `t` the entries of `found` that `t` does not cover, in entry order: an entry is covered by
/// one of its place (same_place: kind, dtype and problem), so a table made over part of the space (some
/// dtypes, other sizes, a shard, a merge of a few shards) keeps the rest, several to a bucket too.
void keep_other_entries(const table_on_disk& found, results_table& t);

}  // namespace padtune::tuner
