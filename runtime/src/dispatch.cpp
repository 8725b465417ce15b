// The dispatcher: finds the results table of a device once (explicit path, embedded table of the
// model, embedded table of the compute capability, built-in default), then per call decides the
// kernel (decide(): the shape's exact entry, else the rule's kernel for a tiny problem
// (tiny_rule.hpp), else what the nearest entries vote for (vote.hpp)) and launches it through the
// registry; explain_dispatch puts the same decision in words.
//
// Fast path (every call after the first on a device): cudaGetDevice, one atomic load, the exact
// entries' scan, then the thread's recent choices (16 shapes), else the vote (a scan over the
// entries of the call's dtype). Everything else happens once, under a mutex. With first-use timing
// on (autotune.hpp), a shape's first call times the vote's finalists and later calls find the
// choice under a second mutex, or in the thread's recent choices.
#include "padtune/cuda_error.hpp"
#include "padtune/enqueue.hpp"
#include "padtune/nvtx.hpp"
#include "padtune/padtune.hpp"

#include "padtune/dtype_of.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "embedded_tables.hpp"
#include "padtune/buckets.hpp"
#include "padtune/table.hpp"
#include "autotune.hpp"
#include "padtune/detail/input.hpp"
#include "padtune/detail/nearest_table.hpp"
#include "tiny_rule.hpp"
#include "vote.hpp"

