# padtune::nvrtc: libnvrtc alone. FindCUDAToolkit's CUDA::nvrtc also links the driver
# (CUDA::cuda_driver: the toolkit's stub at link time), and a program that needs libcuda.so.1 when
# it loads does not start on a machine without a GPU driver, such as CI. padtune's JIT compiles with
# NVRTC and loads through the runtime API, which opens the driver only when asked. Included by the
# top-level CMakeLists.txt and by padtuneConfig.cmake, after find_package(CUDAToolkit).
if(NOT TARGET padtune::nvrtc)
  if(NOT CUDA_nvrtc_LIBRARY)
    message(FATAL_ERROR "padtune: FindCUDAToolkit found no libnvrtc (CUDA_nvrtc_LIBRARY); the JIT needs it")
  endif()
  add_library(padtune::nvrtc UNKNOWN IMPORTED)
  set_target_properties(padtune::nvrtc PROPERTIES IMPORTED_LOCATION "${CUDA_nvrtc_LIBRARY}"
                                                  INTERFACE_INCLUDE_DIRECTORIES "${CUDAToolkit_INCLUDE_DIRS}")
endif()
