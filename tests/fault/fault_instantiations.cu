// Deliberately faulting instantiations, linked only into padtune_fault_cli (a test build of the
// padtune CLI): variant "fault", dtype f32, so `--variant fault` or `--filter __fault__` picks them
// among the real ones. Each faults the same way on every shape, on both backends:
//   illegal_address  CUDA: a store to an unmapped address (a sticky error that poisons the context);
//                    host: SIGSEGV
//   trap             CUDA: __trap() (a sticky launch failure); host: abort()
//   hang             CUDA: spins forever; host: sleeps forever (only a time limit ends it)
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <thread>

#include "padtune/testing/extra_instantiations.hpp"

namespace padtune::fault_test {
namespace {

// The address comes in as an argument, so the compiler cannot see (and replace) the bad store.
__global__ void store_to(int* nowhere) { *reinterpret_cast<volatile int*>(nowhere) = 1; }
__global__ void trap() { __trap(); }
__device__ volatile int never_set = 0;
__global__ void spin() {
  while (never_set == 0) {
  }
}

cudaError_t illegal_address_cuda(const problem&, cudaStream_t stream) {
  store_to<<<1, 32, 0, stream>>>(reinterpret_cast<int*>(std::uintptr_t(0xdead0000)));
  return cudaGetLastError();
}
cudaError_t trap_cuda(const problem&, cudaStream_t stream) {
  trap<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}
cudaError_t hang_cuda(const problem&, cudaStream_t stream) {
  spin<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}
void illegal_address_host(const problem&) { std::raise(SIGSEGV); }
void trap_host(const problem&) { std::abort(); }
void hang_host(const problem&) {
  for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
}

instantiation fault(const char* name, cudaError_t (*cuda)(const problem&, cudaStream_t), void (*host)(const problem&)) {
  return instantiation{std::string("constant_pad1d_backward__f32__fault__") + name, "fault", dtype::f32, 64, 32, 4,
                       false, cuda, host};
}

[[maybe_unused]] const bool registered =
    detail::add_extra_instantiation(fault("illegal_address", illegal_address_cuda, illegal_address_host)) &&
    detail::add_extra_instantiation(fault("trap", trap_cuda, trap_host)) &&
    detail::add_extra_instantiation(fault("hang", hang_cuda, hang_host));

}  // namespace
}  // namespace padtune::fault_test
