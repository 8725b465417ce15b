#include "grid_stride_candidates.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "configs.cuh"
#include "launch.cuh"
#include "padtune/dtype_of.hpp"
#include "register.cuh"
#include "rowelem.cuh"

namespace padtune::test {
namespace {

template <class K, class T, int BLOCK_OL>
void add(std::vector<candidate>& out) {
  if constexpr (K::valid) {
    static_assert(detail::has_row_grid<K>, "only a kernel with a direct launch has a second path to test");
    out.push_back({detail::make_instantiation_id(dtype_of<T>(), "rowelem", BLOCK_OL, K::threads, K::access_width) +
                       " (grid-stride)",
                   dtype_of<T>(), K::needs_zeroed_dx, [](const problem& p, backend b) -> std::string {
                     if (b == backend::host) {
                       detail::launch_host<K, false>(p);
                       return "";
                     }
                     const cudaError_t e = detail::launch_cuda<K, false>(p, nullptr);
                     return e == cudaSuccess ? "" : cudaGetErrorString(e);
                   }});
  }
}

template <class T>
void add_rowelem(std::vector<candidate>& out) {
#define PADTUNE_ADD(BLOCK_OL, MAX_THREADS, W) add<detail::rowelem_kernel<T, BLOCK_OL, MAX_THREADS, W>, T, BLOCK_OL>(out);
  PADTUNE_ROWELEM_CONFIGS(PADTUNE_ADD)
#undef PADTUNE_ADD
}

}  // namespace

std::vector<candidate> grid_stride_candidates() {
  std::vector<candidate> out;
  add_rowelem<float>(out);
  add_rowelem<double>(out);
  add_rowelem<__half>(out);
  add_rowelem<__nv_bfloat16>(out);
  return out;
}

}  // namespace padtune::test
