#pragma once
// Problem sizes to tune over: the default sweep over the buckets, a small one for the host backend,
// or a file.
#include <filesystem>
#include <string>
#include <vector>

#include "padtune/dtype.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// One row length per log2 bucket from 1 to 2^20 (powers of two and odd lengths in turn) by row
/// counts 4^j from 1 to 2^22, pad_left in each alignment class of the dtype in turn (2 to 16 bytes;
/// a third of them negative), payloads (2*B*C*L*sizeof(T)) from 4 KB to 1 GB; then the performance
/// suite (suites.hpp), P10's 17 GB included.
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

/// The largest sizes file padtune reads: about 500000 shapes.
inline constexpr std::size_t max_sizes_file_bytes = std::size_t(16) << 20;

/// Reads "B C L pad_left pad_right" per line (commas or spaces; '#' starts a comment). Throws
/// results_error naming the file and line for text that is not a valid shape, or a file over
/// max_sizes_file_bytes.
std::vector<shape5> read_sizes_file(const std::filesystem::path& path);
/// The same on text; `source` names it in errors.
std::vector<shape5> parse_sizes(const std::string& text, const std::string& source);

}  // namespace padtune::tuner
