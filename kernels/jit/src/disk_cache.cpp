#include "disk_cache.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include "hash.hpp"

namespace padtune::jit::detail {
namespace {

constexpr std::string_view magic = "padtune-jit-cache 1";

std::string header_of(const cache_key& key, const std::string& source, const std::string& image) {
  return fmt::format("{}\nhash {}\narch {}\nformat {}\nnvrtc {}\noptions {}\nsource {}\nimage {} {}\nend\n", magic,
                     key.content_hash, key.arch, key.format, key.nvrtc_version, key.options, source.size(),
                     image.size(), fnv1a64().add(image).hex());
}

/// Unique among threads and processes: the pid, a per-process counter and a random number.
std::filesystem::path temporary_beside(const std::filesystem::path& file) {
  static std::atomic<unsigned long> counter{0};
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return file.string() + fmt::format(".tmp-{}-{}-{:x}", ::getpid(), counter++, gen());
}

}  // namespace

std::string cache_key::file_name() const {
  return fmt::format("{}-{}-nvrtc{}-{}.{}", content_hash, arch, nvrtc_version, fnv1a64().add(options).hex().substr(0, 8),
                     format);
}

read_result read_entry(const std::filesystem::path& file, const cache_key& key, const std::string& source,
                       std::string* image) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;  // a folder that cannot be searched (a link loop, no permission) is a miss, not a throw
  if (!in) return std::filesystem::exists(file, ec) ? read_result::bad : read_result::absent;
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = std::move(all).str();
  // The header this source and key would have, but for the image's size and checksum.
  const std::string expected = header_of(key, source, "");
  const std::string_view before_image = std::string_view(expected).substr(0, expected.find("\nimage ") + 7);
  if (text.compare(0, before_image.size(), before_image) != 0) return read_result::bad;
  // "<image bytes> <checksum>\nend\n", then the source and the image.
  const std::size_t line = before_image.size(), end = text.find("\nend\n", line);
  if (end == std::string::npos || end - line > 40) return read_result::bad;
  std::size_t image_size = 0;
  std::string checksum;
  std::istringstream fields(text.substr(line, end - line));
  if (!(fields >> image_size >> checksum) || checksum.size() != 16) return read_result::bad;
  const std::size_t body = end + 5;
  if (image_size > text.size() || text.size() - body != source.size() + image_size || text.compare(body, source.size(), source) != 0)
    return read_result::bad;
  std::string found = text.substr(body + source.size());
  if (fnv1a64().add(found).hex() != checksum) return read_result::bad;
  *image = std::move(found);
  return read_result::hit;
}

std::string write_entry(const std::filesystem::path& file, const cache_key& key, const std::string& source,
                        const std::string& image) noexcept try {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) return fmt::format("cannot create {}: {}", file.parent_path().string(), ec.message());
  const std::filesystem::path tmp = temporary_beside(file);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << header_of(key, source, image) << source << image;
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return fmt::format("cannot write {}", tmp.string());
    }
  }
  std::filesystem::rename(tmp, file, ec);  // atomic on POSIX: readers see the old entry or this one
  if (ec) {
    const std::string why = fmt::format("cannot rename {} to {}: {}", tmp.string(), file.string(), ec.message());
    std::filesystem::remove(tmp, ec);
    return why;
  }
  return "";
} catch (const std::exception& e) {
  return e.what();
}

}  // namespace padtune::jit::detail
