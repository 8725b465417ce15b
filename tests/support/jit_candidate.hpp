#pragma once
// A JIT kernel, compiled through the test cache and loaded, as a checker candidate.
#include "checker.hpp"
#include "padtune/jit/compile.hpp"
#include "padtune/jit/kernel.hpp"

namespace padtune::test {

/// For the current GPU, cached in the build tree (kept between runs: a second run loads instead of
/// compiling).
jit::compile_options test_jit_options();

/// Compiles (or finds in the build tree's JIT cache) and loads k; the candidate owns the loaded
/// kernel. Throws padtune::error when k cannot be compiled or loaded.
candidate candidate_of(const jit::kernel& k);

}  // namespace padtune::test
