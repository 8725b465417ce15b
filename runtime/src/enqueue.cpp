#include "padtune/enqueue.hpp"

#include <fmt/format.h>

#include "padtune/cuda_error.hpp"

namespace padtune {

cudaError_t enqueue_checked(const instantiation& inst, backend b, const problem& p, cudaStream_t stream) {
  const std::size_t dx_bytes = std::size_t(p.B * p.C * p.L) * size_of(p.type);
  if (dx_bytes == 0) return cudaSuccess;
  if (b == backend::host) {
    if (inst.needs_zeroed_dx) prefill_host(p);
    inst.launch_host(p);
    return cudaSuccess;
  }
  if (inst.needs_zeroed_dx)
    if (const cudaError_t e = prefill_cuda(p, stream); e != cudaSuccess) return e;
  return inst.launch_cuda(p, stream);
}

status enqueue(const instantiation& inst, backend b, const problem& p, cudaStream_t stream, std::string* why) {
  if (b != backend::cuda && b != backend::host) {
    if (why) *why = fmt::format("unknown backend (value {})", int(b));
    return status::unsupported_backend;
  }
  problem_sizes sizes;
  if (const status s = check(p, why, &sizes); s != status::ok) return s;
  if (p.type != inst.type) {
    if (why) *why = fmt::format("{} takes dtype {}, the problem has dtype {}", inst.id, name_of(inst.type), name_of(p.type));
    return status::dtype_mismatch;
  }
  if (const cudaError_t e = enqueue_checked(inst, b, p, stream); e != cudaSuccess) {
    if (why) *why = fmt::format("{}{} failed: {}", inst.needs_zeroed_dx ? "filling dx or launching " : "launching ", inst.id,
                                cuda_error_text(e));
    return status::launch_failed;
  }
  return status::ok;
}

}  // namespace padtune
