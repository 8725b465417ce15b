#include "cache.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>

namespace padtune::tuner {
namespace {

using nlohmann::json;

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
  try {
    m.id = j.at("id").get<std::string>();
    const auto type = parse_dtype(j.at("dtype").get<std::string>());
    if (!type) throw results_error(fmt::format("{}: field 'dtype' names no dtype", where));
    m.type = *type;
    const auto s = j.at("shape").get<std::vector<long long>>();
    if (s.size() != 5) throw results_error(fmt::format("{}: field 'shape' must hold 5 numbers", where));
    m.shape = shape5{s[0], s[1], s[2], s[3], s[4]};
    m.status = j.at("status").get<std::string>();
    m.error = j.at("error").get<std::string>();
    m.limit_seconds = j.value("limit_s", 0.0);
  } catch (const json::exception& e) {
    throw results_error(fmt::format("{}: {}", where, e.what()));
  }
  m.t.cold = summary_from_json(j.at("cold"), where + ": cold");
  m.t.hot = summary_from_json(j.at("hot"), where + ": hot");
  return m;
}

cache_file parse_cache(const std::vector<std::string>& lines, const std::string& name) {
  cache_file f;
  f.header_line = lines.at(0);
  json header;
  try {
    header = json::parse(f.header_line);
  } catch (const json::exception&) {
    throw results_error(fmt::format("{}: line 1 is not a padtune cache header; move the file away", name));
  }
  if (!header.is_object() || !header.contains("padtune_cache"))
    throw results_error(fmt::format("{}: not a padtune measurement cache; move the file away", name));
  const std::string version = header.value("harness_version", std::string("?"));
  if (header["padtune_cache"] != results_schema_version || version != harness_version)
    throw results_error(fmt::format("{}: made by padtune {} (cache schema {}), this is padtune {} (schema {}): measurements "
                                    "from other software are not mixed in; move the file away or pass another --cache",
                                    name, version, header["padtune_cache"].dump(), harness_version, results_schema_version));
  if (const auto k = header.find("kernel_sources"); k != header.end()) {
    if (!k->is_string()) throw results_error(fmt::format("{}: header field 'kernel_sources' must be a string", name));
    f.kernel_sources = k->get<std::string>();
  }
  if (!header.contains("device")) throw results_error(fmt::format("{}: header field 'device' is missing", name));
  f.device = fingerprint_from_json(header.at("device"), name + ": header.device");
  f.settings = header.value("settings", json::object());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    try {
      f.records.push_back(measurement_from_json(json::parse(lines[i]), fmt::format("{}:{}", name, i + 1)));
    } catch (const std::exception& e) {
      if (i + 1 != lines.size()) throw results_error(fmt::format("{}:{}: corrupt line: {}", name, i + 1, e.what()));
      ++f.torn_last_lines;  // a line torn by a kill mid-write
    }
  }
  return f;
}

cache_file read_cache(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw results_error(fmt::format("{}: cannot be opened", path.string()));
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  if (lines.empty()) throw results_error(fmt::format("{}: the file is empty", path.string()));
  return parse_cache(lines, path.string());
}

std::string cache_header_line(const device_fingerprint& device, const json& settings) {
  return header_json(device, settings).dump();
}

measurement_cache::measurement_cache(std::filesystem::path path, const device_fingerprint& device, const json& settings)
    : path_(std::move(path)) {
  const std::string name = path_.string();
  std::vector<std::string> lines;
  {
    std::ifstream in(path_);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  const bool fresh = lines.empty();
  if (!fresh) {
    cache_file f = parse_cache(lines, name);
    // Timings of other kernel code are not mixed in. A header without the field predates it: taken
    // as it is, with a warning, since no later kernel edit can be told apart from it.
    if (f.kernel_sources.empty()) {
      std::fprintf(stderr, "padtune: %s does not record which kernel sources it measured; it is used as it is\n", name.c_str());
    } else if (f.kernel_sources != kernel_sources_hash) {
      throw results_error(fmt::format("{}: measured kernel sources \"{}\", this padtune was built from {} (kernels/device changed): "
                                      "move the file away or pass another --cache", name, f.kernel_sources, kernel_sources_hash));
    }
    const device_fingerprint& theirs = f.device;
    if (!theirs.same_model(device))
      throw results_error(fmt::format("{}: measured on '{}' ({} backend, driver {}, runtime {}), this run is on '{}' ({} backend, "
                                      "driver {}, runtime {}): move the file away or pass another --cache",
                                      name, theirs.name, theirs.backend, theirs.driver_version, theirs.runtime_version,
                                      device.name, device.backend, device.driver_version, device.runtime_version));
    if (f.settings != settings)
      throw results_error(fmt::format("{}: measured with other settings ({}), this run uses {}: move the file away or pass "
                                      "another --cache", name, f.settings.dump(), settings.dump()));
    for (measurement& m : f.records) records_[measurement_key(m.id, m.type, m.shape)] = std::move(m);
    dropped_ = f.torn_last_lines;
  }
  if (!path_.parent_path().empty()) std::filesystem::create_directories(path_.parent_path());
  if (dropped_ > 0) {  // rewrite without the torn line, atomically
    std::string text = lines[0] + "\n";
    for (const auto& [key, m] : records_) text += to_json(m).dump() + "\n";
    write_file_atomic(path_, text);
  }
  out_ = std::fopen(name.c_str(), "ab");
  if (!out_) throw results_error(fmt::format("{}: cannot be opened for appending", name));
  if (fresh) {
    const std::string h = cache_header_line(device, settings) + "\n";
    std::fwrite(h.data(), 1, h.size(), out_);
    std::fflush(out_);
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
    throw results_error(fmt::format("{}: cannot append a measurement", path_.string()));
  // fflush hands the line to the kernel: it survives the process being killed. No fsync per line:
  // it would cost more than the measurement, and a machine crash loses only recent lines.
  records_[measurement_key(m.id, m.type, m.shape)] = m;
}

}  // namespace padtune::tuner
