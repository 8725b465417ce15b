#pragma once
/// Compiling a JIT kernel with NVRTC, through an on-disk cache.
#include <filesystem>
#include <string>
#include <vector>

#include "padtune/jit/kernel.hpp"

namespace padtune::jit {

/// PTX (text, for any later GPU through the driver's JIT) or a cubin (machine code for one arch).
enum class image_format { ptx, cubin };

/// How a cache lookup went.
enum class cache_outcome {
  off,            ///< the cache was not used
  hit,            ///< the image came from the cache
  miss,           ///< compiled, then stored
  replaced_entry, ///< the entry was unreadable, short or not this source's: compiled and rewritten
};

struct compile_options {
  image_format format = image_format::cubin;
  /// "sm_90", "sm_100", ...; empty: the current GPU's (padtune::error if there is none), and where
  /// this NVRTC does not know that GPU (one newer than the toolkit), PTX of the newest architecture
  /// it knows below it, which the driver compiles for the GPU at load (device_target).
  std::string arch;
  bool use_cache = true;
  /// Empty: default_cache_dir().
  std::filesystem::path cache_dir;
};

/// A compiled image and how it was obtained.
struct compiled {
  std::string image;  ///< PTX text or cubin bytes
  image_format format = image_format::cubin;
  std::string arch;           ///< "sm_90"
  std::string nvrtc_version;  ///< "13.0"
  cache_outcome cache = cache_outcome::off;
  std::filesystem::path cache_file;  ///< the entry read or written (empty with the cache off)
  std::string cache_warning;         ///< why the entry could not be written, if it could not (not fatal)
  double seconds = 0;                ///< wall time of compile(), lookup included
  std::string log;                   ///< NVRTC's log (warnings); empty for a cache hit
  bool from_cache() const { return cache == cache_outcome::hit; }
};

/// Compiles k.source() (its headers from memory) for opts.arch, or returns the cached image of the
/// same source, headers, arch, format, options and NVRTC version. Cache entries are written to a
/// temporary file in the same folder and renamed, so concurrent compiles, threads or processes,
/// leave one whole entry; a bad entry is a miss, never a crash. Throws padtune::error:
/// compile_failed with NVRTC's log, invalid_config for a malformed arch, launch_failed without a
/// GPU when opts.arch is empty.
compiled compile(const kernel& k, const compile_options& opts = {});

/// $PADTUNE_JIT_CACHE, else $XDG_CACHE_HOME/padtune/jit, else $HOME/.cache/padtune/jit, else a
/// folder under the system's temporary directory.
std::filesystem::path default_cache_dir();

/// "sm_<major><minor>" of the current CUDA device; throws padtune::error (launch_failed) without one.
std::string current_arch();

/// NVRTC's version, "major.minor".
std::string nvrtc_version();

/// The architectures this NVRTC compiles for, as numbers (90 for sm_90), ascending.
std::vector<int> nvrtc_architectures();

/// What to compile for a GPU of architecture number `device` (90 for sm_90), asked as `format`:
/// that format for the device itself where `supported` has it; else PTX of the newest supported
/// architecture below it (PTX runs on any later GPU through the driver's JIT). Throws
/// padtune::error (invalid_config) for a GPU older than every supported architecture.
struct jit_target {
  std::string arch;  ///< "sm_90"
  image_format format = image_format::cubin;
};
jit_target device_target(int device, const std::vector<int>& supported, image_format format);

}  // namespace padtune::jit
