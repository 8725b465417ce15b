#pragma once
// Problem sizes to tune over: the default sweep over the buckets, a small one for the host backend,
// or a file.
#include <filesystem>
#include <string>
#include <vector>

#include "padtune/dtype.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// Row lengths 1 to 2^20 and row counts 1 to 2^22 in steps of 8x, pad_left aligned to 16 bytes
/// and not, keeping payloads (2*B*C*L*sizeof(T)) from 4 KB to 2 GB; then the performance suite
/// (suites.hpp), P10's 17 GB included.
std::vector<shape5> default_sweep(dtype type);

/// A handful of small shapes that cover short and long rows, aligned and not, for the host backend.
std::vector<shape5> small_sweep();

/// One machine's share of a sweep split across many (scripts/slurm-tune.sbatch): shapes index,
/// index + count, index + 2*count, ... of the planned order. {0, 1} is the whole sweep.
struct sweep_shard {
  int index = 0, count = 1;
};
/// The shapes of `shard`; pre: 0 <= index < count.
std::vector<shape5> take_shard(const std::vector<shape5>& shapes, sweep_shard shard);
/// Parses "I/N" (0 <= I < N); false for anything else.
bool parse_shard(const std::string& text, sweep_shard& out);

/// Reads "B C L pad_left pad_right" per line (commas or spaces; '#' starts a comment). Throws
/// results_error naming the file and line for text that is not a valid shape.
std::vector<shape5> read_sizes_file(const std::filesystem::path& path);
/// The same on text; `source` names it in errors.
std::vector<shape5> parse_sizes(const std::string& text, const std::string& source);

}  // namespace padtune::tuner
