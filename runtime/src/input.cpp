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

std::string read_input_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) throw results_error(fmt::format("{}: cannot be opened: {}", name, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const bool folder = S_ISDIR(st.st_mode);
    ::close(fd);
    throw results_error(fmt::format("{}: {}", name, folder ? "is a folder, not a file" : "is not a regular file"));
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
    text.append(chunk, std::size_t(n));
  }
  ::close(fd);
  return text;
}

}  // namespace padtune
