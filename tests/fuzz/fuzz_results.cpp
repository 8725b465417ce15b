// The results loader, the cache reader and the sizes-file reader on arbitrary bytes: they may only
// answer with a table, a cache, a list of shapes or a results_error; any other exception or a crash
// is a finding. What they accept must hold what the strict reading promises (integers in range,
// finite numbers, valid shapes in their buckets): anything else aborts, as a finding too.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "padtune/store/cache.hpp"
#include "padtune/problem.hpp"
#include "padtune/table.hpp"
#include "padtune/search/sweep.hpp"

namespace padtune::tuner {
const char* const kernel_sources_hash = "fuzz";  // the build's hash, which a fuzz build has none of
}

namespace {

using namespace padtune;
using namespace padtune::tuner;

void require(bool ok) {
  if (!ok) std::abort();
}

void require_valid_shape(const shape5& s, dtype type) {
  require(check_shape(s.B, s.C, s.L, s.pad_left, s.pad_right, type) == status::ok);
}

void require_finite(double v, bool non_negative) { require(std::isfinite(v) && (!non_negative || v >= 0)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const results_table t = parse_table(text, "fuzz");
    for (const table_entry& e : t.entries) {
      require_valid_shape(e.shape, e.type);
      require(bucket_of(e.shape.B * e.shape.C, e.shape.L, e.shape.pad_left, e.type) == e.where);
      for (const candidate_numbers* c : {&e.winner, e.runner_up ? &*e.runner_up : &e.winner}) {
        require_finite(c->median_us, true), require_finite(c->iqr_us, true);
        require_finite(c->gbps, true), require_finite(c->ratio_to_memcpy, true);
      }
      require_finite(e.margin, false);
    }
    (void)to_json(t).dump();  // what was accepted must write back
  } catch (const results_error&) {
  }
  if (!text.empty()) {
    try {
      const cache_file c = parse_cache(text, "fuzz");
      for (const measurement& m : c.records) {
        require_valid_shape(m.shape, m.type);
        require_finite(m.t.cold.median, true), require_finite(m.t.hot.q3, true), require_finite(m.limit_seconds, true);
        require(m.t.cold.samples >= 0);
      }
    } catch (const results_error&) {
    }
  }
  try {
    for (const shape5& s : parse_sizes(text, "fuzz")) require_valid_shape(s, dtype::f64);
  } catch (const results_error&) {
  }
  return 0;
}
