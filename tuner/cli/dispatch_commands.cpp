// `padtune explain`: which table, bucket and instantiation the dispatcher takes for a shape, and why.
// `padtune run`: one shape, N times, through the dispatcher or one instantiation (for Nsight).
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <vector>

#include "padtune/cuda_error.hpp"
#include "padtune/enqueue.hpp"
#include "commands.hpp"
#include "padtune/measure/cuda_timer.hpp"
#include "padtune/nvtx.hpp"
#include "padtune/padtune.hpp"
#include "padtune/store/output_file.hpp"
#include "padtune/table.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::cli {
namespace {

/// The options both subcommands take.
struct shape_options {
  std::string shape;  ///< "B,C,L,pad_left,pad_right"
  std::string dtype;
  std::string backend = "cuda";
  std::string results;  ///< a results file that replaces the lookup order
  bool any_device = false;  ///< take --results even if it is a table of another device model
};

struct explain_options : shape_options {
  bool json = false;
  bool autotune = false;  ///< dispatch the shape once first, with first-use timing on
};

struct run_options : shape_options {
  std::string id;  ///< "" for the dispatcher
  int n = 1;
  std::optional<std::string> value;  ///< the fill value's text (ConstantPad1d's); none: +0.0
  std::string dy_file, dx_file;
  bool l2_flush = false;
  bool autotune = false;
};

/// A shape and dtype that passed check_shape.
struct parsed_shape {
  std::int64_t B = 0, C = 0, L = 0, pad_left = 0, pad_right = 0;
  dtype type = dtype::f32;
  problem_sizes sizes;
  std::string text() const {
    return fmt::format("B={} C={} L={} pad_left={} pad_right={} (OL={}) {}", B, C, L, pad_left, pad_right, sizes.OL,
                       name_of(type));
  }
};

/// Parses "B,C,L,pad_left,pad_right": five integers, nothing else.
bool parse_shape_text(const std::string& text, parsed_shape& out, std::string* why) {
  std::int64_t values[5] = {};
  const char* p = text.data();
  const char* const end = text.data() + text.size();
  for (int i = 0; i < 5; ++i) {
    const auto [next, ec] = std::from_chars(p, end, values[i]);
    if (ec == std::errc::result_out_of_range) {
      *why = fmt::format("value {} of '{}' does not fit in 64 bits", i + 1, printable(text));
      return false;
    }
    if (ec != std::errc() || (next != end && *next != ',') || (next == end && i < 4) || (next != end && i == 4)) {
      *why = fmt::format("'{}' is not five integers B,C,L,pad_left,pad_right", printable(text));
      return false;
    }
    p = next + 1;
  }
  out.B = values[0], out.C = values[1], out.L = values[2], out.pad_left = values[3], out.pad_right = values[4];
  return true;
}

/// Parses a fill value as Python's float() reads it: a decimal number, inf or nan, with spaces around
/// it allowed. Empty text and a number beyond a double's range are refused, not read as 0 or
/// infinity: a typo must not become a fill.
bool parse_value_text(const std::string& text, double* out, std::string* why) {
  const auto first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) {
    *why = "is empty: give a number (0, -1.5, 1e-3, inf, nan)";
    return false;
  }
  const auto last = text.find_last_not_of(" \t\n\r\f\v");
  const char* p = text.data() + first;
  const char* const end = text.data() + last + 1;
  if (*p == '+' && p + 1 != end && p[1] != '-') ++p;  // from_chars takes '-' but not '+'
  const auto [next, ec] = std::from_chars(p, end, *out);
  if (ec == std::errc::result_out_of_range && next == end) {
    // An underflow reads as Python reads it (the nearest double: 0 or subnormal); an overflow is refused.
    *out = std::strtod(std::string(p, end).c_str(), nullptr);
    if (std::isinf(*out)) {
      *why = fmt::format("'{}' is beyond a double's range (for infinity write inf)", printable(text));
      return false;
    }
    return true;
  }
  if (ec != std::errc() || next != end) {
    *why = fmt::format("'{}' is not a number (0, -1.5, 1e-3, inf, nan)", printable(text));
    return false;
  }
  return true;
}

