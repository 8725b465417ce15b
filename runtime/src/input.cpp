// Strict reading of what users hand padtune: input files, JSON numbers and shapes, quoted text.
#include "padtune/detail/input.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstring>

#include "padtune/problem.hpp"

namespace padtune {

using nlohmann::json;

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) out += char(c);
    else out += fmt::format("\\x{:02x}", c);
  }
  return out;
}

std::string safe_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto escape = [&](unsigned char c) { out += fmt::format("\\x{:02x}", c); };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) escape(c);
      else out += char(c);
      ++i;
      continue;
    }
    // The length of a well-formed UTF-8 sequence starting here (no overlong forms, no surrogates,
    // nothing above U+10FFFF), or 0.
    const auto byte = [&](std::size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
    const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xbf) { return byte(k) >= lo && byte(k) <= hi; };
    std::size_t n = 0;
    if (c >= 0xc2 && c <= 0xdf && cont(1)) n = 2;
    else if (c == 0xe0 && cont(1, 0xa0) && cont(2)) n = 3;
    else if (((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) && cont(1) && cont(2)) n = 3;
    else if (c == 0xed && cont(1, 0x80, 0x9f) && cont(2)) n = 3;
    else if (c == 0xf0 && cont(1, 0x90) && cont(2) && cont(3)) n = 4;
    else if (c >= 0xf1 && c <= 0xf3 && cont(1) && cont(2) && cont(3)) n = 4;
    else if (c == 0xf4 && cont(1, 0x80, 0x8f) && cont(2) && cont(3)) n = 4;
    const bool c1_control = n == 2 && c == 0xc2 && byte(1) < 0xa0;  // U+0080..U+009F: a terminal may act on them
    if (n == 0 || c1_control) {
      for (std::size_t k = 0; k < (c1_control ? 2 : 1); ++k) escape(byte(k));
      i += c1_control ? 2 : 1;
      continue;
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

json parse_json(const std::string& text, const std::string& source, int max_depth) {
  const json::parser_callback_t depth_guard = [&](int depth, json::parse_event_t, json&) {
    if (depth > max_depth) throw results_error(fmt::format("{}: nested deeper than {} levels", source, max_depth));
    return true;
  };
  try {
    return json::parse(text, depth_guard, true, false);
  } catch (const json::exception& e) {
    throw results_error(fmt::format("{}: not valid JSON (truncated, or a number out of range?): {}", source, e.what()));
  }
}

long long strict_integer(const json& v, const std::string& where, long long min, long long max) {
  long long x = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<unsigned long long>();
    if (u > (unsigned long long)LLONG_MAX)
      throw results_error(fmt::format("{} is {}, out of range [{}, {}]", where, u, min, max));
    x = (long long)u;
  } else if (v.is_number_integer()) {
    x = v.get<long long>();
  } else {
    throw results_error(fmt::format("{} has the wrong type: must be an integer, got {}", where, printable(v.dump())));
  }
  if (x < min || x > max) throw results_error(fmt::format("{} is {}, out of range [{}, {}]", where, x, min, max));
  return x;
}

double strict_number(const json& v, const std::string& where, double min) {
  if (!v.is_number()) throw results_error(fmt::format("{} has the wrong type: must be a number, got {}", where, printable(v.dump())));
  const double x = v.get<double>();
  if (!std::isfinite(x)) throw results_error(fmt::format("{} must be finite, got {}", where, printable(v.dump())));
  if (x < min) throw results_error(min == 0 ? fmt::format("{} is negative ({})", where, x) : fmt::format("{} is {}, below {}", where, x, min));
  return x;
}

shape5 strict_shape(const json& v, dtype type, const std::string& where) {
  if (!v.is_array() || v.size() != 5)
    throw results_error(fmt::format("{} must hold B, C, L, pad_left, pad_right, got {}", where, printable(v.dump())));
  long long x[5];
  const char* names[] = {"B", "C", "L", "pad_left", "pad_right"};
  for (std::size_t k = 0; k < 5; ++k)
    x[k] = strict_integer(v[k], fmt::format("{}: {}", where, names[k]), LLONG_MIN, LLONG_MAX);
  std::string why;
  if (check_shape(x[0], x[1], x[2], x[3], x[4], type, &why) != status::ok)
    throw results_error(fmt::format("{} is no valid {} problem: {}", where, name_of(type), why));
  return shape5{x[0], x[1], x[2], x[3], x[4]};
}

std::string read_input_file(const std::filesystem::path& path, std::size_t max_bytes, std::string_view kind) {
  const std::string name = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw results_error(fmt::format("{}: cannot be opened: {}", name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool folder = S_ISDIR(st.st_mode);
    ::close(fd);
    throw results_error(fmt::format("{}: {}", name, folder ? "is a folder, not a file" : "is not a regular file"));
  }
  const auto too_big = [&](std::uint64_t bytes) {
    return results_error(fmt::format("{}: {} bytes or more, over the limit of {} bytes for a {}", name, bytes, max_bytes, kind));
  };
  if (std::uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw too_big(std::uint64_t(st.st_size));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int e = errno;
      ::close(fd);
      throw io_error(fmt::format("{}: cannot be read: {}", name, std::strerror(e)));
    }
    if (n == 0) break;
    if (text.size() + std::size_t(n) > max_bytes) {  // it grew while it was read
      ::close(fd);
      throw too_big(text.size() + std::size_t(n));
    }
    text.append(chunk, std::size_t(n));
  }
  ::close(fd);
  return text;
}

}  // namespace padtune
