// Problems past the 32-bit and grid limits, on the device: more than 2^31 elements and more than
// 65535 rows, for one instantiation of each variant and dtype. Data is made and compared on the
// device (gigabytes), against the device reference, with guard bytes around dx.
#include <gtest/gtest.h>
#include <thrust/device_ptr.h>
#include <thrust/equal.h>
#include <thrust/execution_policy.h>
#include <thrust/mismatch.h>

#include <random>

#include "../support/checker.hpp"
#include "../support/jit_candidate.hpp"
#include "../support/test_data.hpp"
#include "padtune/reference.hpp"

namespace padtune::test {
namespace {

/// Random non-zero words from a counter hash: fresh for every seed.
__global__ void fill_random(std::uint32_t* p, std::uint64_t words, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < words; i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t x = (i + seed) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 29;
    p[i] = std::uint32_t(x) | 0x00010001u;  // no zero half-word: no element is +0
  }
}

struct device_buffer {
  unsigned char* p = nullptr;
  explicit device_buffer(std::size_t n) { EXPECT_EQ(cudaMalloc(&p, n), cudaSuccess) << "cudaMalloc of " << n << " bytes"; }
  ~device_buffer() { cudaFree(p); }
};

std::string check_on_device(const candidate& inst, const shape& s) {
  problem_sizes z;
  std::string why;
  if (check_shape(s.B, s.C, s.L, s.pad_left, s.pad_right, inst.type, &why, &z) != status::ok) return why;
  const std::size_t dx_bytes = std::size_t(z.dx_bytes()), dy_bytes = std::size_t(z.dy_bytes());
  device_buffer dy(dy_bytes + 16), dx(dx_bytes + 2 * guard_bytes), ref(dx_bytes);
  if (!dy.p || !dx.p || !ref.p) return "out of device memory";
  fill_random<<<4096, 256>>>(reinterpret_cast<std::uint32_t*>(dy.p), (dy_bytes + 3) / 4, std::random_device{}());
  cudaMemset(dx.p, guard_byte, dx_bytes + 2 * guard_bytes);
  cudaMemset(dx.p + guard_bytes, inst.needs_zeroed_dx ? 0 : poison_byte, dx_bytes);
  const problem p{dy.p, dx.p + guard_bytes, s.B, s.C, s.L, s.pad_left, s.pad_right, inst.type};
  why = inst.run(p, backend::cuda);
  if (!why.empty()) return why;
  if (reference_device(problem{dy.p, ref.p, s.B, s.C, s.L, s.pad_left, s.pad_right, inst.type}, nullptr, &why) != status::ok)
    return why;
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) return cudaGetErrorString(e);
  const auto got = thrust::device_pointer_cast(dx.p + guard_bytes), want = thrust::device_pointer_cast(ref.p);
  const auto [g, w] = thrust::mismatch(thrust::device, got, got + dx_bytes, want);
  if (g != got + dx_bytes) return "first differing byte of dx: " + std::to_string(g - got);
  unsigned char guards[2 * guard_bytes];
  cudaMemcpy(guards, dx.p, guard_bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(guards + guard_bytes, dx.p + guard_bytes + dx_bytes, guard_bytes, cudaMemcpyDeviceToHost);
  for (unsigned char b : guards)
    if (b != guard_byte) return "a guard byte around dx was overwritten";
  if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return cudaGetErrorString(e);
  return "";
}

/// One instantiation per (variant, dtype): BLOCK_OL 1024 where there is one (the 16-byte one of the
/// chunked variants; seed and ewise move one element per access; rowelem's on 256 threads).
std::vector<std::string> one_per_variant_and_dtype() {
  std::vector<std::string> ids;
  for (const instantiation& i : registry())
    if (i.block_ol == 1024 && (i.variant == "seed" || i.variant == "ewise" || (i.variant == "rowelem" && i.threads == 256) ||
                               i.access_width == 16))
      ids.push_back(i.id);
  return ids;
}

class GpuLarge : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
  }
};

TEST_P(GpuLarge, MoreThan2To31Elements) {
  const instantiation* inst = find_instantiation(GetParam());
  ASSERT_NE(inst, nullptr);
  const shape s{2, 1, (std::int64_t(1) << 30) + 7, 3, 1};  // 2^31 + 14 elements of dx
  EXPECT_EQ(check_on_device(candidate_of(*inst), s), "") << inst->id << " on " << s.str();
}

TEST_P(GpuLarge, MoreThan65535Rows) {
  const instantiation* inst = find_instantiation(GetParam());
  ASSERT_NE(inst, nullptr);
  const shape s{4, 70001, 9, 2, 1};  // 280004 rows
  EXPECT_EQ(check_on_device(candidate_of(*inst), s), "") << inst->id << " on " << s.str();
}

INSTANTIATE_TEST_SUITE_P(OnePerVariantAndDtype, GpuLarge, ::testing::ValuesIn(one_per_variant_and_dtype()),
                         [](const auto& info) { return info.param; });

/// flat's direct grid at the largest problems it takes (plans.cuh: plan_flat_grid, rows * L up to
/// 2^31 - 1 less a block's 64 elements at bo64 f16, so every 32-bit index is near its limit): one
/// row of nearly 2^31 elements whose last block is cut, and nearly 2^31 elements in rows of 3.
TEST(GpuFlatDirectGrid, LargestProblemsMoreThan2To31BytesOfDx) {
  std::string why;
  if (!cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
  const instantiation* inst = find_instantiation("constant_pad1d_backward__f16__flat__bo64__t8__w16");
  ASSERT_NE(inst, nullptr);
  constexpr std::int64_t largest = 0x7fffffff - 64;  // 2^31 - 65 elements: 63 in the last block
  for (const shape& s : {shape{1, 1, largest, 1, 0}, shape{1, largest / 3, 3, 2, 1}})
    EXPECT_EQ(check_on_device(candidate_of(*inst), s), "") << inst->id << " on " << s.str();
}

/// JIT kernels, whose launch arguments are int32: the sizes fit, the element count does not.
class GpuLargeJit : public GpuLarge {};

TEST_P(GpuLargeJit, MoreThan2To31ElementsThroughInt32Arguments) {
  const shape s{2, 1, (std::int64_t(1) << 30) + 7, 3, 1};
  const jit::kernel k(dtype::f16, 3, 1, 1024, {GetParam()});
  EXPECT_EQ(check_on_device(candidate_of(k), s), "") << k.id() << " on " << s.str();
}

TEST_P(GpuLargeJit, MoreThan65535Rows) {
  const shape s{4, 70001, 9, 2, 1};
  const jit::kernel k(dtype::f32, 2, 1, 1024, {GetParam()});
  EXPECT_EQ(check_on_device(candidate_of(k), s), "") << k.id() << " on " << s.str();
}

INSTANTIATE_TEST_SUITE_P(EveryVariant, GpuLargeJit, ::testing::Values("seed", "rowtile", "flat", "flatvec", "ewise", "staged", "rowelem"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace padtune::test
