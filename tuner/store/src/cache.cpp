#include "padtune/store/cache.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "padtune/store/output_file.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::tuner {
namespace {

using nlohmann::json;

bool known_status(const std::string& s) {
  for (const char* k : {"ok", "verify_failed", "launch_failed", "pruned", "fault", "timeout"})
    if (s == k) return true;
  return false;
}

json header_json(const device_fingerprint& device, const json& settings) {
  return {{"padtune_cache", results_schema_version}, {"harness_version", harness_version},
          {"kernel_sources", kernel_sources_hash}, {"device", to_json(device)},
          {"settings", settings}};
}

}  // namespace

std::string measurement_key(const std::string& id, dtype type, const shape5& s) {
  return fmt::format("{}|{}|{},{},{},{},{}", id, name_of(type), s.B, s.C, s.L, s.pad_left, s.pad_right);
}

json to_json(const measurement& m) {
  json j = {{"id", m.id},
            {"dtype", name_of(m.type)},
            {"shape", {m.shape.B, m.shape.C, m.shape.L, m.shape.pad_left, m.shape.pad_right}},
            {"status", m.status},
            {"error", m.error},
            {"cold", to_json(m.t.cold)},
            {"hot", to_json(m.t.hot)}};
  if (m.status == "timeout") j["limit_s"] = m.limit_seconds;  // absent elsewhere: older caches read the same
  return j;
}

measurement measurement_from_json(const json& j, const std::string& where) {
  measurement m;
  const auto text = [&](const char* key) -> std::string {
    const auto it = j.find(key);
    if (it == j.end()) throw results_error(fmt::format("{}: field '{}' is missing", where, key));
    if (!it->is_string()) throw results_error(fmt::format("{}: field '{}' must be a string", where, key));
    return it->get<std::string>();
  };
  if (!j.is_object()) throw results_error(fmt::format("{}: expected an object", where));
  m.id = text("id");
  const auto type = parse_dtype(text("dtype"));
  if (!type) throw results_error(fmt::format("{}: field 'dtype' names no dtype", where));
  m.type = *type;
  if (!j.contains("shape")) throw results_error(fmt::format("{}: field 'shape' is missing", where));
  m.shape = strict_shape(j.at("shape"), m.type, where + ": field 'shape'");
  m.status = text("status");
  if (!known_status(m.status)) throw results_error(fmt::format("{}: field 'status' is no status ('{}')", where, printable(m.status)));
  m.error = text("error");
  if (const auto it = j.find("limit_s"); it != j.end()) m.limit_seconds = strict_number(*it, where + ": field 'limit_s'", 0);
  for (const char* key : {"cold", "hot"})
    if (!j.contains(key)) throw results_error(fmt::format("{}: field '{}' is missing", where, key));
  m.t.cold = summary_from_json(j.at("cold"), where + ": cold");
  m.t.hot = summary_from_json(j.at("hot"), where + ": hot");
  return m;
}

namespace {

/// Fills f's header fields from a header; throws results_error naming the file.
void read_header(const json& header, const std::string& name, cache_file& f) {
  const json& version_field = header.contains("harness_version") ? header["harness_version"] : json("?");
  const std::string version = version_field.is_string() ? version_field.get<std::string>() : version_field.dump();
  if (header["padtune_cache"] != results_schema_version || version != harness_version)
    throw results_error(fmt::format("{}: made by padtune {} (cache schema {}), this is padtune {} (schema {}): measurements "
                                    "from other software are not mixed in; move the file away or pass another --cache",
                                    name, printable(version), printable(header["padtune_cache"].dump()), harness_version,
                                    results_schema_version));
  if (const auto k = header.find("kernel_sources"); k != header.end()) {
    if (!k->is_string()) throw results_error(fmt::format("{}: header field 'kernel_sources' must be a string", name));
    f.kernel_sources = k->get<std::string>();
  }
  if (!header.contains("device")) throw results_error(fmt::format("{}: header field 'device' is missing", name));
  f.device = fingerprint_from_json(header.at("device"), name + ": header.device");
  f.settings = header.value("settings", json::object());
}

bool is_header(const json& j) { return j.is_object() && j.contains("padtune_cache"); }

/// A header after the first: two caches joined into one file. Their measurements are one cache's
/// only where both headers say the same (device model, padtune, kernel sources, settings); anything
/// else is refused, naming both, as a cache of another device is: never set aside as one corrupt
/// line with the other device's measurements taken in after it.
void check_second_header(const json& header, const std::string& where, const cache_file& first) {
  cache_file second;
  try {
    read_header(header, where, second);
  } catch (const results_error& e) {
    throw results_error(fmt::format("{}: a second cache header (two caches joined) that does not read: {}; measurements of "
                                    "another cache are not mixed in: split the file, or move it away", where, e.what()));
  }
  if (!second.device.same_model(first.device) || second.kernel_sources != first.kernel_sources || second.settings != first.settings)
    throw results_error(fmt::format("{}: a second cache header (two caches joined): measured on {}{}, in a cache of {}; "
                                    "measurements of another device or other settings are not mixed in: split the file, or "
                                    "move it away", where, second.device.describe(),
                                    second.device.same_model(first.device) ? " with other settings or kernel sources" : "",
                                    first.device.describe()));
}

}  // namespace

