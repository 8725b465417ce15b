#pragma once
// The raw measurement cache beside a results table: JSON lines, a header that names the software
// and the device, then one line per finished measurement, appended and flushed as soon as it is
// made, so a run that is killed loses only the measurement in flight and the next run resumes.
// A line that cannot be read (a disk error, an edit) costs only itself: a run sets it aside in
// CACHE.rejected, with its line number and why, and goes on with the others.
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "padtune/measure/workspace.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// A hash of the kernel sources (kernels/device, kernels/launch) and the CUDA compiler's version,
/// computed by CMake: measurements of other kernel code are not reused.
extern const char* const kernel_sources_hash;

/// One finished measurement of one instantiation (or of the memcpy floor) on one shape.
struct measurement {
  std::string id;       ///< instantiation id, or memcpy_floor_id
  dtype type = dtype::f32;
  shape5 shape;
  /// "ok", "verify_failed", "launch_failed", "pruned" (budgeted search); in isolated runs also
  /// "fault" (it ended its worker: a signal, a sticky CUDA error) and "timeout".
  std::string status;
  std::string error;
  timing t;
  double limit_seconds = 0;  ///< "timeout": the --candidate-timeout it ran past (a longer one retries it)
};

inline constexpr const char* memcpy_floor_id = "cudaMemcpyAsync_d2d";

/// The key of a measurement: id, dtype and shape.
std::string measurement_key(const std::string& id, dtype type, const shape5& s);

class measurement_cache {
 public:
  /// Opens (or creates) the cache at path for this device and settings. Throws results_error if
  /// the file was made by other software or on another device model, naming both; io_error if it
  /// cannot be read or written. Lines that cannot be read are set aside first (rejected_path()).
  measurement_cache(std::filesystem::path path, const device_fingerprint& device, const nlohmann::json& settings);
  ~measurement_cache();
  measurement_cache(const measurement_cache&) = delete;
  measurement_cache& operator=(const measurement_cache&) = delete;

  const measurement* find(const std::string& key) const;
  /// Appends and flushes one line; the measurement is then safe from a kill. Throws io_error.
  void add(const measurement& m);
  std::size_t size() const { return records_.size(); }
  /// A torn last line of a previous run (killed mid-write) that was dropped: 0 or 1.
  int dropped_lines() const { return dropped_; }
  /// Corrupt lines moved to rejected_path() when the cache was opened.
  std::size_t set_aside() const { return set_aside_; }
  std::filesystem::path rejected_path() const { return path_.string() + ".rejected"; }

 private:
  std::filesystem::path path_;
  std::map<std::string, measurement> records_;
  std::FILE* out_ = nullptr;
  int dropped_ = 0;
  std::size_t set_aside_ = 0;
};

nlohmann::json to_json(const measurement& m);
measurement measurement_from_json(const nlohmann::json& j, const std::string& where);

/// A line of a cache that could not be read.
struct rejected_line {
  std::size_t number = 0;  ///< 1 is the header
  std::string text;        ///< as it was
  std::string why;
};

/// A cache file as read, before anything decides whether to use it.
struct cache_file {
  std::string header_line;
  device_fingerprint device;
  nlohmann::json settings = nlohmann::json::object();
  std::string kernel_sources;  ///< "" in a cache that predates the field
  std::vector<measurement> records;  ///< in file order; a later line of one key replaces an earlier one
  std::vector<rejected_line> rejected;  ///< lines before the last that are not a measurement
  bool torn_last_line = false;  ///< the last line is not one, as a kill mid-write leaves it
  bool ends_whole = true;        ///< the text ends in a newline (an editor may leave the last line open)
};

/// Parses a cache's text; `name` names the file in errors. Throws results_error (naming the file)
/// for text that is not a padtune cache or one made by another padtune version, and for a second
/// header (two caches joined) unless it says what the first does (device model, kernel sources,
/// settings); a corrupt measurement line is listed in `rejected`. Pre: text is not empty.
cache_file parse_cache(const std::string& text, const std::string& name);
/// Reads a cache without opening it for writing. Throws results_error on a missing or empty file
/// and as parse_cache does, io_error if it cannot be read.
cache_file read_cache(const std::filesystem::path& path);
/// The header line of a cache for this device and settings, made by this padtune.
std::string cache_header_line(const device_fingerprint& device, const nlohmann::json& settings);

}  // namespace padtune::tuner
