#pragma once
// Strict reading of what users hand padtune (tables, caches, sizes files, command lines), shared by
// the runtime and the tool. Not installed: not part of the API.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "padtune/table.hpp"

namespace padtune {

/// The whole text of an input file: results_error if it does not exist, cannot be opened or is no
/// regular file (a folder, a FIFO, a device); io_error naming the OS error if reading it fails.
std::string read_input_file(const std::filesystem::path& path);

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

}  // namespace padtune
