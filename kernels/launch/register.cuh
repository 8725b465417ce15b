#pragma once
// Turns one kernel description into a registry entry with a launcher per backend.
#include <string>
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
    out.push_back(instantiation{make_instantiation_id(dtype_of<T>(), variant, BLOCK_OL, K::threads, K::access_width),
                                variant, dtype_of<T>(), BLOCK_OL, K::threads, K::access_width,
                                K::needs_zeroed_dx, &launch_cuda<K>, &launch_host<K>});
  }
}

}  // namespace padtune::detail
