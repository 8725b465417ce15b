#pragma once
// The tuner's one way to turn a CUDA error into an exception that names the call.
#include <cuda_runtime_api.h>

namespace padtune::tuner {

/// Throws std::runtime_error "<what>: <the error's name and text>" unless e is cudaSuccess.
void check_cuda(cudaError_t e, const char* what);

}  // namespace padtune::tuner
