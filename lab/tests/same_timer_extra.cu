// The smallest --extra file for lab/bin/same-timer (lab/tests/same_timer_shim.sh): one
// function of the form same_timer.py times, launching a kernel of the family through its own entry,
// so that the test sees an --extra file compile against the current kernel templates.
namespace {

namespace pd = padtune::detail;

template <class K>
__global__ void __launch_bounds__(K::threads) one_block_each(const __grid_constant__ typename K::params p) {
  K::run(p, blockIdx.x, threadIdx.x);
}

}  // namespace

extern "C" int same_timer_ewise_one_block_each(const void* dy, void* dx, long long rows, long long L, long long pl,
                                               long long pr, void* stream) {
  using K = pd::ewise_kernel<float, 64, 64, 0>;
  const pd::pad_args a =
      pd::make_pad_args(static_cast<const pd::byte*>(dy), static_cast<pd::byte*>(dx), rows, L, pl, pr, K::elem);
  const K::params p = K::make_params(a);
  if (p.num_blocks == 0 || p.num_blocks > 0x7fffffff) return 1;
  one_block_each<K><<<unsigned(p.num_blocks), K::threads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return int(cudaGetLastError());
}
