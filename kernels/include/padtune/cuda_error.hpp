#pragma once
/// One wording for CUDA errors across padtune: "cudaErrorInvalidValue (invalid argument)".
#include <cuda_runtime_api.h>

#include <string>

namespace padtune {

std::string cuda_error_text(cudaError_t e);

}  // namespace padtune
