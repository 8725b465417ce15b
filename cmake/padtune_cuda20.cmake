# CMake 3.25 does not know nvcc's C++20 flag (nvcc 12 and later have it), so it would refuse
# CUDA_STANDARD 20 and the cuda_std_20 compile feature. Teach it, where it does not know: padtune's
# own build includes this, and so does an installed padtune's package file, so that a consumer's .cu
# files get the standard the headers need (padtune::padtune carries cuda_std_20 and cxx_std_20).
if(CMAKE_CUDA_COMPILER_LOADED AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION
   AND CMAKE_CUDA_COMPILER_ID STREQUAL "NVIDIA" AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_COMPILE_FEATURES cuda_std_20)
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