/// Parses and checks --shape and --dtype; on failure prints why and returns the exit code.
std::optional<int> read_shape(const char* command, const shape_options& o, parsed_shape& out) {
  std::string why;
  if (!parse_shape_text(o.shape, out, &why)) {
    print_error("padtune {}: --shape {}\n", command, why);
    return exit_usage;
  }
  const auto type = parse_dtype(o.dtype);
  if (!type) {
    print_error("padtune {}: --dtype '{}' names no dtype (f32, f64, f16, bf16)\n", command, printable(o.dtype));
    return exit_bad_input;
  }
  out.type = *type;
  if (check_shape(out.B, out.C, out.L, out.pad_left, out.pad_right, out.type, &why, &out.sizes) != status::ok) {
    print_error("padtune {}: bad shape {}: {}\n", command, printable(o.shape), why);
    return exit_bad_input;
  }
  return std::nullopt;
}

backend backend_of(const shape_options& o) { return o.backend == "host" ? backend::host : backend::cuda; }

/// The options both subcommands take, added to `cmd`.
void add_shape_options(CLI::App* cmd, shape_options& o) {
  cmd->add_option("--shape", o.shape, "B,C,L,pad_left,pad_right; a negative pad crops")->required();
  cmd->add_option("--dtype", o.dtype, "f32, f64, f16 or bf16")->required();
  cmd->add_option("--backend", o.backend, "cuda (default) or host (the emulation)")
      ->check(CLI::IsMember({"cuda", "host"}));
  cmd->add_option("--results", o.results, "Use this results file instead of the lookup order");
  cmd->add_flag("--any-device", o.any_device, "Take --results even if it is a table of another device model");
}

