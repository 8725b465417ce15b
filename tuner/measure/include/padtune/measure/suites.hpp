#pragma once
// The named shape suites, in one place: the performance suite of the roofline issue (P1-P10), which
// the tuner's default sweep includes and padtune_bench times, and the benchmark's sweep of row
// lengths (at a fixed element count) and of row counts (at a fixed row length).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "padtune/table.hpp"  // shape5

namespace padtune::tuner {

struct suite_shape {
  std::string suite;  ///< "perf" or "sweep"
  std::string tag;    ///< P1..P10, or what the sweep varies
  shape5 s;
};

inline std::vector<suite_shape> perf_suite() {
  return {{"perf", "P1", {32, 256, 8192, 3, 5}},     {"perf", "P2", {32, 256, 8192, 4, 4}},
          {"perf", "P3", {4, 64, 262144, 1, 2}},     {"perf", "P4", {16, 512, 4096, 3, 0}},
          {"perf", "P5", {64, 4096, 64, 2, 1}},      {"perf", "P6", {1024, 8192, 8, 2, 3}},
          {"perf", "P7", {8, 1024, 4096, -3, 5}},    {"perf", "P8", {8, 128, 1000, 7, 9}},
          {"perf", "P9", {2, 4, 8, 2, 3}},           {"perf", "P10", {1, 2048, 1048577, 1, 1}}};
}

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

}  // namespace padtune::tuner
