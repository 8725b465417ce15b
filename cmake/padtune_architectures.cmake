# The CUDA architectures padtune is built for, set here and nowhere else: machine code (SASS) for
# the A100 (sm_80), the A10 and RTX 30 (86), the L40S and RTX 40 (89), the H100 and H200 (90), the
# B200 (100) and the RTX 50 (120), and PTX of the newest, which the driver compiles at load for any
# later GPU. PyTorch's own wheels carry the same six (and sm_75). docs/python.md gives the wheel's
# size and build time with this list.
#
# It is the default of every build that names no list: `pip install .`, `pip wheel .`, a plain
# `cmake -B build` (and its `cmake --install`). Override at configure time with
# -DCMAKE_CUDA_ARCHITECTURES=... (`native`: the GPU that is here; `80-virtual`: PTX only) or
# CUDAARCHS in the environment, e.g. `pip install . -Ccmake.define.CMAKE_CUDA_ARCHITECTURES=native`.
# The presets choose for themselves: ci 90 (one architecture, fast), gpu native.
set(PADTUNE_CUDA_ARCHITECTURES "80-real;86-real;89-real;90-real;100-real;120")

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS})
  set(CMAKE_CUDA_ARCHITECTURES "${PADTUNE_CUDA_ARCHITECTURES}")
endif()
