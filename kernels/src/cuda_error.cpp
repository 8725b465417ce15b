// Kept apart from status.cpp, which the fuzz targets build without CUDA.
#include "padtune/cuda_error.hpp"

#include <fmt/format.h>

namespace padtune {

std::string cuda_error_text(cudaError_t e) { return fmt::format("{} ({})", cudaGetErrorName(e), cudaGetErrorString(e)); }

}  // namespace padtune
