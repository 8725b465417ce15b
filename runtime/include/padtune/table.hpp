#pragma once
/// The per-GPU results table (results/<gpu>.json) that the dispatcher reads and `padtune tune`
/// writes: its schema, and reading with errors that name the file and the field. Numbers are read
/// strictly: integers are JSON integers in range, floats finite, and each entry's shape a valid
/// problem that lies in the entry's bucket. (Writing is the tuner's: tuner/store.)
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "padtune/buckets.hpp"
#include "padtune/dtype.hpp"
#include "padtune/input_errors.hpp"
#include "padtune/shape5.hpp"

namespace padtune {

inline constexpr int results_schema_version = 1;
inline constexpr const char* harness_version = "0.1.0";

/// What identifies the hardware and software a measurement was made on.
struct device_fingerprint {
  std::string backend = "cuda";  ///< "cuda", or "host" for the emulation
  std::string name;              ///< "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  long long l2_bytes = 0;
  int memory_clock_khz = 0, bus_width_bits = 0;
  int driver_version = 0, runtime_version = 0;
  std::string uuid;  ///< the measuring card, as provenance only

  /// File-name form of the model: "nvidia-h200"; "host-emulation" for the host backend.
  std::string slug() const;
  /// Same hardware model: backend, name, compute capability, SM count, L2, memory clock and bus
  /// width. Driver, runtime and the card's uuid may differ: two cards of one model measure alike.
  bool same_hardware(const device_fingerprint& o) const;
  /// Same hardware model and the same driver and runtime: a cache resumes only on such a device.
  bool same_model(const device_fingerprint& o) const;
  /// "NVIDIA H200 (cuda, cc 9.0, 132 SMs, L2 62914560 B, 2619000 kHz x 6144 bit, driver 13000, runtime 13000)".
  std::string describe() const;
};

/// Ids of JIT candidates (padtune tune --jit) start with this: "jit__" + the JIT kernel's id, whose
/// pads are compile-time constants. The dispatcher runs only ahead-of-time kernels.
inline constexpr std::string_view jit_id_prefix = "jit__";
inline bool is_jit_id(std::string_view id) { return id.substr(0, jit_id_prefix.size()) == jit_id_prefix; }

struct candidate_numbers {
  std::string id;
  double median_us = 0, iqr_us = 0;
  double gbps = 0;             ///< payload 2*B*C*L*sizeof(T), decimal GB/s
  double ratio_to_memcpy = 0;  ///< time / time of a D2D cudaMemcpyAsync of the same payload
};

/// One of an entry's fastest candidates: its time over the winner's on the entry's shapes.
struct ranked_candidate {
  std::string id;
  double ratio = 1;  ///< >= 1; the winner's is 1
  bool operator==(const ranked_candidate&) const = default;
};

/// How many candidates an entry ranks (`ranked`): what the dispatcher's vote weighs. 16, not 8: the
/// dispatcher with each H100 entry left out in turn served over 1.05 of the best at 6 of 1036 shapes
/// instead of 9 (worst 1.106 -> 1.068); in the study's model of the vote, 16 per entry is within
/// 0.0003 in geomean of a vote over every candidate's time (docs/performance-notes.md, "The vote
/// ranks 16").
inline constexpr std::size_t ranked_limit = 16;

/// A bucket's entry serves the shapes near its own (the dispatcher's vote, runtime/src/vote.hpp);
/// an exact entry (padtune tune --sizes) serves its own shape alone, before any bucket: the same
/// dtype, B*C, L and pads.
struct table_entry {
  dtype type = dtype::f32;
  bucket where;  ///< the bucket of `shape`
  shape5 shape;  ///< the shape measured for this bucket, or the exact entry's shape
  bool exact = false;
  candidate_numbers winner;
  std::optional<candidate_numbers> runner_up;
  double margin = 0;  ///< runner_up median / winner median - 1
  /// The winner, then the fastest other fully timed candidates in order, at most ranked_limit;
  /// empty in a table written before the field (the vote then knows the winner and runner-up).
  std::vector<ranked_candidate> ranked;
};

struct results_table {
  int schema = results_schema_version;
  std::string harness = harness_version;
  device_fingerprint device;
  nlohmann::json settings = nlohmann::json::object();
  std::string command;  ///< the command line that made it
  std::string created;  ///< UTC, ISO 8601
  bool complete = true; ///< false for a partial table left by an interrupted run
  std::vector<table_entry> entries;
};

nlohmann::json to_json(const device_fingerprint& d);
device_fingerprint fingerprint_from_json(const nlohmann::json& j, const std::string& where);
nlohmann::json to_json(const results_table& t);
/// Throws results_error naming `source` and the offending field.
results_table table_from_json(const nlohmann::json& j, const std::string& source);

/// Parses a table's text; `source` names it in errors. Throws results_error on empty, truncated,
/// too deeply nested or wrong-schema text (newer_schema_error for a newer schema).
results_table parse_table(const std::string& text, const std::string& source);

/// An entry of a table that could not be read: where it was, why, and its text as it was.
struct rejected_entry {
  std::size_t index = 0;  ///< its place in "entries"
  std::string why;
  std::string text;
};

/// As parse_table, but an entry that cannot be read goes to `rejected` instead of failing the
/// whole table (the header must still read): what `padtune tune` keeps of a table it replaces.
results_table parse_table_keeping_good(const std::string& text, const std::string& source, std::vector<rejected_entry>& rejected);

/// The largest table file padtune reads (the H200's, 678 entries, is 1.3 MB).
inline constexpr std::size_t max_table_bytes = std::size_t(64) << 20;
/// Reads a table; throws results_error on a missing, empty, truncated or wrong-schema file, or one
/// that is no regular file (a folder; a FIFO, which would block), io_error if reading fails.
results_table read_table(const std::filesystem::path& path);
/// The text of a table as padtune writes it.
std::string table_text(const results_table& t);

/// Whether a shape is this problem to a kernel: the same rows B*C (how B and C split it does not
/// matter), L and pads. What an exact entry serves.
inline bool same_problem(const shape5& s, long long rows, long long L, long long pad_left, long long pad_right) {
  return s.B * s.C == rows && s.L == L && s.pad_left == pad_left && s.pad_right == pad_right;
}

/// Whether two entries hold one place in a table: the same kind (a sweep's or exact), dtype and
/// problem. A table has one entry per place; a bucket may hold several, each a voter of its own.
inline bool same_place(const table_entry& a, const table_entry& b) {
  return a.type == b.type && a.exact == b.exact &&
         same_problem(a.shape, b.shape.B * b.shape.C, b.shape.L, b.shape.pad_left, b.shape.pad_right);
}

/// The order a table's entries are written in: by dtype, buckets' entries before exact ones, then by
/// bucket and problem.
inline auto entry_order(const table_entry& e) {
  return std::make_tuple(int(e.type), e.exact, e.where.log2_L, e.where.log2_rows, e.where.align, e.shape.B * e.shape.C,
                         e.shape.L, e.shape.pad_left, e.shape.pad_right);
}

/// The tables this library embedded from results/*.json at build time, parsed once (they cannot
/// change while the process runs); one that does not parse is left out (the dispatcher reports it).
/// Defined beside the dispatcher (dispatch.cpp), which owns the embedded tables: table.cpp alone
/// (the fuzz targets) needs none.
const std::vector<results_table>& embedded_results_tables();

/// The current time, UTC, ISO 8601.
std::string utc_now();

}  // namespace padtune
