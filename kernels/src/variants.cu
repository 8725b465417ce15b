// The variants' descriptions (device/variants.cuh) as the host's library sees them: names and flags,
// and the built-in default's choice. Built by nvcc: the descriptions are device headers.
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "padtune/registry.hpp"
#include "variants.cuh"

namespace padtune {

std::span<const variant_info> variants() {
  static const std::vector<variant_info> all = [] {
    std::vector<variant_info> v;
    detail::for_each_variant([&](auto d) {
      using D = decltype(d);
      v.push_back({D::name, D::idea, D::needs_zeroed_dx, D::takes_width, D::rule});
    });
    return v;
  }();
  return all;
}

const variant_info* find_variant(std::string_view name) {
  const auto all = variants();
  const auto it = std::find_if(all.begin(), all.end(), [&](const variant_info& v) { return v.name == name; });
  return it == all.end() ? nullptr : &*it;
}

namespace {

/// The instantiation of `type` closest to (variant, the default width, the largest tile <= max_block_ol).
/// Picked by fields so that a change of the compiled list cannot break it; ties: the first.
const instantiation* closest_instantiation(dtype type, std::string_view variant, int max_block_ol) {
  const auto rank = [&](const instantiation& i) {
    const bool fits = i.block_ol <= max_block_ol;
    return std::tuple{i.variant == variant, !i.needs_zeroed_dx, i.access_width == detail::builtin_default::access_width, fits,
                      fits ? i.block_ol : -i.block_ol};
  };
  const instantiation* best = nullptr;
  for (const instantiation& i : registry())
    if (i.type == type && (!best || rank(i) > rank(*best))) best = &i;
  return best;
}

/// Rows long enough for the long-row variant.
bool long_rows(dtype type, std::int64_t L) {
  return L * std::int64_t(size_of(type)) >= detail::builtin_default::long_row_bytes;
}

}  // namespace

const instantiation* builtin_default_instantiation(dtype type, std::int64_t L) {
  using D = detail::builtin_default;
  struct choices {
    const instantiation* long_rows[std::size(all_dtypes)] = {};
    const instantiation* short_rows[std::size(all_dtypes)] = {};
  };
  static const choices c = [] {
    choices x;
    for (dtype t : all_dtypes) {
      x.long_rows[std::size_t(t)] = closest_instantiation(t, D::long_rows::name, D::long_rows_block_ol);
      x.short_rows[std::size_t(t)] = closest_instantiation(t, D::short_rows::name, D::short_rows_block_ol);
    }
    return x;
  }();
  if (size_of(type) == 0) return nullptr;
  return long_rows(type, L) ? c.long_rows[std::size_t(type)] : c.short_rows[std::size_t(type)];
}

std::string builtin_default_reason(dtype type, std::int64_t L) {
  const instantiation* inst = builtin_default_instantiation(type, L);
  // No fmt here: nvcc does not compile it.
  if (!inst) return "built-in default: no instantiation takes dtype " + std::to_string(int(type));
  return "built-in default: rows of " + std::to_string(L * std::int64_t(size_of(type))) + " bytes (" +
         (long_rows(type, L) ? ">= " : "< ") + std::to_string(detail::builtin_default::long_row_bytes) + " bytes) take " +
         std::string(inst->variant) + " with " + std::to_string(inst->access_width) + "-byte accesses and BLOCK_OL " +
         std::to_string(inst->block_ol);
}

}  // namespace padtune
