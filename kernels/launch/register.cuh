#pragma once
// Turns a variant's description (device/variants.cuh) into registry entries, one per configuration
// valid for the dtype, each with a launcher per backend.
#include <cstddef>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "launch.cuh"
#include "padtune/dtype_of.hpp"
#include "padtune/registry.hpp"

namespace padtune::detail {

/// The id the way the seed derives it: fn name, dtype, then the parameters, joined by "__".
std::string make_instantiation_id(dtype type, std::string_view variant, int block_ol, int threads, int width);

template <class K, class T, int BLOCK_OL>
void add_instantiation(std::vector<instantiation>& out, std::string_view variant) {
  if constexpr (K::valid) {
    static_assert(kernel_of_the_family<K>, "a kernel of the family (device/protocol.cuh)");
    out.push_back(instantiation{make_instantiation_id(dtype_of<T>(), variant, BLOCK_OL, K::threads, K::access_width),
                                variant, dtype_of<T>(), BLOCK_OL, K::threads, K::access_width,
                                K::needs_zeroed_dx, &launch_cuda<K>, &launch_host<K>});
  }
}

/// The kernel of configuration I of variant V for dtype T.
template <class V, class T, std::size_t I>
using configured_kernel = typename V::template kernel<T, V::configs[I].block_ol, V::configs[I].max_threads, V::configs[I].width>;

template <class V, class T, std::size_t... I>
void add_configs(std::vector<instantiation>& out, std::index_sequence<I...>) {
  (add_instantiation<configured_kernel<V, T, I>, T, V::configs[I].block_ol>(out, V::name), ...);
}

/// Every configuration of variant V valid for dtype T, in the order of V::configs.
template <class V, class T>
void add_variant(std::vector<instantiation>& out) {
  add_configs<V, T>(out, std::make_index_sequence<std::size(V::configs)>{});
}

}  // namespace padtune::detail
