// The L2-cold protocol the tuner and first-use timing share (padtune/detail/l2_cold_timer.hpp): its
// flush is twice the L2, it evicts (a read that L2 held warm is slower after it), its event pairs
// time what runs between them, and a pair never started is refused. Without a usable GPU every
// test skips and says why.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "../support/checker.hpp"
#include "padtune/detail/l2_cold_timer.hpp"

namespace padtune::detail {
namespace {

class L2ColdTimer : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::string why;
    if (!test::cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), cudaSuccess);
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream_ = nullptr;
};

TEST_P(L2ColdTimer, FlushesTwiceTheL2AndACachedReadIsSlowerAfterIt) {
  int device = 0, l2 = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), cudaSuccess);
  l2_cold_timer timer(stream_, /*pooled=*/GetParam());
  ASSERT_EQ(timer.status(), cudaSuccess);
  ASSERT_TRUE(timer.flushes());
  EXPECT_EQ(timer.flush_bytes(), std::max<std::size_t>(2 * std::size_t(l2), 1 << 20));
  // A copy whose source and destination fit in L2 together, timed warm (right after itself) and
  // cold (right after the flush), alternately: the cold median is the slower.
  const std::size_t bytes = std::max<std::size_t>(std::size_t(l2) / 4, 1 << 20);
  void *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaMalloc(&src, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
  ASSERT_EQ(cudaMemsetAsync(src, 0x3C, bytes, stream_), cudaSuccess);
  std::vector<double> warm, cold;
  for (int r = 0; r < 21; ++r)
    for (bool flushed : {false, true}) {
      if (flushed) ASSERT_EQ(timer.flush(static_cast<unsigned char>(r)), cudaSuccess);
      else ASSERT_EQ(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), cudaSuccess);  // warms L2
      ASSERT_EQ(timer.start(0), cudaSuccess);
      ASSERT_EQ(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), cudaSuccess);
      ASSERT_EQ(timer.stop(0), cudaSuccess);
      ASSERT_EQ(timer.wait(0), cudaSuccess);
      double us = 0;
      ASSERT_EQ(timer.elapsed_us(0, us), cudaSuccess);
      EXPECT_GT(us, 0.0);
      (flushed ? cold : warm).push_back(us);
    }
  std::sort(warm.begin(), warm.end());
  std::sort(cold.begin(), cold.end());
  EXPECT_GT(cold[cold.size() / 2], warm[warm.size() / 2]) << "the flush did not evict the copy's bytes";
  cudaFree(src);
  cudaFree(dst);
}

TEST_P(L2ColdTimer, APairNeverStartedIsRefused) {
  l2_cold_timer timer(stream_, GetParam());
  ASSERT_EQ(timer.status(), cudaSuccess);
  double us = -1;
  EXPECT_EQ(timer.stop(3), cudaErrorInvalidValue);
  EXPECT_EQ(timer.wait(3), cudaErrorInvalidValue);
  EXPECT_EQ(timer.elapsed_us(3, us), cudaErrorInvalidValue);
  ASSERT_EQ(timer.start(3), cudaSuccess);  // makes pairs 0-3
  ASSERT_EQ(timer.stop(3), cudaSuccess);
  ASSERT_EQ(timer.wait(3), cudaSuccess);
  EXPECT_EQ(timer.elapsed_us(3, us), cudaSuccess);
  EXPECT_GE(us, 0.0);
}

INSTANTIATE_TEST_SUITE_P(PooledAndNot, L2ColdTimer, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) { return p.param ? "pooled" : "cudaMalloc"; });

}  // namespace
}  // namespace padtune::detail
