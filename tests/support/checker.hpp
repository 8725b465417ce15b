#pragma once
// Runs one instantiation on one case and compares it, byte for byte, with the reference of the
// same backend: fresh random dy, dx poisoned (set to the fill for instantiations that need it),
// guard bytes around dx, and dy checked unchanged afterwards.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "edge_suite.hpp"
#include "padtune/registry.hpp"

namespace padtune::test {

/// Element offsets of dy and dx from a 256-byte aligned address: they put the pointers off the
/// access width so that the realignment paths run.
struct placement {
  int dy_elems = 0, dx_elems = 0;
};

/// The placements every case runs under: aligned, dy off by one element, dx off by one element.
inline constexpr placement placements[] = {{0, 0}, {1, 0}, {0, 1}, {3, 2}};

/// What the checker runs: a registry instantiation or anything else that launches on a problem
/// (a JIT kernel).
struct candidate {
  std::string id;
  dtype type = dtype::f32;
  bool needs_zeroed_dx = false;
  /// Enqueues on p (pointers in the backend's memory); an empty string, or why it failed.
  std::function<std::string(const problem& p, backend b)> run;
};

/// The fill of case s in `type`: s.fill's low bytes; for f64 every other case keeps only the high
/// word (the doubles flat's direct grid takes, plans.cuh: flat_fill32), the others all 64 bits.
std::uint64_t fill_of(const shape& s, dtype type);

/// A registry instantiation as a candidate, launched through padtune::launch.
candidate candidate_of(const instantiation& inst);

/// Empty string if c matches the reference on this case; otherwise what went wrong.
std::string check_case(const candidate& c, backend b, const shape& s, placement at, std::mt19937_64& gen);

/// Runs inst over the whole edge suite under every placement, a random fill on two cases of three;
/// returns a line per failed case (at most `max_failures`), each naming the case and the random seed.
std::vector<std::string> check_edge_suite(const instantiation& inst, backend b, std::size_t max_failures = 8);

/// The same with a candidate made for each shape (a JIT kernel is compiled for the shape's pads); a
/// candidate that cannot be made counts as a failure of its shape (make throws).
std::vector<std::string> check_edge_suite(const std::function<candidate(const shape&)>& make, backend b,
                                          std::size_t max_failures = 8, pad_range pads = pad_range::int64);

/// The ids of every registered instantiation, for parameterized tests.
std::vector<std::string> registered_ids();

/// True if a CUDA device is usable; otherwise *why says why not.
bool cuda_device_available(std::string* why);

}  // namespace padtune::test
