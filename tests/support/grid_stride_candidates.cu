#include "grid_stride_candidates.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <string_view>

#include "configs.cuh"
#include "ewise.cuh"
#include "flatvec.cuh"
#include "launch.cuh"
#include "padtune/dtype_of.hpp"
#include "register.cuh"
#include "rowelem.cuh"
#include "rowtile.cuh"
#include "seed.cuh"
#include "staged.cuh"

namespace padtune::test {
namespace {

/// REQUIRED: the configuration is one the registry compiles for every dtype (configs.cuh), so it
/// cannot drop out of the test unseen.
template <class K, class T, int BLOCK_OL, bool REQUIRED = false>
void add(std::vector<candidate>& out, std::string_view variant) {
  static_assert(!REQUIRED || K::valid, "a configuration the grid-stride test needs is not valid for this dtype");
  if constexpr (K::valid) {
    out.push_back({detail::make_instantiation_id(dtype_of<T>(), variant, BLOCK_OL, K::threads, K::access_width) +
                       std::string(grid_stride_suffix),
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
void add_all(std::vector<candidate>& out, backend b) {
  using namespace detail;
#define PADTUNE_ADD(BLOCK_OL, MAX_THREADS, W) add<rowelem_kernel<T, BLOCK_OL, MAX_THREADS, W>, T, BLOCK_OL>(out, "rowelem");
  PADTUNE_ROWELEM_CONFIGS(PADTUNE_ADD)
#undef PADTUNE_ADD
  if (b == backend::host) return;
  // One configuration each, the smallest tile in configs.cuh, so that most shapes of the suite
  // have more logical blocks than the grid and walk the loop (the loop is the launcher's, the
  // same for every configuration of a variant).
  add<seed_kernel<T, 64, 256, 0>, T, 64, true>(out, "seed");
  add<rowtile_kernel<T, 64, 256, 16>, T, 64, true>(out, "rowtile");
  add<flat_kernel<T, 64, 256, 16>, T, 64, true>(out, "flat");
  add<flatvec_kernel<T, 64, 256, 16>, T, 64, true>(out, "flatvec");
  add<ewise_kernel<T, 64, 64, 0>, T, 64, true>(out, "ewise");
  add<staged_kernel<T, 256, 64, 16>, T, 256, true>(out, "staged");
}

}  // namespace

std::vector<candidate> grid_stride_candidates(backend b) {
  std::vector<candidate> out;
  add_all<float>(out, b);
  add_all<double>(out, b);
  add_all<__half>(out, b);
  add_all<__nv_bfloat16>(out, b);
  return out;
}

}  // namespace padtune::test
