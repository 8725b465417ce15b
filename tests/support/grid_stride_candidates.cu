#include "grid_stride_candidates.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <string>
#include <string_view>

#include "padtune/dtype_of.hpp"
#include "register.cuh"
#include "variants.cuh"

namespace padtune::test {
namespace {

/// The grid of the forced grid-stride launches: small, so that every problem of the edge suite with
/// more blocks than this walks the loop.
constexpr std::uint64_t grid_stride_test_blocks = 5;

/// Configuration I of variant V, launched over the 64-bit plan by the grid-stride loop.
/// REQUIRED: it is valid for every dtype, so it cannot drop out of the test unseen.
template <class V, class T, std::size_t I, bool REQUIRED = false>
void add(std::vector<candidate>& out) {
  using K = detail::configured_kernel<V, T, I>;
  static_assert(!REQUIRED || K::valid, "a configuration the grid-stride test needs is not valid for this dtype");
  if constexpr (K::valid) {
    out.push_back({detail::make_instantiation_id(dtype_of<T>(), V::name, V::configs[I].block_ol, K::threads,
                                                 K::access_width) +
                       std::string(grid_stride_suffix),
                   dtype_of<T>(), K::needs_zeroed_dx, [](const problem& p, backend b) -> std::string {
                     const typename K::params plan = K::make_params(detail::make_pad_args(p));
                     if (b == backend::host) {
                       detail::run_host_blocks<K>(plan);
                       return "";
                     }
                     const cudaError_t e = detail::launch_cuda_grid_stride<K>(plan, grid_stride_test_blocks, nullptr);
                     return e == cudaSuccess ? "" : cudaGetErrorString(e);
                   }});
  }
}

template <class V, class T, std::size_t... I>
void add_every_config(std::vector<candidate>& out, std::index_sequence<I...>) {
  (add<V, T, I>(out), ...);
}

/// The configuration of V with the smallest tile.
template <class V>
constexpr std::size_t smallest_tile() {
  std::size_t best = 0;
  for (std::size_t i = 1; i < std::size(V::configs); ++i)
    if (V::configs[i].block_ol < V::configs[best].block_ol) best = i;
  return best;
}

/// The first configuration of V with access width W; a compile error if it has none.
template <class V>
constexpr std::size_t first_of_width(int width) {
  for (std::size_t i = 0; i < std::size(V::configs); ++i)
    if (V::configs[i].width == width) return i;
  throw "no configuration of this width";  // in a constant expression: a compile-time error
}

template <class T>
void add_all(std::vector<candidate>& out, backend b) {
  using namespace detail;
  // rowelem: every configuration, its 64-bit plan against its row grid (on both backends).
  add_every_config<rowelem_variant, T>(out, std::make_index_sequence<std::size(rowelem_variant::configs)>{});
  // flat: its direct grid takes every problem whose dx is aligned; its 64-bit plan at the smallest
  // tile and at 8-byte chunks, on both backends (f64's 8-byte chunks are aligned at every placement
  // of the suite, so only this runs their 64-bit plan).
  add<flat_variant, T, smallest_tile<flat_variant>(), true>(out);
  add<flat_variant, T, first_of_width<flat_variant>(8), true>(out);
  if (b == backend::host) return;
  // Every other variant: its smallest tile, so that most shapes of the suite have more logical
  // blocks than the grid and walk the loop (the loop is the launcher's, the same for every
  // configuration of a variant).
  for_each_variant([&](auto d) {
    using V = decltype(d);
    if constexpr (!std::is_same_v<V, rowelem_variant> && !std::is_same_v<V, flat_variant>)
      add<V, T, smallest_tile<V>(), true>(out);
  });
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
