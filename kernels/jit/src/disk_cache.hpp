#pragma once
// The JIT's on-disk cache: one file per (source, headers, arch, format, options, NVRTC version).
// An entry is a short text header, the source it was compiled from and the image; a reader
// accepts it only if every field, the source and the image's checksum agree, so a torn, truncated,
// foreign or colliding file is a miss. Writers write a temporary file in the same folder and
// rename it over the entry: readers see the old entry or the new one, whole.
#include <filesystem>
#include <optional>
#include <string>

namespace padtune::jit::detail {

/// What identifies an entry, besides the source text it is checked against.
struct cache_key {
  std::string content_hash;  ///< kernel::hash(): source and headers
  std::string arch;
  std::string format;  ///< "ptx" or "cubin"
  std::string options;
  std::string nvrtc_version;
  /// The file name: <content_hash>-<arch>-nvrtc<version>-<hash of options>.<format>
  std::string file_name() const;
};

enum class read_result { hit, absent, bad };

/// Reads the entry at `file`; on a hit, *image holds it. Never throws for a bad file.
read_result read_entry(const std::filesystem::path& file, const cache_key& key, const std::string& source,
                       std::string* image);

/// Writes the entry atomically (creating the folder). Returns an empty string, or why it failed.
std::string write_entry(const std::filesystem::path& file, const cache_key& key, const std::string& source,
                        const std::string& image) noexcept;

}  // namespace padtune::jit::detail
