#include "tables.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>

#include "embedded_tables.hpp"
#include "padtune/cuda_error.hpp"
#include "padtune/detail/input.hpp"
#include "padtune/detail/nearest_table.hpp"
#include "padtune/padtune.hpp"

namespace padtune::detail {
namespace {

constexpr const char* host_table_file = "host-emulation.json";

/// What lookup needs to know of the device a call runs on.
struct device_info {
  backend where = backend::cuda;
  std::string name;  ///< cudaDeviceProp::name; "" for the host or an unusable device
  int cc_major = 0, cc_minor = 0;
  std::string unusable;  ///< why no CUDA device could be asked ("" if it could)
};

// Slots of the fast path: the host backend, CUDA with no usable device, then device ordinals.
constexpr int host_slot = 0;
constexpr int no_device_slot = 1;
constexpr int first_device_slot = 2;
constexpr int fast_device_count = 64;  // ordinals beyond take the mutex on every call
constexpr int slot_count = first_device_slot + fast_device_count;

struct embedded_source {
  std::string file;
  device_fingerprint device;
  std::unique_ptr<lookup_table> table;
};

struct dispatch_state {
  std::array<std::atomic<const device_table*>, slot_count> slots{};  // the fast path reads only these
  std::mutex mutex;                                                   // guards everything below
  std::map<int, const device_table*> far_devices;                     // ordinals >= fast_device_count
  std::vector<std::unique_ptr<device_table>> devices;                 // what the slots point to
  std::map<std::string, std::unique_ptr<lookup_table>> files;         // explicit files read (null: unusable)
  // What set_results_path drops stays allocated so that a caller racing with it (which the API
  // does not allow) reads stale data rather than freed memory; it is little.
  std::vector<std::unique_ptr<device_table>> retired_devices;
  std::vector<std::unique_ptr<lookup_table>> retired_files;
  std::string explicit_path;                                          // from set_results_path
  bool any_device = false;                                            // from set_results_path
  std::optional<std::vector<embedded_source>> embedded;               // built once, kept for good
  lookup_table built_in{default_source, {}, {}, {}};
  std::set<std::string> reported;  // stderr lines printed since the last set_results_path
};

dispatch_state& state() {
  static dispatch_state s;
  return s;
}


/// Prints a warning on stderr unless the same line was printed before. Pre: the mutex is held.
void report_once(dispatch_state& s, const std::string& message) {
  if (s.reported.insert(message).second) print_error("padtune: {}\n", message);
}

// ---- loading tables ----------------------------------------------------------------------------

std::vector<dispatch_entry>& entries_of(lookup_table& t, const table_entry& e) {
  return (e.exact ? t.exact_by_dtype : t.by_dtype)[std::size_t(e.type)];
}

/// What entry e brings to the vote, `inst` being the kernel it runs: its ranked candidates that this
/// library runs for its dtype (a table without "ranked": its winner and runner-up), inst first.
detail::voter voter_of(const table_entry& e, const instantiation* inst) {
  detail::voter v;
  v.at = detail::point_of(e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.shape.pad_right, e.type);
  std::vector<ranked_candidate> ranked = e.ranked;
  if (ranked.empty()) {
    ranked.push_back({e.winner.id, 1});
    const double ratio = e.runner_up && e.winner.median_us > 0 ? e.runner_up->median_us / e.winner.median_us : 0;
    if (std::isfinite(ratio) && ratio > 0) ranked.push_back({e.runner_up->id, std::max(1.0, ratio)});
  }
  double base = 1;  // inst's ratio: a JIT winner's runner-up stands in for it
  for (const ranked_candidate& c : ranked)
    if (c.id == inst->id) base = c.ratio;
  v.ranked.emplace_back(inst, 0.0f);
  for (const ranked_candidate& c : ranked) {
    const instantiation* i = find_instantiation(c.id);
    if (!i || i == inst || i->type != e.type || v.ranked.size() == detail::voter_ranks) continue;
    // Clamped: a table's ratios are finite but may be huge (a winner timed at nearly 0 µs).
    v.ranked.emplace_back(i, float(std::log(std::clamp(c.ratio / base, 1.0, 1e6))));
  }
  return v;
}

/// A lookup table from a results table; entries the registry cannot run are skipped with a warning.
std::unique_ptr<lookup_table> make_lookup(dispatch_state& s, const results_table& t, const std::string& source) {
  auto out = std::make_unique<lookup_table>();
  out->source = source;
  out->device = t.device;
  for (std::size_t i = 0; i < t.entries.size(); ++i) {
    const table_entry& e = t.entries[i];
    const instantiation* inst = find_instantiation(e.winner.id);
    if (!inst && is_jit_id(e.winner.id)) {
      // A JIT winner (padtune tune --jit) needs NVRTC at run time, which this library does not link:
      // its runner-up runs instead when it is ahead of time; else the entry is left to its neighbours.
      const instantiation* runner_up = e.runner_up ? find_instantiation(e.runner_up->id) : nullptr;
      if (runner_up && runner_up->type == e.type) {
        entries_of(*out, e).push_back(
            {e.where, e.shape, runner_up, e.runner_up->ratio_to_memcpy,
             fmt::format("the JIT winner {} is not run by the dispatcher: its runner-up (the ratio above) runs instead", e.winner.id),
             voter_of(e, runner_up)});
        continue;
      }
      report_once(s, fmt::format("{}: entries[{}] ({} {}): winner '{}' is a JIT kernel, which the dispatcher does not "
                                 "run, and no ahead-of-time runner-up; entry skipped (the nearest entries serve it)",
                                 source, i, name_of(e.type), e.where.name(), e.winner.id));
      continue;
    }
    if (!inst) {
      report_once(s, fmt::format("{}: entries[{}] ({} {}): winner '{}' is not a compiled instantiation; entry skipped",
                                 source, i, name_of(e.type), e.where.name(), e.winner.id));
      continue;
    }
    if (inst->type != e.type) {
      report_once(s, fmt::format("{}: entries[{}] ({} {}): winner '{}' takes dtype {}; entry skipped", source, i,
                                 name_of(e.type), e.where.name(), e.winner.id, name_of(inst->type)));
      continue;
    }
    entries_of(*out, e).push_back({e.where, e.shape, inst, e.winner.ratio_to_memcpy, {}, voter_of(e, inst)});
  }
  // A table of exact entries alone (padtune tune --sizes into a new file) still serves the other
  // shapes of its dtypes: its exact entries stand in as buckets.
  for (std::size_t d = 0; d < dtype_count; ++d)
    if (out->by_dtype[d].empty()) out->by_dtype[d] = out->exact_by_dtype[d];
  return out;
}

/// The embedded tables, parsed once for the process (they cannot change while it runs): the
/// dispatcher and embedded_results_tables() share them.
struct embedded_parses {
  std::vector<results_table> tables;  ///< those that parse
  std::vector<std::string> files;     ///< tables[k]'s file
  std::vector<std::string> errors;    ///< why each of the others does not parse
};

const embedded_parses& parsed_embedded_tables() {
  static const embedded_parses parsed = [] {
    embedded_parses p;
    for (const detail::embedded_table* e = detail::embedded_tables; e->file; ++e) {
      try {
        p.tables.push_back(parse_table(e->json, fmt::format("embedded:{}", e->file)));
        p.files.emplace_back(e->file);
      } catch (const std::exception& x) {
        p.errors.emplace_back(x.what());
      }
    }
    return p;
  }();
  return parsed;
}

/// The embedded tables that parse, ready for lookup; the others are reported once and left out.
/// Built once: they cannot change while the process runs, so neither can their warnings.
const std::vector<embedded_source>& embedded(dispatch_state& s) {
  if (s.embedded) return *s.embedded;
  s.embedded.emplace();
  const embedded_parses& parsed = parsed_embedded_tables();
  for (const std::string& error : parsed.errors) report_once(s, fmt::format("ignoring a results table: {}", error));
  for (std::size_t k = 0; k < parsed.tables.size(); ++k) {
    const results_table& t = parsed.tables[k];
    s.embedded->push_back({parsed.files[k], t.device, make_lookup(s, t, fmt::format("embedded:{}", parsed.files[k]))});
  }
  return *s.embedded;
}

/// The explicit results path and where it came from, or {"", ""}.
std::pair<std::string, std::string> explicit_path(const dispatch_state& s) {
  if (!s.explicit_path.empty()) return {s.explicit_path, "set_results_path"};
  const char* env = std::getenv("PADTUNE_RESULTS");
  if (env && *env) return {env, "PADTUNE_RESULTS"};
  return {"", ""};
}

/// Whether a table of another device model named explicitly may serve this one.
bool any_device(const dispatch_state& s) {
  const char* env = std::getenv("PADTUNE_RESULTS_ANY_DEVICE");
  return s.any_device || (env && std::string_view(env) == "1");
}

/// Why a table does not describe the device d ("" when it does, or when d cannot be asked).
std::string other_model(const device_fingerprint& table, const device_info& d) {
  if (d.where == backend::host)
    return table.backend == "host" ? "" : fmt::format("it is a table of {} ({}), not of the host emulation", table.name, table.backend);
  if (!d.unusable.empty()) return "";
  if (table.backend == "cuda" && table.name == d.name) return "";
  return fmt::format("it is a table of {} ({}), this device is {}", table.name, table.backend, d.name);
}

/// The table read from `path` (read once per path), or nullptr after reporting why not.
const lookup_table* load_file(dispatch_state& s, const std::string& path, const std::string& origin) {
  auto it = s.files.find(path);
  if (it == s.files.end()) {
    std::unique_ptr<lookup_table> t;
    try {
      t = make_lookup(s, read_table(path), path);
    } catch (const std::exception& x) {  // results_error, or bad_alloc on a huge file: never fatal here
      report_once(s, fmt::format("ignoring the results table given by {}: {}; using the next source", origin, x.what()));
    }
    it = s.files.emplace(path, std::move(t)).first;
  }
  return it->second.get();
}

}  // namespace

int nearest_published(const std::vector<device_fingerprint>& tables, int cc_major, int cc_minor) {
  int best = -1, best_distance = 0;
  for (std::size_t k = 0; k < tables.size(); ++k) {
    if (tables[k].backend != "cuda") continue;
    // The same major version first (one architecture family), then the nearest minor.
    const int distance = 100 * std::abs(tables[k].cc_major - cc_major) + std::abs(tables[k].cc_minor - cc_minor);
    if (best < 0 || distance < best_distance) best = int(k), best_distance = distance;
  }
  return best;
}

namespace {

std::string join_notes(const std::vector<std::string>& notes) {
  std::string out;
  for (const std::string& n : notes) out += (out.empty() ? "" : "; ") + n;
  return out;
}

/// The lookup order of DESIGN.md for one device. Pre: the mutex is held.
std::unique_ptr<device_table> resolve(dispatch_state& s, const device_info& d) {
  std::vector<std::string> passed;
  const auto found = [&](const lookup_table* t, bool borrowed = false) {
    return std::make_unique<device_table>(device_table{t, join_notes(passed), borrowed});
  };
  if (!d.unusable.empty()) passed.push_back(fmt::format("no usable CUDA device: {}", d.unusable));

  if (const auto [path, origin] = explicit_path(s); !path.empty()) {
    if (const lookup_table* t = load_file(s, path, origin)) {
      const std::string other = other_model(t->device, d);
      if (other.empty() || any_device(s)) return found(t);
      report_once(s, fmt::format("ignoring the results table given by {} for this device: {}: {} (PADTUNE_RESULTS_ANY_DEVICE=1 "
                                 "uses it anyway); using the next source", origin, path, other));
      passed.push_back(fmt::format("{} from {} is of another device model", path, origin));
    } else {
      passed.push_back(fmt::format("{} from {} could not be read", path, origin));
    }
  }

  const std::vector<embedded_source>& tables = embedded(s);
  if (d.where == backend::host) {
    for (const embedded_source& e : tables)
      if (e.file == host_table_file && e.device.backend == "host") return found(e.table.get());
    passed.push_back(fmt::format("no embedded {}", host_table_file));
    return found(&s.built_in);
  }

  if (d.unusable.empty()) {
    for (const embedded_source& e : tables)
      if (e.device.backend == "cuda" && e.device.name == d.name && e.file == e.device.slug() + ".json")
        return found(e.table.get());
    passed.push_back(fmt::format("no embedded table for {}", d.name));
    // A model without a table of its own borrows the published table nearest in compute capability
    // (the same one first), and times the vote's finalists on first use: on the H200 posing as an
    // untuned model, the built-in rule ran the suite at 1.38x its table's time (geomean, worst 21x).
    std::vector<device_fingerprint> published;
    std::vector<const embedded_source*> sources;
    for (const embedded_source& e : tables)
      if (e.file == e.device.slug() + ".json") {  // a model's own table, not a file of another name
        published.push_back(e.device);
        sources.push_back(&e);
      }
    if (const int k = detail::nearest_published(published, d.cc_major, d.cc_minor); k >= 0) {
      const embedded_source* nearest = sources[std::size_t(k)];
      passed.push_back(fmt::format("{}'s table, of compute capability {}.{}, the nearest published to this {}.{}, with first-use "
                                   "timing on unless turned off", nearest->device.name, nearest->device.cc_major,
                                   nearest->device.cc_minor, d.cc_major, d.cc_minor));
      return found(nearest->table.get(), true);
    }
    passed.push_back("no published table of the CUDA backend");
  }
  return found(&s.built_in);
}

/// Resolves and caches the table of a slot (or of a far device ordinal). The slow path.
const device_table& resolve_slot(int slot, int ordinal, const device_info& d) {
  dispatch_state& s = state();
  std::lock_guard lock(s.mutex);
  if (slot >= 0) {
    if (const device_table* t = s.slots[slot].load(std::memory_order_acquire)) return *t;
  } else if (const auto it = s.far_devices.find(ordinal); it != s.far_devices.end()) {
    return *it->second;
  }
  s.devices.push_back(resolve(s, d));
  const device_table* t = s.devices.back().get();
  if (slot >= 0) s.slots[slot].store(t, std::memory_order_release);
  else s.far_devices.emplace(ordinal, t);
  return *t;
}

/// The table for the current CUDA device. If no device can be named: throws (need_device) or
/// returns the table of "no usable device" (explicit path, else the built-in default).
const device_table& cuda_table(bool need_device) {
  int ordinal = 0;
  if (const cudaError_t e = cudaGetDevice(&ordinal); e != cudaSuccess) {
    cudaGetLastError();  // not the caller's error: do not leave it behind
    if (need_device) throw error(status::launch_failed, fmt::format("no usable CUDA device: {}", cuda_error_text(e)));
    if (const device_table* t = state().slots[no_device_slot].load(std::memory_order_acquire)) return *t;
    return resolve_slot(no_device_slot, -1, device_info{backend::cuda, "", 0, 0, cuda_error_text(e)});
  }
  const int slot = ordinal < fast_device_count ? first_device_slot + ordinal : -1;
  if (slot >= 0)
    if (const device_table* t = state().slots[slot].load(std::memory_order_acquire)) return *t;

  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, ordinal); e != cudaSuccess) {
    cudaGetLastError();
    // Not cached under the ordinal: a device that cannot be asked now is not its model's table.
    if (const device_table* t = state().slots[no_device_slot].load(std::memory_order_acquire)) return *t;
    return resolve_slot(no_device_slot, -1, device_info{backend::cuda, "", 0, 0, cuda_error_text(e)});
  }
  return resolve_slot(slot, ordinal, device_info{backend::cuda, prop.name, prop.major, prop.minor, ""});
}

}  // namespace

