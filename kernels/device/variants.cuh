#pragma once
// The kernel family: the one description of every variant. Everything else comes from here:
// - CMake reads the names off the PADTUNE_VARIANTS line below (kernels/CMakeLists.txt: one
//   translation unit per variant and dtype), so keep that line one line;
// - the registry compiles each description's configs for every dtype (kernels/launch/register.cuh);
// - the JIT takes each description's shape rule, its rule in words and its plan's block count
//   (kernels/jit/src/variant_rules.cu), and the kernel template named <name>_kernel;
// - padtune::variants() (registry.hpp) hands the names and flags to the tool (--variant, `padtune list
//   --variants --json`, which the scripts read), and the runtime's built-in default comes from
//   builtin_default below.
//
// A description is a struct <name>_variant with:
//   name, idea                  the variant's name (ids, the CLI) and its idea in one line
//   kernel<T, BLOCK_OL, MAX_THREADS, W>   the kernel template (protocol.cuh says what a kernel is)
//   configs[]                   the configurations compiled ahead of time, {BLOCK_OL, MAX_THREADS, W}
//   needs_zeroed_dx             whoever runs it zeroes dx first (the seed)
//   takes_width                 W is an access width; false: one element per access, W is 0
//   shape(elem, BLOCK_OL, MAX_THREADS, W), rule   its launch shape, and the rule in words
//   logical_blocks(pad_args, elem, BLOCK_OL, W)   the blocks of its plan for a problem
#include "ewise.cuh"
#include "flat.cuh"
#include "flatvec.cuh"
#include "rowelem.cuh"
#include "rowtile.cuh"
#include "seed.cuh"
#include "staged.cuh"

// The variants, in registry order.
#define PADTUNE_VARIANTS(X) X(seed) X(rowtile) X(flat) X(flatvec) X(ewise) X(staged) X(rowelem)

namespace padtune::detail {

/// Calls f(D{}) for every variant's description D, in registry order.
template <class F>
constexpr void for_each_variant(F&& f) {
#define PADTUNE_VARIANT_CALL(name) f(name##_variant{});
  PADTUNE_VARIANTS(PADTUNE_VARIANT_CALL)
#undef PADTUNE_VARIANT_CALL
}

/// What the dispatcher runs where no table serves a shape: rows of at least long_row_bytes take the
/// long-row variant, shorter rows the short-row one, each its compiled instantiation nearest to the
/// tile below with 16-byte accesses (a block per short row would waste the block).
struct builtin_default {
  static constexpr int long_row_bytes = 256;
  using long_rows = rowtile_variant;
  static constexpr int long_rows_block_ol = 2048;
  using short_rows = flat_variant;
  static constexpr int short_rows_block_ol = 1024;
  static constexpr int access_width = 16;
};

}  // namespace padtune::detail
