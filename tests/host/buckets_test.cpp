// Size buckets: log2 of L and of the row count, the alignment class of pad_left*sizeof(T), the
// name and its parser.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "padtune/buckets.hpp"

namespace padtune {
namespace {

TEST(Buckets, LengthAndRowsAreFloorLog2) {
  EXPECT_EQ(bucket_of(0, 0, 0, dtype::f32).log2_L, 0);
  EXPECT_EQ(bucket_of(1, 1, 0, dtype::f32).log2_L, 0);
  EXPECT_EQ(bucket_of(1, 2, 0, dtype::f32).log2_L, 1);
  EXPECT_EQ(bucket_of(1, 8191, 0, dtype::f32).log2_L, 12);
  EXPECT_EQ(bucket_of(1, 8192, 0, dtype::f32).log2_L, 13);
  EXPECT_EQ(bucket_of(1, std::int64_t(1) << 40, 0, dtype::f32).log2_L, 40);
  EXPECT_EQ(bucket_of(1, std::numeric_limits<std::int64_t>::max(), 0, dtype::f32).log2_L, 62);

  EXPECT_EQ(bucket_of(0, 8, 0, dtype::f32).log2_rows, 0);
  EXPECT_EQ(bucket_of(1, 8, 0, dtype::f32).log2_rows, 0);
  EXPECT_EQ(bucket_of(1023, 8, 0, dtype::f32).log2_rows, 9);
  EXPECT_EQ(bucket_of(1024, 8, 0, dtype::f32).log2_rows, 10);
  EXPECT_EQ(bucket_of(std::int64_t(3) << 33, 8, 0, dtype::f32).log2_rows, 34);
}

TEST(Buckets, AlignmentIsTheLargestPowerOfTwoUpTo16DividingThePadBytes) {
  EXPECT_EQ(bucket_of(1, 8, 0, dtype::f32).align, 16);  // no offset: aligned
  EXPECT_EQ(bucket_of(1, 8, 4, dtype::f32).align, 16);
  EXPECT_EQ(bucket_of(1, 8, 3, dtype::f32).align, 4);
  EXPECT_EQ(bucket_of(1, 8, 2, dtype::f32).align, 8);
  EXPECT_EQ(bucket_of(1, 8, 1, dtype::f64).align, 8);
  EXPECT_EQ(bucket_of(1, 8, 2, dtype::f64).align, 16);
  EXPECT_EQ(bucket_of(1, 8, 1, dtype::f16).align, 2);
  EXPECT_EQ(bucket_of(1, 8, 3, dtype::bf16).align, 2);
  EXPECT_EQ(bucket_of(1, 8, 12, dtype::bf16).align, 8);
  EXPECT_EQ(bucket_of(1, 8, 1 << 20, dtype::f16).align, 16);
  // A negative pad (a crop) offsets the read by the same number of bytes.
  EXPECT_EQ(bucket_of(1, 8, -3, dtype::f32).align, 4);
  EXPECT_EQ(bucket_of(1, 8, -8, dtype::f16).align, 16);
}

TEST(Buckets, NameReadsLengthRowsAlignment) {
  EXPECT_EQ(bucket_of(1024, 8192, 3, dtype::f32).name(), "l13_r10_a4");
  EXPECT_EQ(bucket_of(0, 0, 0, dtype::f64).name(), "l0_r0_a16");
  EXPECT_EQ((bucket{62, 63, 1}).name(), "l62_r63_a1");
}

TEST(Buckets, ParseAcceptsEveryName) {
  for (int l : {0, 1, 13, 63})
    for (int r : {0, 7, 63})
      for (int a : {1, 2, 4, 8, 16}) {
        const bucket b{l, r, a};
        bucket parsed{-1, -1, -1};
        ASSERT_TRUE(parse_bucket(b.name(), parsed)) << b.name();
        EXPECT_EQ(parsed, b) << b.name();
      }
}

TEST(Buckets, ParseRejectsWhatIsNotABucketName) {
  for (const char* text : {"", "x", "l13", "l13_r10", "l13_r10_a", "l13_r10_a3", "l13_r10_a32", "l13_r10_a0",
                           "l13_r10_a4x", "l13_r10_a4_", "l13_r10_a4 ", "L13_r10_a4", "r10_l13_a4", "l-1_r10_a4",
                           "l13_r-1_a4", "l64_r10_a4", "l13_r64_a4", "l13_r10_a-4"}) {
    bucket out{7, 7, 8};
    EXPECT_FALSE(parse_bucket(text, out)) << "'" << text << "'";
    EXPECT_EQ(out, (bucket{7, 7, 8})) << "a failed parse changed its output for '" << text << "'";
  }
}

TEST(Buckets, NameOfEveryShapeParsesBack) {
  for (std::int64_t rows : {0, 1, 3, 1000, 1 << 20})
    for (std::int64_t L : {0, 1, 5, 4096, 1 << 25})
      for (std::int64_t pad : {-5, 0, 1, 2, 3, 8})
        for (dtype t : all_dtypes) {
          const bucket b = bucket_of(rows, L, pad, t);
          bucket parsed;
          ASSERT_TRUE(parse_bucket(b.name(), parsed)) << b.name();
          EXPECT_EQ(parsed, b);
        }
}

}  // namespace
}  // namespace padtune
