#pragma once
// JIT candidates (padtune tune --jit): the JIT twins of the ahead-of-time candidates, one per pads
// (pad_left, pad_right) of the sweep, so that compile-time pads are timed against run-time ones.
//
// The tuner, the selection and the worker know candidates as `const instantiation*`, whose CUDA
// launcher is a plain function pointer. A JIT candidate is an instantiation in a fixed pool of
// max_jit_candidates slots; slot I's launcher is a trampoline that launches slot I's loaded kernel.
// Its id ("jit__" + the JIT kernel's id) says everything needed to build it again, so a worker
// process builds the same candidate from the id it is sent (find_candidate).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "padtune/jit/kernel.hpp"
#include "padtune/registry.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// JIT candidates one process can hold (slots of launch trampolines, made at compile time).
inline constexpr std::size_t max_jit_candidates = 8192;

/// "jit__" + k.id().
std::string jit_id_of(const jit::kernel& k);

/// The JIT kernel an id names, or nullopt when it is no canonical JIT candidate id.
std::optional<jit::kernel> parse_jit_id(std::string_view id);

/// The JIT twins of `aot` (same variant, BLOCK_OL, threads and access width) for each distinct pads
/// of `shapes`, in the order of the pads' first appearance. Configurations the JIT refuses are left
/// out. Pure: nothing compiled, nothing registered.
std::vector<jit::kernel> plan_jit_twins(dtype type, const std::vector<const instantiation*>& aot,
                                        const std::vector<shape5>& shapes);

/// The pool's candidate for k (the same pointer for the same id). Throws results_error when the
/// pool is full. Compiles nothing: the kernel is compiled and loaded at its first launch.
const instantiation* jit_candidate(const jit::kernel& k);

/// plan_jit_twins, each through jit_candidate.
std::vector<const instantiation*> jit_candidates_for(dtype type, const std::vector<const instantiation*>& aot,
                                                     const std::vector<shape5>& shapes);

/// The registry's instantiation with this id, else the JIT candidate it names, else nullptr.
const instantiation* find_candidate(std::string_view id);

/// Whether `inst` can run shape s: a JIT candidate only on its own pads; an AOT one always.
bool applies_to(const instantiation& inst, const shape5& s);

/// The candidates of `all` that apply to s (the others are not measured there, nor failures).
std::vector<const instantiation*> applicable(const std::vector<const instantiation*>& all, const shape5& s);

/// Compiles (through the on-disk JIT cache) and loads a JIT candidate if not yet done; returns ""
/// or why it cannot run. "" for an AOT instantiation. Needs a GPU for a JIT candidate.
std::string load_jit_candidate(const instantiation& inst);

}  // namespace padtune::tuner