/// The name of the current CUDA device, or "" if none can be asked.
std::string current_cuda_device_name() {
  int ordinal = 0;
  cudaDeviceProp prop{};
  if (cudaGetDevice(&ordinal) != cudaSuccess || cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return prop.name;
}

/// An explicit --results must be usable: the dispatcher would fall back quietly, a user who named a
/// file means that file, and a table of another device model only when asked (--any-device).
/// Returns an exit code on failure.
std::optional<int> use_results_file(const char* command, const shape_options& o) {
  if (o.results.empty()) return std::nullopt;
  try {
    const results_table t = read_table(o.results);
    if (!o.any_device) {
      const bool host = o.backend == "host";
      const std::string device = host ? "" : current_cuda_device_name();
      const bool fits = host ? t.device.backend == "host" : (device.empty() || (t.device.backend == "cuda" && t.device.name == device));
      if (!fits)
        throw results_error(fmt::format("{} is a table of {} ({} backend), this run is on {}: pass --any-device to use it anyway",
                                               o.results, printable(t.device.name), t.device.backend,
                                               host ? std::string("the host emulation") : device));
    }
  } catch (const std::exception& e) {
    print_error("padtune {}: --results: {}\n", command, e.what());
    return exit_code_of(e);
  }
  set_results_path(o.results, o.any_device);
  return std::nullopt;
}

// ---- explain -----------------------------------------------------------------------------------

std::optional<int> dispatch_once_timed(const parsed_shape& s, backend b);

int run_explain(const explain_options& o) {
  parsed_shape s;
  if (const auto code = read_shape("explain", o, s)) return *code;
  if (const auto code = use_results_file("explain", o)) return *code;
  if (o.autotune)
    if (const auto code = dispatch_once_timed(s, backend_of(o))) return *code;
  const dispatch_choice c = explain_dispatch(s.B, s.C, s.L, s.pad_left, s.pad_right, s.type, backend_of(o));
  const instantiation& i = *c.inst;
  if (o.json) {
    nlohmann::json out = {
        {"shape", {{"B", s.B}, {"C", s.C}, {"L", s.L}, {"pad_left", s.pad_left}, {"pad_right", s.pad_right}}},
        {"dtype", name_of(s.type)},
        {"backend", name_of(backend_of(o))},
        {"table", safe_text(c.table)},
        {"bucket", c.bucket},
        {"matched_bucket", c.matched_bucket},
        {"served_by", c.served_by},
        {"instantiation", i.id},
        {"variant", i.variant},
        {"block_ol", i.block_ol},
        {"threads", i.threads},
        {"access_width", i.access_width},
        {"needs_zeroed_dx", i.needs_zeroed_dx},
        {"reason", safe_text(c.reason)}};
    nlohmann::json timings = nlohmann::json::array();
    for (const auto& [inst, us] : c.timings) timings.push_back({{"instantiation", inst->id}, {"median_us", us}});
    out["timings"] = timings;
    fmt::print("{}\n", json_text(out));
    return exit_ok;
  }
  fmt::print("shape          {} on {}\n", s.text(), name_of(backend_of(o)));
  fmt::print("table          {}\n", safe_text(c.table));
  fmt::print("bucket         {}\n", c.bucket);
  fmt::print("matched        {}\n", !c.matched_bucket.empty() ? c.matched_bucket
                                   : c.served_by == "rule"   ? "(none: the rule for tiny problems)"
                                                             : "(none: built-in default)");
  fmt::print("served by      {}\n", c.served_by == "exact"    ? "an exact entry of this shape"
                                   : c.served_by == "rule"   ? "the rule for tiny problems (one kernel for all)"
                                   : c.served_by == "timed"  ? "the vote's finalists, timed on first use"
                                   : c.served_by == "bucket" ? "the vote of the nearest entries, the nearest in its bucket"
                                                             : "a fallback (the vote, its nearest entry in another bucket; or the "
                                                               "built-in default)");
  fmt::print("instantiation  {}\n", i.id);
  fmt::print("               {}, BLOCK_OL {}, {} threads, {}-byte accesses{}\n", i.variant, i.block_ol, i.threads,
             i.access_width, i.needs_zeroed_dx ? ", zeroes dx first" : "");
  fmt::print("why            {}\n", safe_text(c.reason));
  for (const auto& [inst, us] : c.timings) fmt::print("timed          {:10.2f} us  {}\n", us, inst->id);
  return exit_ok;
}

// ---- run ---------------------------------------------------------------------------------------

/// Host memory aligned to 16 bytes, the widest access of any instantiation.
class host_buffer {
  struct alignas(16) chunk {
    unsigned char bytes[16];
  };
  std::vector<chunk> chunks_;

 public:
  explicit host_buffer(std::int64_t bytes) : chunks_(std::size_t((bytes + 15) / 16)) {}
  unsigned char* data() { return chunks_.empty() ? nullptr : chunks_.front().bytes; }
};

/// cudaMalloc'ed memory, freed on scope exit.
class device_buffer {
  void* p_ = nullptr;

 public:
  device_buffer() = default;
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_) cudaFree(p_);
  }
  cudaError_t allocate(std::int64_t bytes) { return bytes > 0 ? cudaMalloc(&p_, std::size_t(bytes)) : cudaSuccess; }
  void* get() const { return p_; }
};

/// dy's bytes at p.dy copied into a fresh device buffer, a device buffer for dx beside it, and p
/// pointed at both (where every step succeeded).
cudaError_t to_device(problem& p, const parsed_shape& s, device_buffer& dy_dev, device_buffer& dx_dev) {
  const std::int64_t dy_bytes = s.sizes.dy_bytes();
  cudaError_t e = dy_dev.allocate(dy_bytes);
  if (e == cudaSuccess) e = dx_dev.allocate(s.sizes.dx_bytes());
  if (e == cudaSuccess && dy_bytes > 0) e = cudaMemcpy(dy_dev.get(), p.dy, std::size_t(dy_bytes), cudaMemcpyHostToDevice);
  if (e == cudaSuccess) p.dy = dy_dev.get(), p.dx = dx_dev.get();
  return e;
}


/// Random elements, none of them all-zero bits, so that a dx element left unwritten or written
/// with the padding value shows up. The seed is fixed: two runs see the same data.
void fill_random_nonzero(unsigned char* out, std::int64_t bytes, std::size_t elem_bytes) {
  std::mt19937_64 gen(0x70ad7e5eULL);
  for (std::int64_t i = 0; i < bytes; i += 8) {
    const std::uint64_t word = gen();
    std::memcpy(out + i, &word, std::size_t(std::min<std::int64_t>(8, bytes - i)));
  }
  for (std::int64_t e = 0; e < bytes; e += std::int64_t(elem_bytes)) {
    bool zero = true;
    for (std::size_t k = 0; k < elem_bytes; ++k) zero = zero && out[e + std::int64_t(k)] == 0;
    if (zero) out[e] = 1;
  }
}

