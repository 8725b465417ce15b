#include "padtune/search/id_filter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

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

/// The end of the bracket expression that starts at p[i] == '[' (one past its ']'), or p.size() if
/// it never closes (the compiler then says so). A ']' first in it, after an optional '^', is a
/// member; so is any '[' or '{' inside.
std::size_t bracket_end(const std::string& p, std::size_t i) {
  std::size_t k = i + 1;
  if (k < p.size() && p[k] == '^') ++k;
  if (k < p.size() && p[k] == ']') ++k;
  while (k < p.size() && p[k] != ']') {
    if (p[k] == '[' && k + 1 < p.size() && (p[k + 1] == ':' || p[k + 1] == '.' || p[k + 1] == '=')) {
      const std::size_t close = p.find(std::string{p[k + 1], ']'}, k + 2);  // [:alpha:] and its kin
      k = close == std::string::npos ? p.size() : close + 2;
    } else {
      ++k;
    }
  }
  return k < p.size() ? k + 1 : p.size();
}

/// Why the pattern is refused before it is compiled, or "". The compiled size (and the stack
/// glibc's regcomp recurses on) grows with the pattern as its bounded repetitions expand it: each
/// {m,n} copies what it repeats n times. So the pattern is measured expanded, groups and all.
std::string refusal(const std::string& p) {
  if (p.size() > id_filter::max_pattern_bytes)
    return fmt::format("it is {} bytes long; a filter may have at most {}", p.size(), id_filter::max_pattern_bytes);
  if (p.find('\0') != std::string::npos) return "it holds a NUL byte";
  struct level {
    long total = 0;  ///< the expanded size of this group so far
    long last = 0;   ///< the expanded size of its last atom (what a repetition repeats)
  };
  std::vector<level> stack(1);
  const auto atom = [&](long size) {
    stack.back().last = size;
    stack.back().total += size;
  };
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      if (p[i + 1] >= '1' && p[i + 1] <= '9') return "back-references (\\1) are not taken: they make matching exponential";
      atom(1);
      ++i;
    } else if (c == '[') {
      i = bracket_end(p, i) - 1;
      atom(1);
    } else if (c == '(') {
      stack.emplace_back();
    } else if (c == ')' && stack.size() > 1) {
      const long inner = stack.back().total + 1;
      stack.pop_back();
      atom(inner);
    } else if (c == '{') {
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
      const long copies = std::max(1L, std::max(low, high));
      level& l = stack.back();
      l.total += l.last * (copies - 1);
      l.last *= copies;
      if (k < p.size() && p[k] == '}') i = k;
    } else if (c == '|' || c == '*' || c == '+' || c == '?' || c == '^' || c == '$') {
      stack.back().total += 1;
    } else {
      atom(1);
    }
    for (const level& l : stack)
      if (l.total > id_filter::max_expanded || l.last > id_filter::max_expanded)
        return fmt::format("its bounded repetitions ({{m,n}}) expand it past {} atoms", id_filter::max_expanded);
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
