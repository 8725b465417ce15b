#include "padtune/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <limits>

#include "padtune/detail/input.hpp"
#include "padtune/problem.hpp"

namespace padtune {
namespace {

using nlohmann::json;

/// The field `key` of object j; results_error naming where and key if it is missing.
const json& member(const json& j, const char* key, const std::string& where) {
  if (!j.is_object()) throw results_error(fmt::format("{}: expected an object", where));
  const auto it = j.find(key);
  if (it == j.end()) throw results_error(fmt::format("{}: field '{}' is missing", where, key));
  return *it;
}

std::string field_where(const std::string& where, const char* key) { return fmt::format("{}: field '{}'", where, key); }

/// The field `key` of object j, of the type T, read strictly; results_error naming where and key.
template <class T>
T field(const json& j, const char* key, const std::string& where) {
  const json& v = member(j, key, where);
  if constexpr (std::is_same_v<T, bool>) {
    if (!v.is_boolean()) throw results_error(fmt::format("{} has the wrong type: must be true or false, got {}", field_where(where, key), printable(v.dump())));
    return v.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    return T(strict_number(v, field_where(where, key), -std::numeric_limits<double>::max()));
  } else if constexpr (std::is_integral_v<T>) {
    return T(strict_integer(v, field_where(where, key), std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (!v.is_string()) throw results_error(fmt::format("{} has the wrong type: must be a string, got {}", field_where(where, key), printable(v.dump())));
    return v.get<std::string>();
  } else {
    return v;  // json
  }
}

double finite(double v, const char* what) {
  if (!std::isfinite(v)) throw results_error(fmt::format("refusing to write a non-finite {} ({})", what, v));
  return v;
}

json numbers_json(const candidate_numbers& c) {
  finite(c.median_us, "median_us"), finite(c.iqr_us, "iqr_us"), finite(c.gbps, "gbps"), finite(c.ratio_to_memcpy, "ratio_to_memcpy");
  return {{"id", c.id}, {"median_us", c.median_us}, {"iqr_us", c.iqr_us}, {"gbps", c.gbps}, {"ratio_to_memcpy", c.ratio_to_memcpy}};
}

candidate_numbers numbers_from_json(const json& j, const std::string& where) {
  candidate_numbers c;
  c.id = field<std::string>(j, "id", where);
  c.median_us = strict_number(member(j, "median_us", where), field_where(where, "median_us"), 0);
  c.iqr_us = strict_number(member(j, "iqr_us", where), field_where(where, "iqr_us"), 0);
  c.gbps = strict_number(member(j, "gbps", where), field_where(where, "gbps"), 0);
  c.ratio_to_memcpy = strict_number(member(j, "ratio_to_memcpy", where), field_where(where, "ratio_to_memcpy"), 0);
  return c;
}

/// An entry's "ranked": objects of an id and a ratio, the winner first at 1, the others distinct and
/// in order of ratio (what the vote's costs assume). All are checked and the first ranked_limit
/// kept: a table that ranks more (a later padtune's) is read, as this one's 16 were not by the
/// builds that ranked 8.
std::vector<ranked_candidate> ranked_from_json(const json& j, const std::string& winner_id, const std::string& where) {
  if (!j.is_array())
    throw results_error(fmt::format("{}: must be an array of candidates, got {}", where, printable(j.dump().substr(0, 200))));
  std::vector<ranked_candidate> out;
  for (std::size_t k = 0; k < j.size(); ++k) {
    const std::string at = fmt::format("{}[{}]", where, k);
    ranked_candidate c;
    c.id = field<std::string>(j[k], "id", at);
    c.ratio = strict_number(member(j[k], "ratio", at), field_where(at, "ratio"), 1);
    if (k == 0 && (c.id != winner_id || c.ratio != 1))
      throw results_error(fmt::format("{}: must be the winner '{}' at ratio 1, got '{}' at {}", at, printable(winner_id),
                                      printable(c.id), c.ratio));
    if (k > 0 && c.ratio < out.back().ratio)
      throw results_error(fmt::format("{}: ratio {} is below the one before it ({}): the list goes fastest first", at, c.ratio,
                                      out.back().ratio));
    for (const ranked_candidate& seen : out)
      if (seen.id == c.id) throw results_error(fmt::format("{}: '{}' is listed twice", at, printable(c.id)));
    out.push_back(std::move(c));
  }
  if (out.size() > ranked_limit) out.resize(ranked_limit);
  return out;
}

/// "9.0": two runs of digits and a dot, nothing else.
bool parse_compute_capability(const std::string& cc, int& major, int& minor) {
  const std::size_t dot = cc.find('.');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 3 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos || !digits(std::string_view(cc).substr(0, dot)) || !digits(std::string_view(cc).substr(dot + 1)))
    return false;
  major = std::stoi(cc.substr(0, dot));
  minor = std::stoi(cc.substr(dot + 1));
  return true;
}

}  // namespace

std::string device_fingerprint::slug() const {
  if (backend == "host") return "host-emulation";
  std::string s;
  for (char ch : name) {
    if (std::isalnum(static_cast<unsigned char>(ch))) s += char(std::tolower(static_cast<unsigned char>(ch)));
    else if (!s.empty() && s.back() != '-') s += '-';
  }
  while (!s.empty() && s.back() == '-') s.pop_back();
  return s.empty() ? "unknown-gpu" : s;
}

bool device_fingerprint::same_hardware(const device_fingerprint& o) const {
  return backend == o.backend && name == o.name && cc_major == o.cc_major && cc_minor == o.cc_minor &&
         sm_count == o.sm_count && l2_bytes == o.l2_bytes && memory_clock_khz == o.memory_clock_khz &&
         bus_width_bits == o.bus_width_bits;
}

bool device_fingerprint::same_model(const device_fingerprint& o) const {
  return same_hardware(o) && driver_version == o.driver_version && runtime_version == o.runtime_version;
}

std::string device_fingerprint::describe() const {
  return fmt::format("{} ({}, cc {}.{}, {} SMs, L2 {} B, {} kHz x {} bit, driver {}, runtime {})", name, backend, cc_major,
                     cc_minor, sm_count, l2_bytes, memory_clock_khz, bus_width_bits, driver_version, runtime_version);
}

json to_json(const device_fingerprint& d) {
  return {{"backend", d.backend},
          {"name", d.name},
          {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
          {"sm_count", d.sm_count},
          {"l2_bytes", d.l2_bytes},
          {"memory_clock_khz", d.memory_clock_khz},
          {"bus_width_bits", d.bus_width_bits},
          {"driver_version", d.driver_version},
          {"runtime_version", d.runtime_version},
          {"uuid", d.uuid}};
}

device_fingerprint fingerprint_from_json(const json& j, const std::string& where) {
  device_fingerprint d;
  d.backend = field<std::string>(j, "backend", where);
  if (d.backend != "cuda" && d.backend != "host") throw results_error(fmt::format("{}: field 'backend' must be cuda or host", where));
  d.name = field<std::string>(j, "name", where);
  const std::string cc = field<std::string>(j, "compute_capability", where);
  if (!parse_compute_capability(cc, d.cc_major, d.cc_minor))
    throw results_error(fmt::format("{}: field 'compute_capability' is not MAJOR.MINOR ('{}')", where, printable(cc)));
  d.sm_count = field<int>(j, "sm_count", where);
  d.l2_bytes = field<long long>(j, "l2_bytes", where);
  d.memory_clock_khz = field<int>(j, "memory_clock_khz", where);
  d.bus_width_bits = field<int>(j, "bus_width_bits", where);
  d.driver_version = field<int>(j, "driver_version", where);
  d.runtime_version = field<int>(j, "runtime_version", where);
  d.uuid = field<std::string>(j, "uuid", where);
  return d;
}

json to_json(const results_table& t) {
  json entries = json::array();
  for (const table_entry& e : t.entries) {
    json row = {{"dtype", name_of(e.type)},
                {"bucket", e.where.name()},
                {"shape", {e.shape.B, e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right}},
                {"winner", numbers_json(e.winner)},
                {"margin", finite(e.margin, "margin")}};
    row["runner_up"] = e.runner_up ? numbers_json(*e.runner_up) : json(nullptr);
    if (e.exact) row["exact"] = true;  // absent for a bucket's entry: tables without exact entries read as before
    if (!e.ranked.empty()) {
      json ranked = json::array();
      for (const ranked_candidate& c : e.ranked) ranked.push_back({{"id", c.id}, {"ratio", finite(c.ratio, "ranked ratio")}});
      row["ranked"] = std::move(ranked);
    }
    entries.push_back(std::move(row));
  }
  return {{"schema", t.schema},         {"harness_version", t.harness}, {"device", to_json(t.device)},
          {"settings", t.settings},     {"command", t.command},         {"created", t.created},
          {"complete", t.complete},     {"entries", std::move(entries)}};
}

namespace {

/// One entry of a table's "entries".
table_entry entry_from_json(const json& j, const std::string& where) {
  table_entry e;
  const std::string dt = field<std::string>(j, "dtype", where);
  const auto type = parse_dtype(dt);
  if (!type) throw results_error(fmt::format("{}: field 'dtype' names no dtype ('{}')", where, printable(dt)));
  e.type = *type;
  const std::string b = field<std::string>(j, "bucket", where);
  if (!parse_bucket(b, e.where)) throw results_error(fmt::format("{}: field 'bucket' is not a bucket name ('{}')", where, printable(b)));
  e.shape = strict_shape(member(j, "shape", where), e.type, field_where(where, "shape"));
  const bucket of_shape = bucket_of(e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.type);
  if (!(of_shape == e.where))
    throw results_error(fmt::format("{}: field 'shape' ({},{},{},{},{}) lies in bucket {}, not in the entry's bucket {}", where,
                                    e.shape.B, e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right, of_shape.name(), b));
  e.winner = numbers_from_json(field<json>(j, "winner", where), where + ".winner");
  const json& ru = member(j, "runner_up", where);
  if (!ru.is_null()) e.runner_up = numbers_from_json(ru, where + ".runner_up");
  e.margin = field<double>(j, "margin", where);
  if (j.contains("exact")) e.exact = field<bool>(j, "exact", where);
  if (j.contains("ranked")) e.ranked = ranked_from_json(j["ranked"], e.winner.id, where + ".ranked");
  return e;
}

/// The table; entries that cannot be read go to *rejected where it is given, else fail the table.
results_table table_from_json(const json& j, const std::string& source, std::vector<rejected_entry>* rejected) {
  results_table t;
  t.schema = field<int>(j, "schema", source);
  if (t.schema > results_schema_version)
    throw newer_schema_error(fmt::format("{}: field 'schema' is {}, a newer padtune's table; this padtune reads schema {} (update "
                                         "padtune, or pass another file)", source, t.schema, results_schema_version));
  if (t.schema != results_schema_version)
    throw results_error(fmt::format("{}: field 'schema' is {}, this padtune reads schema {}", source, t.schema, results_schema_version));
  t.harness = field<std::string>(j, "harness_version", source);
  t.device = fingerprint_from_json(field<json>(j, "device", source), source + ": device");
  t.settings = field<json>(j, "settings", source);
  t.command = field<std::string>(j, "command", source);
  t.created = field<std::string>(j, "created", source);
  t.complete = field<bool>(j, "complete", source);
  const json& entries = member(j, "entries", source);
  if (!entries.is_array()) throw results_error(fmt::format("{}: field 'entries' must be an array", source));
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string where = fmt::format("{}: entries[{}]", source, i);
    if (!rejected) {
      t.entries.push_back(entry_from_json(entries[i], where));
      continue;
    }
    try {
      t.entries.push_back(entry_from_json(entries[i], where));
    } catch (const results_error& e) {
      rejected->push_back({i, e.what(), entries[i].dump()});
    }
  }
  return t;
}

json parse_table_json(const std::string& text, const std::string& source) {
  if (text.empty()) throw results_error(fmt::format("{}: the file is empty", source));
  return parse_json(text, source);  // a table is a few levels deep: 16 bounds it
}

}  // namespace

results_table table_from_json(const json& j, const std::string& source) { return table_from_json(j, source, nullptr); }

results_table parse_table(const std::string& text, const std::string& source) {
  return table_from_json(parse_table_json(text, source), source, nullptr);
}

results_table parse_table_keeping_good(const std::string& text, const std::string& source, std::vector<rejected_entry>& rejected) {
  return table_from_json(parse_table_json(text, source), source, &rejected);
}

results_table read_table(const std::filesystem::path& path) {
  return parse_table(read_input_file(path, max_table_bytes, "table"), path.string());
}

std::string table_text(const results_table& t) { return to_json(t).dump(1) + "\n"; }

std::string utc_now() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace padtune
