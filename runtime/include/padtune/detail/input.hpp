#pragma once
// Strict reading of what users hand padtune (tables, caches, sizes files, command lines), shared by
// the runtime and the tool. Not installed: not part of the API.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <utility>

#include "padtune/dtype.hpp"
#include "padtune/input_errors.hpp"
#include "padtune/shape5.hpp"

namespace padtune {

/// The largest input file of any kind padtune reads whole: a measurement cache (the H200's
/// exhaustive one, 30000 lines, is 9 MB); tables (max_table_bytes) and sizes files have smaller limits.
inline constexpr std::size_t max_input_bytes = std::size_t(1) << 30;

/// The whole text of an input file: results_error if it does not exist, cannot be opened, is no
/// regular file (a folder, a FIFO, a device) or holds more than max_bytes (naming the file, its size,
/// the limit and `kind`: "table"); io_error naming the OS error if reading it fails.
std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes = max_input_bytes,
                            std::string_view kind = "input file");

/// JSON text parsed with its nesting bounded (results_error naming `source` past max_depth levels,
/// before anything deeper is built: deep nesting would exhaust the stack in nlohmann's recursive
/// copies and dumps) and strict (no comments); results_error naming `source` for text that is not JSON.
nlohmann::json parse_json(const std::string& text, const std::string& source, int max_depth = 16);

/// The whole of a JSON integer in [min, max]; results_error naming `where` for a float, a string or a
/// value out of range (2^64-1 is not -1; 8.5 is not 8).
long long strict_integer(const nlohmann::json& v, const std::string& where, long long min, long long max);
/// A shape [B, C, L, pad_left, pad_right] of integers that is a valid problem of `type` (byte counts
/// within 64 bits, OL >= 0); results_error naming `where` otherwise.
shape5 strict_shape(const nlohmann::json& v, dtype type, const std::string& where);
/// A finite number >= min; results_error naming `where` otherwise.
double strict_number(const nlohmann::json& v, const std::string& where, double min);

/// Text quoted from a file or a command line, with bytes outside printable ASCII written \xNN.
std::string printable(std::string_view text, std::size_t max_chars = 80);

/// Text for a terminal or a JSON string, whole: valid UTF-8 stays as it is, but control characters
/// (other than newline and tab; C1 controls too) and bytes that are not UTF-8 are written \xNN, so
/// that no path, environment value or file quoted in a message can move a terminal's cursor or
/// retitle it, and every string padtune writes into JSON is valid UTF-8.
std::string safe_text(std::string_view text);

/// A message on standard error, through safe_text: every message that may quote a path, a file or an
/// environment value is printed so.
template <class... Args>
void print_error(fmt::format_string<Args...> format, Args&&... args) {
  std::fputs(safe_text(fmt::format(format, std::forward<Args>(args)...)).c_str(), stderr);
}

}  // namespace padtune
