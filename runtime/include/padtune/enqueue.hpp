#pragma once
/// The one way padtune runs an instantiation, for every caller (the dispatcher, `padtune run`, the
/// tuner's workspaces, the benchmarks): zero dx where the instantiation needs it (the seed's
/// contract: it writes only the positions that have a source), then launch.
#include <cuda_runtime_api.h>

#include <string>

#include "padtune/registry.hpp"

namespace padtune {

/// Validates p (padtune::check) and enqueues `inst` on backend b: a problem with no elements is a
/// no-op. Returns the status and sets *why on failure.
status enqueue(const instantiation& inst, backend b, const problem& p, cudaStream_t stream = nullptr,
               std::string* why = nullptr);

/// The same for a problem that passed check() and matches inst's dtype, without checking it again
/// (a timed loop checks once): returns the CUDA error of the zeroing or the launch. On the host
/// backend the work is done when it returns.
cudaError_t enqueue_checked(const instantiation& inst, backend b, const problem& p, cudaStream_t stream);

}  // namespace padtune
