// JIT kernels on the device: every variant and dtype over the edge suite against the device
// reference (a kernel compiled for each shape's pads), the seed's own test through the typed
// launch tuple, and the compile and cached-load times. Without a usable GPU every test skips.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <vector>

#include "../support/checker.hpp"
#include "../support/jit_candidate.hpp"
#include "padtune/jit/constant_pad1d_backward.hpp"

namespace padtune::test {
namespace {

namespace fs = std::filesystem;

class GpuJit : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
  }
};

/// (variant, dtype, BLOCK_OL): the seed with its own BLOCK_OL 16 and with a registry tile; the
/// others with a registry tile, and with 16 where the variant accepts it for the dtype.
struct jit_case {
  std::string_view variant;
  dtype type;
  int block_ol;
};

std::vector<jit_case> jit_cases() {
  std::vector<jit_case> cases;
  for (const std::string_view v : jit::jit_variants())
    for (const dtype t : all_dtypes)
      for (const int block_ol : {16, 1024}) {
        try {
          jit::kernel(t, 0, 0, block_ol, {std::string(v)});
          cases.push_back({v, t, block_ol});
        } catch (const error&) {  // e.g. rowtile f16 with a 16-element tile: not a kernel of the family
        }
      }
  return cases;
}

class GpuJitEdgeSuite : public GpuJit, public ::testing::WithParamInterface<jit_case> {};

TEST_P(GpuJitEdgeSuite, MatchesReference) {
  const jit_case c = GetParam();
  const auto make = [&](const shape& s) {
    return candidate_of(
        jit::kernel(c.type, std::int32_t(s.pad_left), std::int32_t(s.pad_right), c.block_ol, {std::string(c.variant)})
            .with_fill(fill_of(s, c.type)));
  };
  for (const std::string& failure : check_edge_suite(make, backend::cuda, 8, pad_range::int32)) ADD_FAILURE() << failure;
}

INSTANTIATE_TEST_SUITE_P(Family, GpuJitEdgeSuite, ::testing::ValuesIn(jit_cases()), [](const auto& info) {
  return std::string(info.param.variant) + "_" + std::string(name_of(info.param.type)) + "_bo" +
         std::to_string(info.param.block_ol);
});

/// The seed's own test: B 2, C 4, L 8, pad_left 2, pad_right 3, BLOCK_OL 16, launched with the tuple.
template <class D>
void run_seed_test() {
  constexpr std::int32_t B = 2, C = 4, L = 8, pl = 2, pr = 3, OL = pl + L + pr;
  const ConstantPad1dBackward<D> k(pl, pr, 16);
  const jit::loaded_kernel g(k, test_jit_options());
  std::vector<std::uint16_t> bits(std::size_t(B * C * OL) * sizeof(D) / 2);
  for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = std::uint16_t(0x3c00 + i);  // non-zero, distinct
  const std::size_t dy_bytes = bits.size() * 2, dx_bytes = std::size_t(B * C * L) * sizeof(D);
  void *dy = nullptr, *dx = nullptr;
  ASSERT_EQ(cudaMalloc(&dy, dy_bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dx, dx_bytes), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(dy, bits.data(), dy_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(dx, 0, dx_bytes), cudaSuccess);  // the seed writes only positions with a source
  g.launch(typename ConstantPad1dBackward<D>::launch_args{static_cast<D*>(dy), static_cast<D*>(dx), B, C, L, OL});
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<unsigned char> got(dx_bytes);
  ASSERT_EQ(cudaMemcpy(got.data(), dx, dx_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(dy);
  cudaFree(dx);
  const auto* src = reinterpret_cast<const unsigned char*>(bits.data());
  for (std::int32_t row = 0; row < B * C; ++row)
    for (std::int32_t i = 0; i < L; ++i)
      ASSERT_EQ(std::memcmp(&got[std::size_t(row * L + i) * sizeof(D)], src + std::size_t(row * OL + i + pl) * sizeof(D),
                            sizeof(D)),
                0)
          << k.id() << " row " << row << " i " << i;
}

TEST_F(GpuJit, SeedsOwnTest) {
  run_seed_test<float>();
  run_seed_test<double>();
  run_seed_test<__half>();
  run_seed_test<__nv_bfloat16>();
}

TEST_F(GpuJit, LaunchRefusesArgumentsThatDisagreeWithTheConstants) {
  const ConstantPad1dBackward<float> k(2, 3, 16);
  const jit::loaded_kernel g(k, test_jit_options());
  void *dy = nullptr, *dx = nullptr;
  ASSERT_EQ(cudaMalloc(&dy, 1024), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dx, 1024), cudaSuccess);
  EXPECT_NO_THROW(g.launch(dy, dx, 1, 1, 8, 13));
  try {
    g.launch(dy, dx, 1, 1, 8, 12);
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), status::shape_mismatch) << e.what();
  }
  std::string why;
  EXPECT_EQ(g.launch(problem{dy, dx, 1, 1, 8, 2, 4, dtype::f32}, nullptr, &why), status::shape_mismatch);
  EXPECT_EQ(g.launch(problem{dy, dx, 1, 1, 8, 2, 3, dtype::f32}, nullptr, &why), status::ok) << why;
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(dy);
  cudaFree(dx);
}

/// Figures for the note: NVRTC compile (cache cold), cached compile, and load, per kernel.
TEST_F(GpuJit, PrintsCompileAndCachedLoadTimes) {
  const fs::path dir = test_jit_options().cache_dir / "timing";
  fs::remove_all(dir);
  jit::compile_options opts;
  opts.cache_dir = dir;
  const jit::kernel kernels[] = {ConstantPad1dBackward<float>(2, 3, 16), ConstantPad1dBackward<float>(2, 3, 1024, {"rowtile"}),
                                 ConstantPad1dBackward<__nv_bfloat16>(2, 3, 1024, {"flatvec"})};
  void *dy = nullptr, *dx = nullptr;
  ASSERT_EQ(cudaMalloc(&dy, 1024), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dx, 1024), cudaSuccess);
  for (const jit::kernel& k : kernels) {
    const jit::loaded_kernel cold(k, opts);
    const jit::loaded_kernel warm(k, opts);
    EXPECT_EQ(cold.compilation().cache, jit::cache_outcome::miss);
    EXPECT_TRUE(warm.compilation().from_cache());
    EXPECT_GT(warm.resident_blocks(), 0u);
    // Loading may be lazy (CUDA_MODULE_LOADING): the first launch can finish the job.
    const auto start = std::chrono::steady_clock::now();
    warm.launch(dy, dx, 1, 1, 8, 13);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const double first_launch = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "JIT timing " << k.id() << " (" << warm.compilation().arch << ", NVRTC "
              << warm.compilation().nvrtc_version << "): compile " << cold.compilation().seconds * 1e3
              << " ms + load " << cold.load_seconds() * 1e3 << " ms; cached " << warm.compilation().seconds * 1e3
              << " ms + load " << warm.load_seconds() * 1e3 << " ms + first launch " << first_launch * 1e3 << " ms; grid cap " << warm.resident_blocks()
              << " blocks\n";
  }
  cudaFree(dy);
  cudaFree(dx);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace padtune::test
