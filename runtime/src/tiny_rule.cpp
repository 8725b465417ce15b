#include "tiny_rule.hpp"

#include <array>

namespace padtune::detail {

const instantiation* tiny_instantiation(dtype type) {
  static const std::array<const instantiation*, std::size(all_dtypes)> by_dtype = [] {
    std::array<const instantiation*, std::size(all_dtypes)> a{};
    for (const instantiation& i : registry())
      if (i.variant == tiny_variant && i.block_ol == tiny_block_ol && i.threads == tiny_threads)
        a[std::size_t(i.type)] = &i;
    return a;
  }();
  return std::size_t(type) < by_dtype.size() ? by_dtype[std::size_t(type)] : nullptr;
}

}  // namespace padtune::detail
