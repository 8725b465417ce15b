#pragma once
// What every device header starts from. Everything in kernels/device is __host__ __device__: the
// host backend runs the very same kernel bodies on the CPU, so device-only intrinsics sit behind
// __CUDA_ARCH__ with a portable twin. NVRTC compiles these files too (kernels/jit), so they include
// nothing but each other: NVRTC has no C++ standard library.
#if defined(__CUDACC_RTC__)
namespace std {  // the fixed-width names the kernels use, from the built-in types of the CUDA target
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using int32_t = int;
using uint64_t = unsigned long long;
using int64_t = long long;
using uintptr_t = unsigned long long;
}  // namespace std
#else
#include <cstdint>
#include <cstring>
#endif

#define PADTUNE_HD __host__ __device__ __forceinline__

namespace padtune::detail {

using byte = unsigned char;

}  // namespace padtune::detail
