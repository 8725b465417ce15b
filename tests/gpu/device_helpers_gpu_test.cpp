// The tuner's device comparison (tuner/measure/src/device_helpers.cu): the first differing byte wherever it
// lies (the bytes before the 16-byte words, the words, the bytes after), for buffers of the same
// alignment and of different alignments, several differences at once, no difference, no bytes.
// Without a usable GPU every test skips and says why.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../support/checker.hpp"
#include "padtune/measure/device_helpers.hpp"

namespace padtune::tuner {
namespace {

class DeviceCompare : public ::testing::Test {
 protected:
  static constexpr std::size_t capacity = (std::size_t(1) << 24) + 64;

  void SetUp() override {
    std::string why;
    if (!test::cuda_device_available(&why)) GTEST_SKIP() << "no usable CUDA device, GPU test skipped: " << why;
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&a_), capacity), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&b_), capacity), cudaSuccess);
    ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&answer_), sizeof *answer_), cudaSuccess);
  }
  void TearDown() override {
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(answer_);
  }

  /// first_difference of x placed at a + off_a and y at b + off_b.
  std::int64_t compare(const std::vector<unsigned char>& x, const std::vector<unsigned char>& y, std::size_t off_a,
                       std::size_t off_b) {
    EXPECT_EQ(cudaMemcpy(a_ + off_a, x.data(), x.size(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaMemcpy(b_ + off_b, y.data(), y.size(), cudaMemcpyHostToDevice), cudaSuccess);
    std::int64_t at = -7;
    EXPECT_EQ(first_difference(a_ + off_a, b_ + off_b, x.size(), answer_, &at), cudaSuccess);
    return at;
  }

  std::vector<unsigned char> random_bytes(std::size_t n) {
    std::vector<unsigned char> v(n);
    for (auto& c : v) c = static_cast<unsigned char>(gen_());
    return v;
  }

  unsigned char* a_ = nullptr;
  unsigned char* b_ = nullptr;
  unsigned long long* answer_ = nullptr;
  std::mt19937 gen_{std::random_device{}()};
};

TEST_F(DeviceCompare, FindsTheFirstDifferenceAnywhere) {
  const std::pair<std::size_t, std::size_t> offsets[] = {{0, 0}, {1, 1}, {5, 21}, {0, 3}, {7, 2}, {15, 0}};
  for (const std::size_t n : {std::size_t(1), std::size_t(15), std::size_t(16), std::size_t(17), std::size_t(100),
                              std::size_t(4103), std::size_t(1) << 24})
    for (const auto& [off_a, off_b] : offsets) {
      const std::vector<unsigned char> x = random_bytes(n);
      std::vector<unsigned char> y = x;
      EXPECT_EQ(compare(x, y, off_a, off_b), -1) << n << " bytes at +" << off_a << ", +" << off_b;
      // The first and last bytes, the ends of the first and last 16-byte words either side, the middle.
      for (const std::size_t at : {std::size_t(0), std::size_t(1), std::size_t(14), std::size_t(15), std::size_t(16),
                                   std::size_t(17), n / 2, n - 17, n - 16, n - 2, n - 1}) {
        if (at >= n) continue;
        y = x;
        y[at] ^= static_cast<unsigned char>(1u << (at % 8));
        EXPECT_EQ(compare(x, y, off_a, off_b), std::int64_t(at)) << n << " bytes at +" << off_a << ", +" << off_b;
        if (at + 3 < n) {  // a later difference too: the first one is said
          y[n - 1] ^= 0x80;
          y[at + 3] ^= 0x40;
          EXPECT_EQ(compare(x, y, off_a, off_b), std::int64_t(at)) << n << " bytes, two differences";
        }
      }
    }
}

TEST_F(DeviceCompare, NoBytesNoDifference) {
  std::int64_t at = -7;
  ASSERT_EQ(first_difference(a_, b_, 0, answer_, &at), cudaSuccess);
  EXPECT_EQ(at, -1);
}

}  // namespace
}  // namespace padtune::tuner
