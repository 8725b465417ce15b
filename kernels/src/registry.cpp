#include "padtune/cuda_error.hpp"
#include "padtune/testing/extra_instantiations.hpp"
#include "padtune/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace padtune::detail {
// One adder per generated translation unit (variant x dtype), listed by CMake.
#define PADTUNE_TU(VARIANT, DTYPE) void add_##VARIANT##_##DTYPE(std::vector<instantiation>&);
#include "padtune_instance_list.inc"
#undef PADTUNE_TU

std::string make_instantiation_id(dtype type, std::string_view variant, int block_ol, int threads, int width) {
  return fmt::format("constant_pad1d_backward__{}__{}__bo{}__t{}__w{}", name_of(type), variant, block_ol, threads,
                     width);
}

// Function-local statics: safe to use from other translation units' static initializers.
static std::vector<instantiation>& extra_instantiations() {
  static std::vector<instantiation> extras;
  return extras;
}
static bool& registry_built() {
  static bool built = false;
  return built;
}

bool add_extra_instantiation(instantiation inst) {
  if (registry_built())
    throw std::logic_error("padtune: " + inst.id + " added to the registry after its first use");
  extra_instantiations().push_back(std::move(inst));
  return true;
}

static std::vector<instantiation> build_registry() {
  std::vector<instantiation> all;
#define PADTUNE_TU(VARIANT, DTYPE) add_##VARIANT##_##DTYPE(all);
#include "padtune_instance_list.inc"
#undef PADTUNE_TU
  registry_built() = true;
  all.insert(all.end(), extra_instantiations().begin(), extra_instantiations().end());
  return all;
}
}  // namespace padtune::detail

namespace padtune {

std::span<const instantiation> registry() {
  static const std::vector<instantiation> all = detail::build_registry();
  return all;
}

const instantiation* find_instantiation(std::string_view id) {
  const auto all = registry();
  const auto it = std::find_if(all.begin(), all.end(), [&](const instantiation& i) { return i.id == id; });
  return it == all.end() ? nullptr : &*it;
}

status launch(const instantiation& inst, backend b, const problem& p, cudaStream_t stream, std::string* why) {
  problem_sizes sizes;
  if (const status s = check(p, why, &sizes); s != status::ok) return s;
  if (p.type != inst.type) {
    if (why) *why = fmt::format("{} takes dtype {}, the problem has dtype {}", inst.id, name_of(inst.type), name_of(p.type));
    return status::dtype_mismatch;
  }
  if (sizes.dx_elems == 0) return status::ok;
  if (b == backend::host) {
    inst.launch_host(p);
    return status::ok;
  }
  if (const cudaError_t e = inst.launch_cuda(p, stream); e != cudaSuccess) {
    if (why) *why = fmt::format("launching {} failed: {}", inst.id, cuda_error_text(e));
    return status::launch_failed;
  }
  return status::ok;
}

}  // namespace padtune
