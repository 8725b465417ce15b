// NVRTC compilation of a JIT kernel, through the on-disk cache (disk_cache.hpp).
#include "padtune/jit/compile.hpp"

#include <cuda_runtime_api.h>
#include <fmt/format.h>
#include <nvrtc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <vector>

#include "disk_cache.hpp"
#include "padtune/cuda_error.hpp"
#include "padtune/error.hpp"

namespace padtune::jit {
namespace {

using clock_type = std::chrono::steady_clock;

/// The kernels need C++17 (if constexpr) and nothing else: no toolkit header, no host code.
std::vector<std::string> nvrtc_options(image_format format, const std::string& arch) {
  const std::string number = arch.substr(3);  // "sm_90" -> "90"
  return {format == image_format::ptx ? "--gpu-architecture=compute_" + number : "--gpu-architecture=sm_" + number,
          "--std=c++17"};
}

/// "sm_" and two or three digits, then at most one of the suffixes 'a' or 'f' (sm_90a, sm_100f).
std::string check_arch(const std::string& arch) {
  std::size_t digits = 0;
  while (3 + digits < arch.size() && std::isdigit(static_cast<unsigned char>(arch[3 + digits]))) ++digits;
  const std::size_t rest = arch.size() - std::min(arch.size(), 3 + digits);
  const bool ok = arch.starts_with("sm_") && digits >= 2 && digits <= 3 && arch[3] != '0' &&
                  (rest == 0 || (rest == 1 && (arch.back() == 'a' || arch.back() == 'f')));
  if (!ok) throw error(status::invalid_config, fmt::format("architecture '{}' is not sm_<number> (e.g. sm_90)", arch));
  return arch;
}

struct program_deleter {
  void operator()(nvrtcProgram p) const { nvrtcDestroyProgram(&p); }
};
using program_ptr = std::unique_ptr<std::remove_pointer_t<nvrtcProgram>, program_deleter>;

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(p, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  nvrtcGetProgramLog(p, log.data());
  log.resize(size - 1);  // the size counts the terminating NUL
  return log;
}

/// Runs NVRTC; the image and its log, or padtune::error (compile_failed) with the log.
void run_nvrtc(const kernel& k, image_format format, const std::string& arch, const std::vector<std::string>& options,
               compiled& out) {
  std::vector<const char*> names, texts;
  std::vector<std::string> storage;  // string_views of the embedded headers are not NUL-terminated
  storage.reserve(2 * k.headers().size());
  for (const header& h : k.headers()) {
    storage.emplace_back(h.name);
    storage.emplace_back(h.text);
  }
  for (std::size_t i = 0; i < storage.size(); i += 2) names.push_back(storage[i].c_str()), texts.push_back(storage[i + 1].c_str());

  nvrtcProgram raw = nullptr;
  const std::string file = k.id() + ".cu";
  if (const nvrtcResult r = nvrtcCreateProgram(&raw, k.source().c_str(), file.c_str(), int(names.size()), texts.data(),
                                               names.data());
      r != NVRTC_SUCCESS)
    throw error(status::compile_failed, fmt::format("NVRTC could not create the program of {}: {}", k.id(),
                                                     nvrtcGetErrorString(r)));
  const program_ptr program(raw);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult r = nvrtcCompileProgram(raw, int(argv.size()), argv.data());
  out.log = program_log(raw);
  if (r != NVRTC_SUCCESS)
    throw error(status::compile_failed, fmt::format("NVRTC could not compile {} for {} ({}); its log:\n{}", k.id(), arch,
                                                     nvrtcGetErrorString(r), out.log));
  std::size_t size = 0;
  const bool ptx = format == image_format::ptx;
  const nvrtcResult got_size = ptx ? nvrtcGetPTXSize(raw, &size) : nvrtcGetCUBINSize(raw, &size);
  if (got_size != NVRTC_SUCCESS || size == 0)
    throw error(status::compile_failed, fmt::format("NVRTC gave no {} for {}: {}", ptx ? "PTX" : "cubin", k.id(),
                                                     nvrtcGetErrorString(got_size)));
  out.image.assign(size, '\0');
  if (const nvrtcResult got = ptx ? nvrtcGetPTX(raw, out.image.data()) : nvrtcGetCUBIN(raw, out.image.data());
      got != NVRTC_SUCCESS)
    throw error(status::compile_failed, fmt::format("NVRTC could not hand over the image of {}: {}", k.id(),
                                                     nvrtcGetErrorString(got)));
  if (ptx && !out.image.empty() && out.image.back() == '\0') out.image.pop_back();  // text, without its NUL
}

}  // namespace

std::string nvrtc_version() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return fmt::format("{}.{}", major, minor);
}

std::string current_arch() {
  int device = 0, major = 0, minor = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e != cudaSuccess)
    throw error(status::launch_failed, fmt::format("no usable CUDA device to compile for ({}); name an architecture "
                                                   "such as sm_90",
                                                   cuda_error_text(e)));
  return fmt::format("sm_{}{}", major, minor);
}

std::vector<int> nvrtc_architectures() {
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
  std::sort(archs.begin(), archs.end());
  return archs;
}

jit_target device_target(int device, const std::vector<int>& supported, image_format format) {
  if (supported.empty()) return {fmt::format("sm_{}", device), format};  // NVRTC did not say: ask for the device's own
  if (std::find(supported.begin(), supported.end(), device) != supported.end()) return {fmt::format("sm_{}", device), format};
  int below = 0;
  for (int a : supported)
    if (a < device) below = std::max(below, a);
  if (below == 0)
    throw error(status::invalid_config, fmt::format("NVRTC {} compiles for none of the architectures up to this GPU's sm_{} "
                                                    "(the oldest it knows is sm_{})",
                                                    nvrtc_version(), device, supported.empty() ? 0 : supported.front()));
  return {fmt::format("sm_{}", below), image_format::ptx};
}

std::filesystem::path default_cache_dir() {
  if (const char* dir = std::getenv("PADTUNE_JIT_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::filesystem::path(xdg) / "padtune" / "jit";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "padtune" / "jit";
  return std::filesystem::temp_directory_path() / "padtune-jit";
}

compiled compile(const kernel& k, const compile_options& opts) {
  const clock_type::time_point start = clock_type::now();
  compiled out;
  out.format = opts.format;
  if (opts.arch.empty()) {
    const jit_target t = device_target(std::stoi(current_arch().substr(3)), nvrtc_architectures(), opts.format);
    out.arch = t.arch;
    out.format = t.format;
  } else {
    out.arch = check_arch(opts.arch);
  }
  out.nvrtc_version = nvrtc_version();
  const std::vector<std::string> options = nvrtc_options(out.format, out.arch);

  const detail::cache_key key{k.hash(), out.arch, out.format == image_format::ptx ? "ptx" : "cubin",
                              fmt::format("{}", fmt::join(options, " ")), out.nvrtc_version};
  detail::read_result found = detail::read_result::absent;
  if (opts.use_cache) {
    out.cache_file = (opts.cache_dir.empty() ? default_cache_dir() : opts.cache_dir) / key.file_name();
    found = detail::read_entry(out.cache_file, key, k.source(), &out.image);
  }
  if (found == detail::read_result::hit) {
    out.cache = cache_outcome::hit;
  } else {
    run_nvrtc(k, out.format, out.arch, options, out);
    if (opts.use_cache) {
      out.cache = found == detail::read_result::bad ? cache_outcome::replaced_entry : cache_outcome::miss;
      out.cache_warning = detail::write_entry(out.cache_file, key, k.source(), out.image);
    }
  }
  out.seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  return out;
}

}  // namespace padtune::jit
