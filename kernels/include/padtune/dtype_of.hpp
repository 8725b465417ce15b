#pragma once
/// The dtype of a C++ element type: float, double, __half, __nv_bfloat16.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "padtune/dtype.hpp"

namespace padtune {

template <class T> constexpr dtype dtype_of();
template <> constexpr dtype dtype_of<float>() { return dtype::f32; }
template <> constexpr dtype dtype_of<double>() { return dtype::f64; }
template <> constexpr dtype dtype_of<__half>() { return dtype::f16; }
template <> constexpr dtype dtype_of<__nv_bfloat16>() { return dtype::bf16; }

}  // namespace padtune
