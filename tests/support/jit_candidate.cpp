#include "jit_candidate.hpp"

#include <memory>

#include "padtune/jit/loaded_kernel.hpp"

namespace padtune::test {

jit::compile_options test_jit_options() {
  jit::compile_options opts;
  opts.cache_dir = PADTUNE_TEST_JIT_CACHE;
  return opts;
}

candidate candidate_of(const jit::kernel& k) {
  const auto loaded = std::make_shared<const jit::loaded_kernel>(k, test_jit_options());
  return {k.id(), k.type(), k.needs_zeroed_dx(), [loaded](const problem& p, backend) {
            std::string why;
            return loaded->launch(p, nullptr, &why) == status::ok ? "" : why;
          }};
}

}  // namespace padtune::test
