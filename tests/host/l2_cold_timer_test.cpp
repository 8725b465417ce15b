// The shared L2-cold timer where no GPU is usable: it says why, flushes nothing and is destroyed
// without a fault (first-use timing then throws the reason; the tuner's timer refuses to time).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "../support/checker.hpp"
#include "padtune/detail/l2_cold_timer.hpp"

namespace padtune::detail {
namespace {

TEST(L2ColdTimer, WithoutADeviceSaysWhyAndFlushesNothing) {
  std::string why;
  if (test::cuda_device_available(&why)) GTEST_SKIP() << "a usable CUDA device is here: the GPU tests cover the timer";
  for (bool pooled : {false, true}) {
    const l2_cold_timer timer(nullptr, pooled);
    EXPECT_NE(timer.status(), cudaSuccess);
    EXPECT_FALSE(timer.flushes());
    EXPECT_EQ(timer.flush_bytes(), 0u);
  }
}

}  // namespace
}  // namespace padtune::detail