/// Reads exactly `bytes` bytes of dy from `path`; on failure prints why and returns false.
bool read_dy(const std::string& path, unsigned char* out, std::int64_t bytes, const parsed_shape& s) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    // file_size of a FIFO or a device says "Operation not supported": name what is wrong instead.
    print_error("padtune run: --dy {} is not a regular file (dy is read from a file of exactly its size)\n", path);
    return false;
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    print_error("padtune run: --dy {} cannot be read: {}\n", path, ec.message());
    return false;
  }
  if (std::int64_t(size) != bytes) {
    print_error("padtune run: --dy {} holds {} bytes; {} needs exactly B*C*OL*sizeof(T) = {}*{}*{}*{} = {} bytes\n",
               path, size, s.text(), s.B, s.C, s.sizes.OL, s.sizes.elem_bytes, bytes);
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (bytes > 0 && !in.read(reinterpret_cast<char*>(out), bytes)) {
    print_error("padtune run: --dy {} cannot be read\n", path);
    return false;
  }
  return true;
}

/// One run on `stream`: the dispatcher (chosen == nullptr) or one instantiation, dx zeroed if it
/// needs it. Throws padtune::error on failure.
void run_once(const instantiation* chosen, backend b, const problem& p, cudaStream_t stream) {
  if (!chosen) {
    dispatch(p, b, stream);  // opens its own range, named by the instantiation it picks
    return;
  }
  const nvtx_range range(*chosen);  // the seed's zeroing is part of its run: inside the range
  std::string why;
  if (const status s = enqueue(*chosen, b, p, stream, &why); s != status::ok) throw error(s, why);
}

/// Why no CUDA device is usable, or "" if one is.
std::string cuda_unusable() {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
    cudaGetLastError();
    return cuda_error_text(e);
  }
  return count == 0 ? "no CUDA device found" : "";
}

/// Dispatches the shape once on random non-zero data with first-use timing on, so that explain
/// reports the timed choice. Returns an exit code on failure.
std::optional<int> dispatch_once_timed(const parsed_shape& s, backend b) {
  if (b == backend::cuda)
    if (const std::string why = cuda_unusable(); !why.empty()) {
      print_error("padtune explain: --autotune needs a usable GPU: {}\n", why);
      return exit_no_device;
    }
  const std::int64_t dy_bytes = s.sizes.dy_bytes(), dx_bytes = s.sizes.dx_bytes();
  host_buffer dy_host(dy_bytes), dx_host(dx_bytes);
  fill_random_nonzero(dy_host.data(), dy_bytes, size_of(s.type));
  problem p{dy_host.data(), dx_host.data(), s.B, s.C, s.L, s.pad_left, s.pad_right, s.type};
  device_buffer dy_dev, dx_dev;
  try {
    if (b == backend::cuda)
      if (const cudaError_t e = to_device(p, s, dy_dev, dx_dev); e != cudaSuccess)
        throw error(status::launch_failed, fmt::format("preparing device buffers of {} + {} bytes failed: {}", dy_bytes, dx_bytes,
                                                       cuda_error_text(e)));
    set_autotune(true);
    dispatch(p, b, nullptr);
    if (b == backend::cuda)
      if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
        throw error(status::launch_failed, "the kernel failed: " + cuda_error_text(e));
  } catch (const error& x) {
    print_error("padtune explain: --autotune: {} ({})\n", x.what(), padtune::name_of(x.code()));
    return exit_failed;
  }
  return std::nullopt;
}

