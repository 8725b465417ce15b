// The reference of the contract: dx as a Thrust tabulate over its flat index, one functor for
// the device and the host. It moves bits, so NaN payloads and -0.0 come through unchanged; where
// an element has no source it is the fill's bits.
#include <thrust/execution_policy.h>
#include <thrust/tabulate.h>

#include <cstdint>

#include "padtune/reference.hpp"

namespace padtune {
namespace {

template <class Bits>
struct contract_element {
  const Bits* dy;
  std::int64_t L, OL, pad_left;
  Bits fill;
  __host__ __device__ Bits operator()(std::int64_t e) const {
    const std::int64_t row = e / L, i = e % L, j = i + pad_left;
    return (j >= 0 && j < OL) ? dy[row * OL + j] : fill;
  }
};

template <class Bits, class Policy>
void tabulate_dx(const Policy& policy, const problem& p, const problem_sizes& z) {
  Bits* dx = static_cast<Bits*>(p.dx);
  thrust::tabulate(policy, dx, dx + z.dx_elems,
                   contract_element<Bits>{static_cast<const Bits*>(p.dy), p.L, z.OL, p.pad_left, Bits(p.fill)});
}

template <class Policy>
void tabulate_any(const Policy& policy, const problem& p, const problem_sizes& z) {
  switch (z.elem_bytes) {
    case 2: return tabulate_dx<std::uint16_t>(policy, p, z);
    case 4: return tabulate_dx<std::uint32_t>(policy, p, z);
    case 8: return tabulate_dx<std::uint64_t>(policy, p, z);
  }
}

}  // namespace

status reference_device(const problem& p, cudaStream_t stream, std::string* why) {
  problem_sizes z;
  if (const status s = check(p, why, &z); s != status::ok) return s;
  if (z.dx_elems == 0) return status::ok;
  try {
    tabulate_any(thrust::cuda::par_nosync.on(stream), p, z);
  } catch (const std::exception& e) {
    if (why) *why = std::string("the device reference failed: ") + e.what();
    return status::launch_failed;
  }
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) {
    if (why) *why = std::string("the device reference failed: ") + cudaGetErrorString(e);
    return status::launch_failed;
  }
  return status::ok;
}

status reference_host(const problem& p, std::string* why) {
  problem_sizes z;
  if (const status s = check(p, why, &z); s != status::ok) return s;
  if (z.dx_elems > 0) tabulate_any(thrust::host, p, z);
  return status::ok;
}

}  // namespace padtune
