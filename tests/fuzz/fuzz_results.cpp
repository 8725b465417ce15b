// The results loader and the sizes-file reader on arbitrary bytes: they may only answer with a
// table, a list of shapes or a results_error; any other exception or a crash is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "results.hpp"
#include "sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const padtune::tuner::results_table t = padtune::tuner::parse_table(text, "fuzz");
    (void)padtune::tuner::to_json(t).dump();  // what was accepted must write back
  } catch (const padtune::tuner::results_error&) {
  }
  try {
    (void)padtune::tuner::parse_sizes(text, "fuzz");
  } catch (const padtune::tuner::results_error&) {
  }
  return 0;
}