namespace padtune {
namespace {

constexpr const char* default_source = "built-in default";
constexpr const char* host_table_file = "host-emulation.json";

constexpr std::size_t dtype_count = std::size(all_dtypes);

/// One usable table entry, checked against the registry when the table was loaded.
struct dispatch_entry {
  bucket where;
  shape5 shape;  ///< what an exact entry serves (its B*C, L and pads); a bucket's measured shape
  const instantiation* inst = nullptr;
  double ratio_to_memcpy = 0;
  std::string note;  ///< why inst is not the table's winner ("" when it is)
  detail::voter votes;  ///< what the entry brings to the vote (vote.hpp)
};

/// A table ready for lookup: entries split by dtype so that a call scans only its own.
struct lookup_table {
  std::string source;  ///< a path, "embedded:<file>", or "built-in default"
  device_fingerprint device;  ///< what the table was measured on (empty for the built-in default)
  std::array<std::vector<dispatch_entry>, dtype_count> by_dtype;
  std::array<std::vector<dispatch_entry>, dtype_count> exact_by_dtype;  ///< looked at first
};

/// The table one device uses, and how lookup got there.
struct device_table {
  const lookup_table* table = nullptr;
  std::string note;  ///< the sources passed over on the way, in words ("" if none)
  /// Another model's table serves this device (no table of its own): first-use timing is on for it
  /// unless PADTUNE_AUTOTUNE or set_autotune said otherwise (results/nvidia-h200/untuned.md).
  bool borrowed = false;
};

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

// ---- the built-in default ----------------------------------------------------------------------

const instantiation& default_instantiation(dtype type, std::int64_t L) {
  const instantiation* inst = builtin_default_instantiation(type, L);
  if (!inst) throw error(status::unknown_dtype, fmt::format("no compiled instantiation takes dtype {}", name_of(type)));
  return *inst;
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
    if (!i || i == inst || i->type != e.type || v.ranked.size() == detail::vote_size) continue;
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

namespace detail {

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

}  // namespace detail

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

const device_table& table_for(backend b, bool need_device) {
  if (b == backend::host) {
    if (const device_table* t = state().slots[host_slot].load(std::memory_order_acquire)) return *t;
    return resolve_slot(host_slot, -1, device_info{backend::host, "", 0, 0, ""});
  }
  if (b == backend::cuda) return cuda_table(need_device);
  throw error(status::unsupported_backend, fmt::format("unknown backend (value {})", int(b)));
}

// ---- per call ----------------------------------------------------------------------------------

/// The entry among `entries` measured at exactly this problem, or nullptr. A linear scan.
const dispatch_entry* measured_at(const std::vector<dispatch_entry>& entries, std::int64_t rows, std::int64_t L,
                                  std::int64_t pad_left, std::int64_t pad_right) {
  for (const dispatch_entry& e : entries)
    if (same_problem(e.shape, rows, L, pad_left, pad_right)) return &e;
  return nullptr;
}

/// The vote for a shape, and whether the entry measured at that very shape overruled it.
struct shape_vote : detail::vote_result {
  const instantiation* overruled = nullptr;  ///< the vote's own pick, where the shape's entry overruled it
  float lead = 0;                            ///< log(that pick's time / the entry's winner's) at the shape; inf: unranked there
};

/// The vote of a dtype's entries for a shape (vote.hpp), its first `finalists` candidates ranked; an
/// entry measured at this very shape puts its winner first where the vote's pick ran more than
/// own_shape_margin slower there.
shape_vote vote_for(const std::vector<dispatch_entry>& entries, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                    std::int64_t pad_right, dtype type, std::size_t finalists = 1) {
  shape_vote v{detail::vote(
      entries, detail::point_of(rows, L, pad_left, pad_right, type), [](const dispatch_entry& e) -> const detail::voter& { return e.votes; },
      finalists)};
  if (!v.inst || v.distance > 0) return v;  // an entry at the shape lies at distance 0
  const dispatch_entry* own = measured_at(entries, rows, L, pad_left, pad_right);
  if (!own || own->inst == v.inst) return v;
  float lead = std::numeric_limits<float>::infinity();
  for (const auto& [inst, log_ratio] : own->votes.ranked)
    if (inst == v.inst) lead = log_ratio;
  if (lead > detail::own_shape_margin) {
    v.overruled = v.inst, v.lead = lead;
    detail::put_first(v, own->inst, finalists);
  }
  return v;
}

// ---- first-use timing (set_autotune) -----------------------------------------------------------

/// A shape as the dispatcher remembers a choice for it: by table, backend and device (one table may
/// serve the host and several GPUs: an explicit table taken for any device, an embedded one of the
/// same compute capability; a timed choice is one device's), dtype and problem, pad_right included
/// (it sets how far apart dy's rows are).
struct shape_key {
  const lookup_table* table = nullptr;
  backend where = backend::cuda;
  int device = -1;  ///< the CUDA ordinal; -1 on the host
  dtype type = dtype::f32;
  std::int64_t rows = 0, L = 0, pad_left = 0, pad_right = 0;
  auto tie() const { return std::tie(table, where, device, type, rows, L, pad_left, pad_right); }
  bool operator<(const shape_key& o) const { return tie() < o.tie(); }
  bool operator==(const shape_key& o) const { return tie() == o.tie(); }
};

struct timed_choice {
  const instantiation* inst = nullptr;  ///< nullptr while a thread is timing the shape
  detail::finalist_timings timings;
  std::string failed;  ///< why the timing failed ("" if it did not); then inst is the vote's choice
};

struct autotune_state {
  /// 1 on, 0 off (set_autotune or PADTUNE_AUTOTUNE said so), 2 neither said: on for a device that
  /// borrows another model's table only; -1 PADTUNE_AUTOTUNE not read yet.
  std::atomic<int> on{-1};
  std::mutex mutex;         ///< guards chosen
  std::map<shape_key, timed_choice> chosen;
  std::atomic<std::size_t> timed{0};  ///< shapes timed, for autotuned_shapes()
};

autotune_state& autotune() {
  static autotune_state a;
  return a;
}

/// Whether first-use timing is on for calls served by t (any device's when t is null).
bool autotune_on(const device_table* t = nullptr) {
  autotune_state& a = autotune();
  int on = a.on.load(std::memory_order_relaxed);
  if (on < 0) {
    const char* env = std::getenv("PADTUNE_AUTOTUNE");
    const std::string_view value = env ? env : "";
    int unread = -1;  // set_autotune, if it came first, wins; one thread reads the variable and warns
    if (a.on.compare_exchange_strong(unread, value == "1" ? 1 : value == "" ? 2 : 0) && value != "" && value != "0" &&
        value != "1")
      print_error("padtune: PADTUNE_AUTOTUNE='{}' is neither 0 nor 1: first-use timing stays off\n", value);
    on = a.on.load(std::memory_order_relaxed);
  }
  return on == 1 || (on == 2 && t && t->borrowed);
}

/// The device a call on backend b runs on, as timed choices are keyed: -1 on the host.
int device_of(backend b) {
  int ordinal = -1;
  if (b == backend::host) return -1;
  if (cudaGetDevice(&ordinal) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return ordinal;
}

/// The timed choice of a shape, for explain: done, failed, or being timed (inst null).
std::optional<timed_choice> find_timed(const shape_key& key) {
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  const auto it = a.chosen.find(key);
  if (it == a.chosen.end()) return std::nullopt;
  return it->second;
}

/// What first-use timing has for a shape on the dispatch path: {kernel, true} once chosen (timed,
/// or the vote's after a failed timing), {nullptr, true} while another thread times it,
/// {nullptr, false} if nobody has. With `claim`, an untimed shape is marked as this thread's to time.
std::pair<const instantiation*, bool> timed_or_claim(const shape_key& key, bool claim) {
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  if (const auto it = a.chosen.find(key); it != a.chosen.end()) return {it->second.inst, true};
  if (claim) a.chosen.emplace(key, timed_choice{});
  return {nullptr, false};
}

/// Times the vote's finalists on p and keeps one: the vote's first unless another is clearly faster
/// (autotune.hpp). Pre: this thread claimed the key. A failed timing is reported once and leaves the
/// shape to the vote's choice, for good: the user's call goes on.
const instantiation* time_and_keep(const shape_key& key, const detail::vote_result& v, backend b, const problem& p,
                                   cudaStream_t stream) {
  timed_choice c;
  try {
    c.timings = detail::time_finalists(v.order.data(), std::min(detail::autotune_finalists, v.candidates), b, p, stream);
    const std::vector<detail::finalist_timing>& runs = c.timings.runs;
    std::size_t best = 0;  // the fastest; of equals, the earliest in the vote's order
    for (std::size_t k = 1; k < runs.size(); ++k)
      if (runs[k].median_us < runs[best].median_us) best = k;
    c.inst = runs.at(best).median_us < (1 - detail::autotune_margin) * runs.at(0).median_us ? runs[best].inst : runs[0].inst;
  } catch (const error& x) {
    c = timed_choice{v.inst, {}, x.what()};
    print_error("padtune: first-use timing of {} (rows {}, L {}, pads {} {}) failed: {}; the vote's choice serves it\n",
               name_of(key.type), key.rows, key.L, key.pad_left, key.pad_right, x.what());
  }
  autotune_state& a = autotune();
  std::lock_guard lock(a.mutex);
  if (c.failed.empty()) a.timed.fetch_add(1, std::memory_order_relaxed);
  return (a.chosen[key] = std::move(c)).inst;
}

/// The thread's last few choices, so that a loop over a model's shapes votes once per shape (the
/// vote scans the dtype's entries: about 0.7 µs). Tables are never freed while the process runs
/// (set_results_path retires them), so a table's address names it.
struct recent_choices {
  struct choice {
    shape_key shape;     ///< its device -1 where timing is off (the vote's choice is any device's)
    bool timed = false;  ///< made with first-use timing on: a choice made with it off is not one
    const instantiation* inst = nullptr;
  };
  std::array<choice, 16> slots{};
  std::size_t next = 0;  ///< the slot the next new choice replaces (round robin)

  const instantiation* find(const choice& key) const {
    for (const choice& c : slots)
      if (c.timed == key.timed && c.shape == key.shape) return c.inst;  // an empty slot's table is null
    return nullptr;
  }
  void add(const choice& c) {
    slots[next] = c;
    next = (next + 1) % slots.size();
  }
};

/// The exact entry for this shape, or nullptr (tables hold a user's few shapes).
const dispatch_entry* exact(const lookup_table& t, dtype type, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                            std::int64_t pad_right) {
  return measured_at(t.exact_by_dtype[std::size_t(type)], rows, L, pad_left, pad_right);
}

/// What decided a shape's kernel.
enum class decided_by { exact, rule, timed, vote, built_in };

/// The one decision for a shape: the launch runs its kernel, explain puts it in words.
struct decision {
  decided_by by = decided_by::built_in;
  const instantiation* inst = nullptr;
  const dispatch_entry* entry = nullptr;  ///< exact: the shape's entry
  shape_vote vote;  ///< timed (explain) and vote: the vote of the nearest entries
  /// explain, timing on: what first-use timing has for the shape (timed: its timings; vote: a timing
  /// that failed, or one under way, inst null)
  std::optional<timed_choice> timed;
  bool timing_on = false;  ///< first-use timing is on for this table
  bool keep = true;        ///< the launch may remember it among the thread's recent choices
};

/// A launch's part in a decision: with it, a shape that first-use timing has not met is timed now
/// (outside stream capture); without it (explain) nothing is timed or claimed.
struct launch_context {
  const problem* p = nullptr;
  cudaStream_t stream = nullptr;
};

/// The kernel for a shape on backend b with table t, in this order: its exact entry; the rule for
/// a tiny problem (tiny_rule.hpp); with first-use timing on, the kept one of the vote's finalists
/// (timed now by a launch that is the shape's first, not in capture); the vote's choice; the
/// built-in default.
decision decide(const device_table& t, backend b, dtype type, std::int64_t rows, std::int64_t L, std::int64_t pad_left,
                std::int64_t pad_right, const launch_context* launch) {
  decision d;
  const lookup_table& table = *t.table;
  if (const dispatch_entry* e = exact(table, type, rows, L, pad_left, pad_right)) {
    d.by = decided_by::exact, d.inst = e->inst, d.entry = e;
    return d;
  }
  if (detail::is_tiny(b, rows, L, pad_left, pad_right, type))
    if (const instantiation* tiny = detail::tiny_instantiation(type)) {
      d.by = decided_by::rule, d.inst = tiny;
      return d;
    }
  d.timing_on = autotune_on(&t);
  const shape_key key{&table, b, d.timing_on ? device_of(b) : -1, type, rows, L, pad_left, pad_right};
  bool time_now = d.timing_on && launch;
  if (time_now) {
    const auto [known, present] = timed_or_claim(key, false);
    if (known) {
      d.by = decided_by::timed, d.inst = known;
      return d;
    }
    if (present) time_now = false, d.keep = false;  // another thread is timing it: the vote's choice meanwhile
  } else if (d.timing_on) {
    d.timed = find_timed(key);
  }
  const std::vector<dispatch_entry>& entries = table.by_dtype[std::size_t(type)];
  d.vote = vote_for(entries, rows, L, pad_left, pad_right, type, time_now ? detail::autotune_finalists : 1);
  if (d.timed && d.timed->inst && d.timed->failed.empty()) {
    d.by = decided_by::timed, d.inst = d.timed->inst;
    return d;
  }
  if (!d.vote.inst) {
    d.by = decided_by::built_in, d.inst = &default_instantiation(type, L);
    return d;
  }
  d.by = decided_by::vote, d.inst = d.vote.inst;
  if (!time_now || d.vote.candidates <= 1) return d;
  if (b != backend::host && detail::capturing(launch->stream)) {  // the vote's; timed outside capture
    d.keep = false;
    return d;
  }
  if (const auto [known, present] = timed_or_claim(key, true); present) {  // claimed meanwhile by another thread
    d.keep = false;
    if (known) d.by = decided_by::timed, d.inst = known;
    return d;
  }
  d.inst = time_and_keep(key, d.vote, b, *launch->p, launch->stream);
  d.by = decided_by::timed;
  return d;
}

/// The kernel for problem p (its rows `rows`) on backend b: the thread's recent choice for the
/// shape, else the decision.
const instantiation& choose(const device_table& t, const problem& p, std::int64_t rows, backend b, cudaStream_t stream) {
  const bool timing = autotune_on(&t);
  thread_local recent_choices recent;
  recent_choices::choice key{{t.table, b, timing ? device_of(b) : -1, p.type, rows, p.L, p.pad_left, p.pad_right}, timing};
  if (const instantiation* known = recent.find(key)) return *known;
  const launch_context launch{&p, stream};
  const decision d = decide(t, b, p.type, rows, p.L, p.pad_left, p.pad_right, &launch);
  if (d.keep && d.timing_on == timing) {
    key.inst = d.inst;
    recent.add(key);
  }
  return *d.inst;
}

}  // namespace

void dispatch(const problem& p, backend b, cudaStream_t stream) {
  std::string why;
  problem_sizes sizes;
  if (const status s = check(p, &why, &sizes); s != status::ok) throw error(s, why);
  if (sizes.dx_elems == 0) return;
  const device_table& t = table_for(b, true);
  const instantiation& inst = choose(t, p, sizes.rows, b, stream);
  const nvtx_range range(inst);  // the seed's zeroing is part of its cost: inside the range
  if (const status s = enqueue(inst, b, p, stream, &why); s != status::ok) throw error(s, why);
}

void constant_pad1d_backward(const void* dy, void* dx, std::int64_t B, std::int64_t C, std::int64_t L,
                             std::int64_t pad_left, std::int64_t pad_right, dtype type, cudaStream_t stream) {
  dispatch(problem{dy, dx, B, C, L, pad_left, pad_right, type}, backend::cuda, stream);
}

template <class T>
void constant_pad1d_backward(const T* dy, T* dx, std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                             std::int64_t pad_right, cudaStream_t stream) {
  dispatch(problem{dy, dx, B, C, L, pad_left, pad_right, dtype_of<T>()}, backend::cuda, stream);
}

template void constant_pad1d_backward<float>(const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                                             std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<double>(const double*, double*, std::int64_t, std::int64_t, std::int64_t,
                                              std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<__half>(const __half*, __half*, std::int64_t, std::int64_t, std::int64_t,
                                              std::int64_t, std::int64_t, cudaStream_t);
template void constant_pad1d_backward<__nv_bfloat16>(const __nv_bfloat16*, __nv_bfloat16*, std::int64_t, std::int64_t,
                                                     std::int64_t, std::int64_t, std::int64_t, cudaStream_t);

dispatch_choice explain_dispatch(std::int64_t B, std::int64_t C, std::int64_t L, std::int64_t pad_left,
                                 std::int64_t pad_right, dtype type, backend b) {
  std::string why;
  problem_sizes sizes;
  if (const status s = check_shape(B, C, L, pad_left, pad_right, type, &why, &sizes); s != status::ok)
    throw error(s, why);
  const device_table& dt = table_for(b, false);
  const lookup_table& t = *dt.table;
  const bucket where = bucket_of(sizes.rows, L, pad_left, type);
  const decision d = decide(dt, b, type, sizes.rows, L, pad_left, pad_right, nullptr);

  dispatch_choice c;
  c.table = t.source;
  c.bucket = where.name();
  c.inst = d.inst;
  const auto winner_text = [](const dispatch_entry& e) {
    std::string text = e.ratio_to_memcpy > 0 ? fmt::format("winner {:.2f}x memcpy", e.ratio_to_memcpy)
                                             : std::string("winner (no memcpy ratio recorded)");
    return e.note.empty() ? text : text + "; " + e.note;
  };
  const std::vector<dispatch_entry>& entries = t.by_dtype[std::size_t(type)];
  const shape_vote& v = d.vote;
  switch (d.by) {
    case decided_by::exact: {
      const dispatch_entry& e = *d.entry;
      c.served_by = "exact";
      c.matched_bucket = e.where.name();
      c.reason = fmt::format("exact entry ({},{},{},{},{}) in {}, {}", e.shape.B, e.shape.C, e.shape.L, e.shape.pad_left,
                             e.shape.pad_right, t.source, winner_text(e));
      break;
    }
    case decided_by::rule:
      c.served_by = "rule";
      c.reason = fmt::format("the rule for tiny problems: {} bytes of dy plus dx in {} rows (at most {} in at most {}) are "
                             "launch-bound, and {} bo{} t{} runs them within 5% of the best on the H100 and the H200; the "
                             "table ({}) is not asked",
                             sizes.rows * (2 * L + pad_left + pad_right) * std::int64_t(size_of(type)), sizes.rows,
                             detail::tiny_payload_bytes, detail::tiny_rows, detail::tiny_variant, detail::tiny_block_ol,
                             detail::tiny_threads, t.source);
      break;
    case decided_by::timed: {
      c.served_by = "timed";
      c.matched_bucket = entries[v.nearest].where.name();
      double taken = 0, fastest = 0;
      for (const detail::finalist_timing& f : d.timed->timings.runs) {
        c.timings.emplace_back(f.inst, f.median_us);
        if (f.inst == c.inst) taken = f.median_us;
        fastest = fastest == 0 ? f.median_us : std::min(fastest, f.median_us);
      }
      const detail::finalist_timing& first = d.timed->timings.runs.front();
      const std::string how = b == backend::host                ? " (host emulation)"
                              : d.timed->timings.l2_flushed ? ", L2 flushed"
                                                            : ", L2 not flushed (no memory for it)";
      c.reason = c.inst == first.inst
                     ? fmt::format("the vote's first of its {} finalists ({}), timed on this shape's first dispatch{}: {:.2f} us, "
                                   "no other {:.0f}% faster (the fastest {:.2f} us)",
                                   d.timed->timings.runs.size(), t.source, how, first.median_us, 100 * detail::autotune_margin,
                                   fastest)
                     : fmt::format("the fastest of the vote's {} finalists ({}), timed on this shape's first dispatch{}: {:.2f} us; "
                                   "the vote's first, {}, {:.2f} us",
                                   d.timed->timings.runs.size(), t.source, how, taken, first.inst->id, first.median_us);
      break;
    }
    case decided_by::vote: {
      const dispatch_entry& n = entries[v.nearest];
      c.served_by = n.where == where ? "bucket" : "fallback";
      c.matched_bucket = n.where.name();
      const std::string nearest_text = n.where == where ? fmt::format("its bucket {}", c.matched_bucket)
                                                        : fmt::format("fallback: nearest bucket {} (distance {:.2f})",
                                                                      c.matched_bucket, v.distance);
      const std::string vote_text =
          v.overruled ? fmt::format("the {} nearest entries vote for {}, {} at this very shape's entry: its winner serves it",
                                    v.voters, v.overruled->id,
                                    std::isinf(v.lead) ? std::string("not among its fastest")
                                                       : fmt::format("{:.1f}% slower", 100 * std::expm1(v.lead)))
          : v.inst == n.inst ? fmt::format("the {} nearest entries vote for it", v.voters)
                             : fmt::format("the {} nearest entries vote for another kernel", v.voters);
      c.reason = fmt::format("{} in {}, {}; {}", nearest_text, t.source, winner_text(n), vote_text);
      if (d.timed && !d.timed->failed.empty())
        c.reason += fmt::format("; first-use timing failed ({}): the vote's choice serves it", d.timed->failed);
      else if (d.timed)
        c.reason += "; first-use timing is on: another thread is timing this shape's finalists now";
      else if (d.timing_on && v.candidates > 1)
        c.reason += fmt::format("; first-use timing is on: the first dispatch of this shape times the vote's {} finalists",
                                std::min(detail::autotune_finalists, v.candidates));
      break;
    }
    case decided_by::built_in:
      c.served_by = "fallback";
      c.reason = t.source == default_source ? builtin_default_reason(type, L)
                                            : fmt::format("{} has no {} entry; {}", t.source, name_of(type), builtin_default_reason(type, L));
      break;
  }
  if (!dt.note.empty()) c.reason += fmt::format(" ({})", dt.note);
  if (sizes.dx_elems == 0) c.reason += "; the shape has no elements: dispatch does nothing";
  return c;
}

void set_autotune(bool on) { autotune().on.store(on ? 1 : 0, std::memory_order_relaxed); }

std::size_t autotuned_shapes() { return autotune().timed.load(std::memory_order_relaxed); }

bool autotune_enabled() { return autotune_on(); }  // as set: a device borrowing a table also times where this is false

const std::vector<results_table>& embedded_results_tables() { return parsed_embedded_tables().tables; }

std::vector<std::string> embedded_table_files() {
  std::vector<std::string> files;
  for (const detail::embedded_table* e = detail::embedded_tables; e->file; ++e) files.emplace_back(e->file);
  return files;
}

void set_results_path(const std::string& path, bool any_device) {
  dispatch_state& s = state();
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
