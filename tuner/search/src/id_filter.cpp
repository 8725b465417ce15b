#include "padtune/search/id_filter.hpp"

#include <fmt/format.h>

#include <cctype>

#include "padtune/detail/input.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

struct id_filter::compiled {
  regex_t re{};
  bool ok = false;  ///< regcomp succeeded: re is ours to free
  ~compiled() {
    if (ok) regfree(&re);
  }
};

namespace {

/// Why the pattern is refused before it is compiled, or "".
std::string refusal(const std::string& p) {
  if (p.size() > id_filter::max_pattern_bytes)
    return fmt::format("it is {} bytes long; a filter may have at most {}", p.size(), id_filter::max_pattern_bytes);
  if (p.find('\0') != std::string::npos) return "it holds a NUL byte";
  long copies = 1;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size()) {
      if (p[i + 1] >= '1' && p[i + 1] <= '9') return "back-references (\\1) are not taken: they make matching exponential";
      ++i;
      continue;
    }
    if (p[i] != '{') continue;
    long low = 0, high = -1;  // {m}, {m,} or {m,n}; anything else is left to the compiler
    std::size_t k = i + 1;
    while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k])) && low <= 100000) low = low * 10 + (p[k++] - '0');
    if (k < p.size() && p[k] == ',') {
      ++k;
      if (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k]))) {
        high = 0;
        while (k < p.size() && std::isdigit(static_cast<unsigned char>(p[k])) && high <= 100000) high = high * 10 + (p[k++] - '0');
      } else {
        high = low + 1;  // {m,}: m copies and a star
      }
    } else {
      high = low;
    }
    copies *= std::max(1L, high);
    if (copies > id_filter::max_repetition_copies)
      return fmt::format("its bounded repetitions ({{m,n}}) multiply to more than {} copies", id_filter::max_repetition_copies);
  }
  return "";
}

}  // namespace

id_filter::id_filter(const std::string& pattern) {
  if (pattern.empty()) return;
  if (const std::string why = refusal(pattern); !why.empty())
    throw results_error(fmt::format("--filter '{}': {}", printable(pattern), why));
  auto c = std::make_shared<compiled>();
  if (const int rc = regcomp(&c->re, pattern.c_str(), REG_EXTENDED | REG_NOSUB); rc != 0) {
    char why[256];
    regerror(rc, &c->re, why, sizeof why);
    throw results_error(fmt::format("--filter '{}' is not a valid regular expression (POSIX extended): {}", printable(pattern), why));
  }
  c->ok = true;
  re_ = std::move(c);
}

bool id_filter::matches(const std::string& id) const { return !re_ || regexec(&re_->re, id.c_str(), 0, nullptr, 0) == 0; }

}  // namespace padtune::tuner
