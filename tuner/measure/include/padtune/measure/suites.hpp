#pragma once
// The named shape suites, in one place: the performance suite of the roofline issue (P1-P10), its
// forward shapes (F1-F9, C1-C4) and its narrowed shapes (N1-N9), which the tuner's default sweep
// includes and padtune_bench times,
// and the benchmark's sweep of row lengths (at a fixed element count) and of row counts (at a fixed
// row length).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "padtune/table.hpp"  // shape5

namespace padtune::tuner {

struct suite_shape {
  std::string suite;  ///< "perf", "forward", "narrowed" or "sweep"
  std::string tag;    ///< P1..P10, F1..F9, C1..C4, N1..N9, or what the sweep varies
  shape5 s;
};

inline std::vector<suite_shape> perf_suite() {
  return {{"perf", "P1", {32, 256, 8192, 3, 5}},     {"perf", "P2", {32, 256, 8192, 4, 4}},
          {"perf", "P3", {4, 64, 262144, 1, 2}},     {"perf", "P4", {16, 512, 4096, 3, 0}},
          {"perf", "P5", {64, 4096, 64, 2, 1}},      {"perf", "P6", {1024, 8192, 8, 2, 3}},
          {"perf", "P7", {8, 1024, 4096, -3, 5}},    {"perf", "P8", {8, 128, 1000, 7, 9}},
          {"perf", "P9", {2, 4, 8, 2, 3}},           {"perf", "P10", {1, 2048, 1048577, 1, 1}}};
}

/// The forward pads as backward problems (padtune.enable(): F.pad(x, (l, r)) is dy = x, pads (-l, -r)):
/// F<k> pads P<k>'s dx by P<k>'s pads (F10, P10's 16 GB, is left out), C1-C4 are causal
/// convolutions' left pads d*(k-1) on long rows.
/// P1-P9 made into another suite: `letter`<k> is shape_of(P<k>'s shape). P10 (16 GB) is left out.
template <class ShapeOf>
std::vector<suite_shape> from_perf_suite(const char* suite, char letter, ShapeOf shape_of) {
  std::vector<suite_shape> v;
  for (const suite_shape& p : perf_suite()) {
    if (p.tag == "P10") continue;
    std::string tag = p.tag;
    tag[0] = letter;  // not letter + substr: GCC 12 warns falsely of an overlapping copy there (-Wrestrict)
    v.push_back({suite, tag, shape_of(p.s)});
  }
  return v;
}

inline std::vector<suite_shape> forward_suite() {
  std::vector<suite_shape> v = from_perf_suite("forward", 'F', [](const shape5& s) {
    return shape5{s.B, s.C, s.L + s.pad_left + s.pad_right, -s.pad_left, -s.pad_right};
  });
  v.push_back({"forward", "C1", {16, 128, 16384 + 2, -2, 0}});
  v.push_back({"forward", "C2", {16, 128, 16384 + 1024, -1024, 0}});
  v.push_back({"forward", "C3", {8, 256, 32768 + 8, -8, 0}});
  v.push_back({"forward", "C4", {8, 256, 32768 + 512, -512, 0}});
  return v;
}

/// How a narrowed dy sits in its wider tensor: dy = wide[..., narrowed_offset : narrowed_offset + OL]
/// of a tensor narrowed_extra columns wider (issue #40's pitch OL + 64).
inline constexpr long long narrowed_offset = 16, narrowed_extra = 64;

/// The performance suite with a narrowed dy (a gradient that is a slice of a wider one, as a crop
/// after a padded convolution hands back): PyTorch's layout makes it the problem with the columns
/// left of the slice added to pad_left and those right of it to pad_right. N<k> is P<k> so; N10 is
/// left out: P10's rows are 4 MiB long, where 64 more columns change nothing, and its 16 GB would
/// be the sweep's largest shape twice over.
inline std::vector<suite_shape> narrowed_suite() {
  return from_perf_suite("narrowed", 'N', [](const shape5& s) {
    return shape5{s.B, s.C, s.L, s.pad_left + narrowed_offset, s.pad_right + narrowed_extra - narrowed_offset};
  });
}

/// The suite a name gives ("perf", "forward", "narrowed" or "sweep"); empty for any other name.
inline std::vector<suite_shape> suite_named(const std::string& name);

/// Row length L from 8 to 2^20 at 2^26 elements of dx (256 MiB in f32: over four times the H200's
/// L2), then the row count from 1 to 2^18 at L = 1000; pads (1, 2), so rows start misaligned.
inline std::vector<suite_shape> sweep_suite() {
  std::vector<suite_shape> v;
  for (long long L = 8; L <= (1 << 20); L *= 4)
    v.push_back({"sweep", fmt::format("L{}", L), {1, (1LL << 26) / L, L, 1, 2}});
  for (long long rows = 1; rows <= (1 << 18); rows *= 8)
    v.push_back({"sweep", fmt::format("rows{}", rows), {1, rows, 1000, 1, 2}});
  return v;
}

inline std::vector<suite_shape> suite_named(const std::string& name) {
  if (name == "perf") return perf_suite();
  if (name == "forward") return forward_suite();
  if (name == "narrowed") return narrowed_suite();
  if (name == "sweep") return sweep_suite();
  return {};
}

}  // namespace padtune::tuner
