#pragma once
// The raw measurement cache beside a results table: JSON lines, a header that names the software
// and the device, then one line per finished measurement, appended and flushed as soon as it is
// made, so a run that is killed loses only the measurement in flight and the next run resumes.
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>

#include "measure.hpp"
#include "results.hpp"

namespace padtune::tuner {

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
  /// the file was made by other software or on another device model, naming both.
  measurement_cache(std::filesystem::path path, const device_fingerprint& device, const nlohmann::json& settings);
  ~measurement_cache();
  measurement_cache(const measurement_cache&) = delete;
  measurement_cache& operator=(const measurement_cache&) = delete;

  const measurement* find(const std::string& key) const;
  /// Appends and flushes one line; the measurement is then safe from a kill.
  void add(const measurement& m);
  std::size_t size() const { return records_.size(); }
  /// Lines of a previous run that could not be read (a torn last line after a kill).
  int dropped_lines() const { return dropped_; }

 private:
  std::filesystem::path path_;
  std::map<std::string, measurement> records_;
  std::FILE* out_ = nullptr;
  int dropped_ = 0;
};

nlohmann::json to_json(const measurement& m);
measurement measurement_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace padtune::tuner
