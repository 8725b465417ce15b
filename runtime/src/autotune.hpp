#pragma once
// First-use timing (opt-in: padtune::set_autotune, PADTUNE_AUTOTUNE=1): for a shape no exact entry
// holds, the vote's best-voted few are timed on the call's own buffers and stream, and the fastest
// serves that shape for the rest of the process. On the 552 held-out shapes of the H200 (seeds
// 1-13), the best of the vote's first 12 is within 1.032 of the shape's best measured kernel, where
// the vote's first alone is within 1.36, and its first 8 within 1.050
// (lab/experiments/dispatch-study/finalists.py).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "padtune/registry.hpp"

namespace padtune::detail {

/// How many of the vote's candidates the first use of a shape times.
inline constexpr std::size_t autotune_finalists = 12;
/// How much faster than the vote's first another finalist must time to be taken instead: the vote
/// rests on the table's many samples, a first-use timing on a few (on the H200's held-out shapes of
/// seeds 8-10, taking the fastest outright let noise pick a kernel up to 9.6% slower on problems of
/// 3-6 us, where the timed difference was under 1%).
inline constexpr double autotune_margin = 0.02;

struct finalist_timing {
  const instantiation* inst = nullptr;
  double median_us = 0;  ///< of the timed runs
};

struct finalist_timings {
  std::vector<finalist_timing> runs;  ///< in the order given
  bool l2_flushed = false;            ///< false where no flush buffer could be had (a full GPU) or on the host
};

/// Runs each finalist on p (checked, of their dtype): one round that only sizes the others (the
/// first launch of a kernel loads its module), then at least `rounds` rounds in a rotating order (on
/// CUDA up to 30, as many as 5 ms of kernel time allow: small problems, where noise is a few percent,
/// get more). On CUDA each run is timed by events on `stream`, twice the L2 written before it, as
/// padtune tune times; on the host by the clock around the emulation. Leaves p.dx written by the last
/// run. Throws padtune::error.
finalist_timings time_finalists(const instantiation* const* finalists, std::size_t count, backend b, const problem& p,
                                cudaStream_t stream, int rounds = 10);

/// Whether `stream` is being captured into a CUDA graph (or cannot be asked): no timing then.
bool capturing(cudaStream_t stream) noexcept;

}  // namespace padtune::detail
