#pragma once
// --filter: which instantiation ids a command takes. A POSIX extended regular expression, found
// anywhere in the id, matched by the C library's matcher, which does not backtrack: '(.*)*X'
// answers at once, where std::regex took minutes. Its compiled size grows with the product of
// bounded repetitions ({m,n}), so the pattern is bounded too.
#include <regex.h>

#include <memory>
#include <string>
#include <string_view>

namespace padtune::tuner {

class id_filter {
 public:
  static constexpr std::size_t max_pattern_bytes = 256;
  /// The largest pattern once its bounded repetitions are expanded ({m,n} copies what it repeats n
  /// times): what regcomp builds and recurses on.
  static constexpr long max_expanded = 2000;

  /// The filter of `pattern` ("" takes every id). Throws results_error naming the pattern and why:
  /// not a valid expression, longer than max_pattern_bytes, a back-reference (\1), bounded
  /// repetitions that expand it past max_expanded.
  explicit id_filter(const std::string& pattern);
  bool matches(const std::string& id) const;

 private:
  struct compiled;
  std::shared_ptr<const compiled> re_;  ///< null: every id
};

}  // namespace padtune::tuner