int run_run(const run_options& o) {
  parsed_shape s;
  if (const auto code = read_shape("run", o, s)) return *code;
  if (o.n < 1) {
    print_error("padtune run: -n must be at least 1, got {}\n", o.n);
    return exit_usage;
  }
  std::uint64_t fill = 0;
  double value = 0.0;
  if (o.value) {
    std::string why;
    if (!parse_value_text(*o.value, &value, &why)) {
      print_error("padtune run: --value {}\n", why);
      return exit_usage;
    }
    if (fill_bits(value, s.type, &fill, &why) != status::ok) {
      print_error("padtune run: --value: {}\n", why);
      return exit_bad_input;
    }
  }
  const backend b = backend_of(o);
  if (o.l2_flush && b != backend::cuda) {
    print_error("padtune run: --l2-flush needs --backend cuda (the host emulation has no L2 to flush)\n");
    return exit_usage;
  }
  if (const auto code = use_results_file("run", o)) return *code;
  if (o.autotune && !o.id.empty()) {
    print_error("padtune run: --autotune times the dispatcher's finalists; --id names one instantiation: give one of the two\n");
    return exit_usage;
  }
  if (o.autotune) set_autotune(true);
  // SIGINT and SIGTERM end the one wait of a run, for a FIFO's reader, with exit 130 and a message.
  const std::atomic<bool>* interrupted = catch_interrupts();
  // The output is checked before any work: a folder or a place that cannot be written is refused now.
  std::optional<tuner::output_target> dx_out;
  try {
    if (!o.dx_file.empty()) dx_out = tuner::resolve_output(o.dx_file);
  } catch (const std::exception& e) {
    print_error("padtune run: --dx {}\n", e.what());
    return exit_code_of(e);
  }

  const instantiation* chosen = nullptr;  // nullptr: the dispatcher
  std::string how;
  if (!o.id.empty()) {
    chosen = find_instantiation(o.id);
    if (!chosen) {
      print_error("padtune run: --id {} is no compiled instantiation (see padtune list)\n", o.id);
      return exit_bad_input;
    }
    if (chosen->type != s.type) {
      print_error("padtune run: --id {} takes dtype {}, --dtype is {}\n", o.id, name_of(chosen->type), name_of(s.type));
      return exit_bad_input;
    }
    how = "--id";
  }
  if (!chosen) how = fmt::format("dispatcher, table {}", explain_dispatch(s.B, s.C, s.L, s.pad_left, s.pad_right, s.type, b).table);

  if (b == backend::cuda) {
    if (const std::string why = cuda_unusable(); !why.empty()) {
      print_error("padtune run: --backend cuda needs a usable GPU: {}\n", why);
      return exit_no_device;
    }
  }

  const std::int64_t dy_bytes = s.sizes.dy_bytes(), dx_bytes = s.sizes.dx_bytes();
  host_buffer dy_host(dy_bytes), dx_host(dx_bytes);
  if (!o.dy_file.empty()) {
    if (!read_dy(o.dy_file, dy_host.data(), dy_bytes, s)) return exit_bad_input;
  } else {
    fill_random_nonzero(dy_host.data(), dy_bytes, size_of(s.type));
  }

  problem p{dy_host.data(), dx_host.data(), s.B, s.C, s.L, s.pad_left, s.pad_right, s.type};
  p.fill = fill;
  device_buffer dy_dev, dx_dev;
  if (b == backend::cuda)
    if (const cudaError_t e = to_device(p, s, dy_dev, dx_dev); e != cudaSuccess) {
      print_error("padtune run: preparing device buffers of {} + {} bytes failed: {}\n", dy_bytes, dx_bytes, cuda_error_text(e));
      return exit_failed;
    }
  // The timings' L2, full of the dirty lines of their flush, which a profiler's own cache control (an
  // invalidate) does not reproduce: the timer's own flush, and the runs on its stream behind it.
  tuner::cuda_timer* timer = nullptr;
  if (o.l2_flush) {
    try {
      timer = &tuner::cuda_timer::get();
    } catch (const std::runtime_error& x) {
      print_error("padtune run: --l2-flush: {}\n", x.what());
      return exit_failed;
    }
  }
  const cudaStream_t stream = timer ? timer->stream() : nullptr;

  const auto start = std::chrono::steady_clock::now();
  try {
    for (int i = 0; i < o.n; ++i) {
      if (interrupted->load()) {
        if (b == backend::cuda) cudaDeviceSynchronize();
        print_error("padtune run: interrupted after {} of {} runs; nothing was written\n", i, o.n);
        return exit_interrupted;
      }
      if (timer) {
        try {
          timer->flush_l2();
        } catch (const std::runtime_error& x) {
          throw error(status::launch_failed, x.what());
        }
      }
      run_once(chosen, b, p, stream);
    }
    if (b == backend::cuda) {
      if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
        throw error(status::launch_failed, "the kernel failed: " + cuda_error_text(e));
    }
  } catch (const error& x) {
    print_error("padtune run: {} ({})\n", x.what(), padtune::name_of(x.code()));
    return exit_failed;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // With --autotune the first run chose among the finalists: the report names what ran after it.
  const dispatch_choice after = explain_dispatch(s.B, s.C, s.L, s.pad_left, s.pad_right, s.type, b);
  const instantiation& ran = chosen ? *chosen : *after.inst;
  if (!chosen && after.served_by == "timed")
    how += ", first-use timing: the first run timed the vote's finalists (included in the wall time)";

  if (!o.dx_file.empty()) {
    if (b == backend::cuda && dx_bytes > 0) {
      if (const cudaError_t e = cudaMemcpy(dx_host.data(), dx_dev.get(), std::size_t(dx_bytes), cudaMemcpyDeviceToHost);
          e != cudaSuccess) {
        print_error("padtune run: copying dx back failed: {}\n", cuda_error_text(e));
        return exit_failed;
      }
    }
    try {
      tuner::write_output(*dx_out, std::string_view(reinterpret_cast<const char*>(dx_host.data()), std::size_t(dx_bytes)),
                          interrupted);
    } catch (const std::exception& x) {
      print_error("padtune run: --dx {}\n", x.what());
      return exit_code_of(x);
    }
  }

  // dx written to standard output keeps it to itself: the report goes to standard error then.
  std::FILE* report = dx_out && tuner::is_standard_output(*dx_out) ? stderr : stdout;
  const std::string line = fmt::format(
      "padtune run: {} ({}) on {}, {}{}, {} run{}{}, {:.1f} us wall time per run ({})\n", ran.id, how, name_of(b), s.text(),
      o.value ? fmt::format(", fill {} (bits {:#x})", value, fill) : "", o.n, o.n == 1 ? "" : "s", timer ? ", L2 flushed before each" : "", seconds * 1e6 / o.n,
      b == backend::host ? "host emulation: says nothing about GPU speed"
                         : "includes launch overhead and one final synchronize; padtune tune measures");
  std::fputs(safe_text(line).c_str(), report);  // `how` names the table's path
  return exit_ok;
}

}  // namespace

