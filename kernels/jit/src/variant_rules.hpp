#pragma once
// The variants' own rules (kernels/device), asked with parameters known only at run time: threads
// and validity of a configuration, and the logical blocks of a problem. One rule, so the JIT's
// host code and the kernels it compiles cannot disagree.
#include <cstdint>
#include <string_view>

namespace padtune::jit::detail {

struct variant_shape {
  int threads = 0;
  int access_width = 0;
  bool valid = false;
  bool needs_zeroed_dx = false;  ///< the variant writes only the positions that have a source
  std::string_view rule;  ///< the variant's rule, in words, for the error that refuses a configuration
};

/// nullopt-like: valid is false and rule empty for a variant that does not exist.
variant_shape shape_of(std::string_view variant, int elem, int block_ol, int max_threads, int width);

/// Logical blocks of the variant's plan for this problem. Pre: the configuration is valid and the
/// problem passed padtune::check.
std::uint64_t logical_blocks_of(std::string_view variant, int elem, int block_ol, int width, const void* dy, void* dx,
                                std::int64_t rows, std::int64_t L, std::int64_t pad_left, std::int64_t pad_right);

}  // namespace padtune::jit::detail
