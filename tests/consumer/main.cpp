// Calls the dispatcher on the host backend and checks it against the reference, and compiles a JIT
// kernel to PTX from the installed library alone: exit 0 if both work.
#include <cstdio>
#include <cstring>
#include <vector>

#include "padtune/jit/constant_pad1d_backward.hpp"
#include "padtune/padtune.hpp"
#include "padtune/reference.hpp"

int main() {
  const std::int64_t B = 2, C = 3, L = 100, pl = 3, pr = 5, OL = pl + L + pr;
  std::vector<float> dy(std::size_t(B * C * OL)), dx(std::size_t(B * C * L), -1.0f), ref(dx.size());
  for (std::size_t i = 0; i < dy.size(); ++i) dy[i] = float(i) + 0.5f;
  padtune::dispatch({dy.data(), dx.data(), B, C, L, pl, pr, padtune::dtype::f32}, padtune::backend::host);
  padtune::reference_host({dy.data(), ref.data(), B, C, L, pl, pr, padtune::dtype::f32});
  const bool same = std::memcmp(dx.data(), ref.data(), dx.size() * sizeof(float)) == 0;
  std::printf("padtune consumer: dispatch on the host backend %s the reference\n", same ? "matches" : "DIFFERS FROM");
  const padtune::ConstantPad1dBackward<float> k(2, 3, 16);
  const auto ptx = padtune::jit::compile(k, {padtune::jit::image_format::ptx, "sm_90", false, {}});
  const bool has_entry = ptx.image.find(k.entry_point_name()) != std::string::npos;
  std::printf("padtune consumer: JIT PTX of %s %s its entry point\n", k.id().c_str(), has_entry ? "has" : "LACKS");
  return same && has_entry ? 0 : 1;
}