cache_file parse_cache(const std::string& text, const std::string& name) {
  std::vector<std::string> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  cache_file f;
  f.ends_whole = !text.empty() && text.back() == '\n';
  f.header_line = lines.at(0);
  json header;
  try {
    header = parse_json(f.header_line, name + ":1");  // bounded nesting: a hostile header cannot exhaust the stack
  } catch (const results_error&) {
    throw results_error(fmt::format("{}: line 1 is not a padtune cache header; move the file away", name));
  }
  if (!is_header(header)) throw results_error(fmt::format("{}: not a padtune measurement cache; move the file away", name));
  read_header(header, name, f);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::string where = fmt::format("{}:{}", name, i + 1);
    json line;
    std::string unreadable;
    try {
      line = parse_json(lines[i], where);
    } catch (const std::exception& e) {
      unreadable = e.what();
    }
    if (unreadable.empty() && is_header(line)) {
      check_second_header(line, where, f);
      continue;
    }
    try {
      if (!unreadable.empty()) throw results_error(unreadable);
      f.records.push_back(measurement_from_json(line, where));
    } catch (const std::exception& e) {
      // A last line without its newline is a kill mid-write: redone. One that ends whole is corrupt
      // like any other, and set aside.
      if (i + 1 == lines.size() && text.back() != '\n') f.torn_last_line = true;
      else f.rejected.push_back({i + 1, lines[i], e.what()});
    }
  }
  return f;
}

cache_file read_cache(const std::filesystem::path& path) {
  const std::string text = read_input_file(path, max_input_bytes, "measurement cache");
  if (text.empty()) throw results_error(fmt::format("{}: the file is empty", path.string()));
  return parse_cache(text, path.string());
}

std::string cache_header_line(const device_fingerprint& device, const json& settings) {
  return header_json(device, settings).dump();
}

measurement_cache::measurement_cache(std::filesystem::path path, const device_fingerprint& device, const json& settings)
    : path_(std::move(path)) {
  const std::string name = path_.string();
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(path_, ec) || std::filesystem::file_size(path_, ec) == 0;
  bool open_line = false;  // the file's last line has no newline: the next line must not be glued on
  if (!fresh) {
    cache_file f = read_cache(path_);
    // Timings of other kernel code are not mixed in. A header without the field predates it: taken
    // as it is, with a warning, since no later kernel edit can be told apart from it.
    if (f.kernel_sources.empty()) {
      print_error("padtune: {} does not record which kernel sources it measured; it is used as it is\n", name);
    } else if (f.kernel_sources != kernel_sources_hash) {
      throw results_error(fmt::format("{}: measured kernel sources \"{}\", this padtune was built from {} (kernels/device changed): "
                                      "move the file away or pass another --cache", name, printable(f.kernel_sources), kernel_sources_hash));
    }
    const device_fingerprint& theirs = f.device;
    if (!theirs.same_model(device))
      throw results_error(fmt::format("{}: measured on '{}' ({} backend, driver {}, runtime {}), this run is on '{}' ({} backend, "
                                      "driver {}, runtime {}): move the file away or pass another --cache",
                                      name, printable(theirs.name), theirs.backend, theirs.driver_version, theirs.runtime_version,
                                      device.name, device.backend, device.driver_version, device.runtime_version));
    if (f.settings != settings)
      throw results_error(fmt::format("{}: measured with other settings ({}), this run uses {}: move the file away or pass "
                                      "another --cache", name, printable(f.settings.dump(), 400), settings.dump()));
    for (measurement& m : f.records) records_[measurement_key(m.id, m.type, m.shape)] = std::move(m);
    dropped_ = f.torn_last_line ? 1 : 0;
    set_aside_ = f.rejected.size();
    if (!f.rejected.empty()) {  // kept beside the cache, with what was there before: nothing is lost
      std::string aside;
      if (std::filesystem::exists(rejected_path(), ec)) aside = read_input_file(rejected_path());
      aside += fmt::format("# {}: {} line(s) of {} set aside by padtune {} (line number: why, then the line as it was)\n",
                           utc_now(), f.rejected.size(), name, harness_version);
      for (const rejected_line& r : f.rejected) aside += fmt::format("# line {}: {}\n{}\n", r.number, r.why, r.text);
      write_output(rejected_path(), aside);
    }
    if (dropped_ > 0 || set_aside_ > 0) {  // rewrite with the readable lines only, atomically
      std::string text = f.header_line + "\n";
      for (const auto& [key, m] : records_) text += to_json(m).dump() + "\n";
      write_output(path_, text);
    } else {
      open_line = !f.ends_whole;
    }
  }
  if (!path_.parent_path().empty()) std::filesystem::create_directories(path_.parent_path(), ec);
  out_ = std::fopen(name.c_str(), "ab");
  if (!out_) throw io_error(fmt::format("{}: cannot be opened for appending: {}", name, std::strerror(errno)));
  if (open_line && (std::fputc('\n', out_) == EOF || std::fflush(out_) != 0))
    throw io_error(fmt::format("{}: cannot be appended to: {}", name, std::strerror(errno)));
  if (fresh) {
    const std::string h = cache_header_line(device, settings) + "\n";
    if (std::fwrite(h.data(), 1, h.size(), out_) != h.size() || std::fflush(out_) != 0)
      throw io_error(fmt::format("{}: cannot be written: {}", name, std::strerror(errno)));
  }
}

measurement_cache::~measurement_cache() {
  if (out_) std::fclose(out_);
}

const measurement* measurement_cache::find(const std::string& key) const {
  const auto it = records_.find(key);
  return it == records_.end() ? nullptr : &it->second;
}

void measurement_cache::add(const measurement& m) {
  const std::string line = to_json(m).dump() + "\n";
  if (std::fwrite(line.data(), 1, line.size(), out_) != line.size() || std::fflush(out_) != 0)
    throw io_error(fmt::format("{}: cannot append a measurement: {}", path_.string(), std::strerror(errno)));
  // fflush hands the line to the kernel: it survives the process being killed. No fsync per line:
  // it would cost more than the measurement, and a machine crash loses only recent lines.
  records_[measurement_key(m.id, m.type, m.shape)] = m;
}

}  // namespace padtune::tuner
