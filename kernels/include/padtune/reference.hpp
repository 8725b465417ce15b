#pragma once
/// The reference of the exact contract, written with Thrust, for the device and for the host.
#include <cuda_runtime_api.h>

#include "padtune/problem.hpp"

namespace padtune {

/// Writes the contract's dx for p on the device (p's pointers are device memory), on `stream`.
/// Validates p first; returns the status and sets *why on failure.
status reference_device(const problem& p, cudaStream_t stream = nullptr, std::string* why = nullptr);

/// The same on host memory.
status reference_host(const problem& p, std::string* why = nullptr);

}  // namespace padtune