// ---- the built-in default ----------------------------------------------------------------------

const instantiation& default_instantiation(dtype type, std::int64_t L) {
  const instantiation* inst = builtin_default_instantiation(type, L);
  if (!inst) throw error(status::unknown_dtype, fmt::format("no compiled instantiation takes dtype {}", name_of(type)));
  return *inst;
}

const device_table& table_for(backend b, bool need_device) {
  if (b == backend::host) {
    if (const device_table* t = state().slots[host_slot].load(std::memory_order_acquire)) return *t;
    return resolve_slot(host_slot, -1, device_info{backend::host, "", 0, 0, ""});
  }
  if (b == backend::cuda) return cuda_table(need_device);
  throw error(status::unsupported_backend, fmt::format("unknown backend (value {})", int(b)));
}

}  // namespace padtune::detail

namespace padtune {

const std::vector<results_table>& embedded_results_tables() { return detail::parsed_embedded_tables().tables; }

std::vector<std::string> embedded_table_files() {
  std::vector<std::string> files;
  for (const detail::embedded_table* e = detail::embedded_tables; e->file; ++e) files.emplace_back(e->file);
  return files;
}

void set_results_path(const std::string& path, bool any_device) {
  detail::dispatch_state& s = detail::state();
  std::lock_guard lock(s.mutex);
  s.explicit_path = path;
  s.any_device = any_device;
  for (auto& slot : s.slots) slot.store(nullptr, std::memory_order_release);
  s.far_devices.clear();
  for (auto& t : s.devices) s.retired_devices.push_back(std::move(t));
  s.devices.clear();
  for (auto& [path, t] : s.files)
    if (t) s.retired_files.push_back(std::move(t));
  s.files.clear();
  s.reported.clear();  // a new lookup: its problems are news again
}

}  // namespace padtune