void add_dispatch_commands(CLI::App& app, int* result) {
  auto ex = std::make_shared<explain_options>();
  CLI::App* explain = app.add_subcommand("explain", "Which table, bucket and instantiation the dispatcher takes for a shape, and why");
  add_shape_options(explain, *ex);
  explain->add_flag("--json", ex->json, "Print JSON");
  explain->add_flag("--autotune", ex->autotune,
                    "Dispatch the shape once first (random data) with first-use timing on, and explain that: which "
                    "of the vote's finalists was fastest, and their times");
  explain->callback([ex, result] { *result = run_explain(*ex); });

  auto ro = std::make_shared<run_options>();
  CLI::App* run = app.add_subcommand("run", "Run one shape N times, through the dispatcher or one instantiation (for Nsight)");
  add_shape_options(run, *ro);
  run->add_option("--id", ro->id, "Run this instantiation instead of the dispatcher's choice (see padtune list)");
  run->add_option("-n", ro->n, "How many times (default 1)");
  run->add_option("--value", ro->value,
                  "The value dx takes where it has no source (ConstantPad1d's value; default 0), converted to --dtype "
                  "as PyTorch converts it");
  run->add_option("--dy", ro->dy_file, "dy as raw little-endian elements, exactly B*C*OL*sizeof(T) bytes (default: random, non-zero)");
  run->add_option("--dx", ro->dx_file, "Write dx here, raw");
  run->add_flag("--l2-flush", ro->l2_flush,
                "Write twice the L2 before each run, outside the run's NVTX range, as padtune tune does before "
                "every sample. For a profile of the timings' dirty L2, Nsight Compute needs --cache-control none "
                "and --replay-mode application (kernel replay re-runs the kernel with dy already in L2)");
  run->add_flag("--autotune", ro->autotune,
                "First-use timing on (as PADTUNE_AUTOTUNE=1): the first run times the vote's finalists, the others "
                "take the fastest");
  run->callback([ro, result] { *result = run_run(*ro); });
}

}  // namespace padtune::cli
