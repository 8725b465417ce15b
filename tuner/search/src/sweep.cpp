#include "padtune/search/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <sstream>

#include "padtune/problem.hpp"
#include "padtune/measure/suites.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::tuner {

std::vector<shape5> default_sweep(dtype type) {
  const long long S = (long long)size_of(type);
  // pad_left's alignment classes of this dtype, in elements: 16-bit 1 2 4 8 (2 to 16 bytes), f32 1 2 4,
  // f64 1 2. Vector kernels care which one a shape is in, and lookup matches it.
  std::vector<long long> classes;
  for (long long e = 1; e * S <= 16; e *= 2) classes.push_back(e);
  std::vector<shape5> out;
  for (int k = 0; k <= 20; ++k)      // one row length per log2 bucket, 1 to 2^20
    for (int j = 0; j <= 11; ++j) {  // rows 4^j, 1 to 2^22
      // A power of two (a tile fits it exactly) at every other point, an odd length in the middle of
      // the bucket (its rows' bytes not a multiple of 16, like most real shapes') at the others.
      const long long pow2 = 1LL << k;
      const long long L = (k + j) % 2 == 0 || k < 2 ? pow2 : pow2 + pow2 / 2 + 1;
      const long long R = 1LL << (2 * j);
      const long long payload = 2 * R * L * S;
      if (payload < 4096 || payload > (1LL << 30)) continue;
      const long long B = R >= 64 ? 8 : 1, C = R / B;
      const long long a = classes[std::size_t(k + 2 * j + j / 2) % classes.size()];  // not in step with L's kind
      const bool crop = (k + 2 * j) % 3 == 2 && L > 2 * a;  // a third of pad_left negative, where L allows
      out.push_back({B, C, L, crop ? -a : a, (k + j) % 4 == 3 && L > 16 ? -2 : 3});
      // A forward pad at every third point (padtune.enable(): dy is the input, the pads negated): a
      // causal convolution's left pad d*(k-1), at most half the row.
      if ((k + j) % 3 == 1 && L >= 8) {
        static constexpr long long causal_pads[] = {1, 2, 6, 14, 62, 254, 1022, 4094};
        long long P = causal_pads[std::size_t(k + 3 * j) % std::size(causal_pads)];
        while (2 * P > L) P /= 2;
        out.push_back({B, C, L, -P, 0});
      }
      // A pitched dy at every fourth point of the short rows: a gradient narrowed from a wider
      // tensor, its rows OL + extra apart and the useful part `offset` into them, which is the
      // problem with pads that large. Its reads are the row's sectors, not a stream, so kernels made
      // for contiguous rows of the same L lose there (issue #40: up to 2.4x at P6 in bf16).
      if (k <= 10 && (k + j) % 4 == 1) {
        static constexpr long long extras[] = {64, 1024, 61, 200};
        const long long extra = extras[std::size_t(k / 4 + j) % std::size(extras)];
        const long long offset = (k + j / 2) % 2 == 0 ? 16 : 0;
        const shape5 pitched{B, C, L, a + offset, 3 + extra - offset};
        if (R * (2 * L + pitched.pad_left + pitched.pad_right) * S <= (1LL << 30)) out.push_back(pitched);
      }
    }
  // The performance suite's shapes, its forward and its narrowed shapes, so that the shapes the
  // benchmarks and targets name are tuned as they are.
  for (const auto& suite : {perf_suite(), forward_suite(), narrowed_suite()})
    for (const suite_shape& p : suite)
      if (std::find(out.begin(), out.end(), p.s) == out.end()) out.push_back(p.s);
  return out;
}

std::vector<shape5> small_sweep() {
  return {{2, 4, 8, 2, 3}, {4, 64, 64, 1, 2}, {4, 64, 64, 4, 4}, {2, 8, 4096, 3, 5}, {2, 8, 4096, 4, 0}, {1, 2, 65536, 1, 1}};
}

std::vector<shape5> take_shard(const std::vector<shape5>& shapes, sweep_shard shard) {
  // Every count-th shape rather than a contiguous slice: the sweep is ordered by size, so each
  // shard gets small and large payloads alike and the shards take about the same time.
  std::vector<shape5> out;
  for (std::size_t k = std::size_t(shard.index); k < shapes.size(); k += std::size_t(shard.count)) out.push_back(shapes[k]);
  return out;
}

bool parse_shard(const std::string& text, sweep_shard& out) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return false;
  int index = -1, count = 0;
  const char* end = text.data() + text.size();
  const auto a = std::from_chars(text.data(), text.data() + slash, index);
  const auto b = std::from_chars(text.data() + slash + 1, end, count);
  if (a.ec != std::errc() || a.ptr != text.data() + slash || b.ec != std::errc() || b.ptr != end) return false;
  if (count < 1 || index < 0 || index >= count) return false;
  out = {index, count};
  return true;
}

std::vector<shape5> read_sizes_file(const std::filesystem::path& path) { return parse_sizes(read_input_file(path, max_sizes_file_bytes, "sizes file"), path.string()); }

std::vector<shape5> parse_sizes(const std::string& text, const std::string& source) {
  std::istringstream in(text);
  std::vector<shape5> out;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream fields(line);
    std::vector<long long> v;
    std::string word;
    while (fields >> word) {
      std::size_t used = 0;
      long long x = 0;
      try {
        x = std::stoll(word, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != word.size())
        throw results_error(fmt::format("{}:{}: '{}' is not an integer", source, number, printable(word)));
      v.push_back(x);
    }
    if (v.empty()) continue;
    if (v.size() != 5)
      throw results_error(fmt::format("{}:{}: expected B C L pad_left pad_right, got {} numbers", source, number, v.size()));
    std::string why;
    if (check_shape(v[0], v[1], v[2], v[3], v[4], dtype::f64, &why) != status::ok)
      throw results_error(fmt::format("{}:{}: {}", source, number, why));
    out.push_back({v[0], v[1], v[2], v[3], v[4]});
  }
  if (out.empty()) throw results_error(fmt::format("{}: holds no shapes", source));
  return out;
}

}  // namespace padtune::tuner
