// Each bad input gets its own status and a message that names the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "padtune/problem.hpp"
#include "padtune/reference.hpp"
#include "padtune/registry.hpp"

namespace padtune {

void PrintTo(status s, std::ostream* os) { *os << name_of(s); }

namespace {

struct buffers {
  alignas(16) unsigned char dy[1024];
  alignas(16) unsigned char dx[1024];
};

problem good(buffers& b) { return problem{b.dy, b.dx, 2, 3, 4, 1, 2, dtype::f32}; }

void expect_rejected(const problem& p, status code, const std::string& needle) {
  std::string why;
  EXPECT_EQ(check(p, &why), code) << why;
  EXPECT_NE(why.find(needle), std::string::npos) << "message '" << why << "' does not mention '" << needle << "'";
  try {
    validate(p);
    ADD_FAILURE() << "validate() accepted a bad problem";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code);
    EXPECT_EQ(std::string(e.what()), why);
  }
  // Every entry point goes through the same check.
  EXPECT_EQ(launch(registry().front(), backend::host, p), code);
  EXPECT_EQ(reference_host(p), code);
}

TEST(Validation, AcceptsAGoodProblem) {
  buffers b;
  problem_sizes z;
  ASSERT_EQ(check(good(b), nullptr, &z), status::ok);
  EXPECT_EQ(z.OL, 7);
  EXPECT_EQ(z.rows, 6);
  EXPECT_EQ(z.dx_elems, 24);
  EXPECT_EQ(z.dy_elems, 42);
  EXPECT_EQ(z.payload_bytes(), 2 * 24 * 4);
}

TEST(Validation, NegativeSizes) {
  buffers b;
  problem p = good(b);
  p.B = -1;
  expect_rejected(p, status::negative_size, "B must be >= 0");
  p = good(b), p.C = -2;
  expect_rejected(p, status::negative_size, "C must be >= 0");
  p = good(b), p.L = -3;
  expect_rejected(p, status::negative_size, "L must be >= 0");
}

TEST(Validation, NegativeOutputLength) {
  buffers b;
  problem p = good(b);
  p.pad_left = -3, p.pad_right = -2;  // OL = -3 + 4 - 2 = -1
  expect_rejected(p, status::negative_output_length, "= -1 is negative");
}

TEST(Validation, OverflowingByteCounts) {
  buffers b;
  problem p = good(b);
  p.B = p.C = std::int64_t(1) << 31, p.L = std::int64_t(1) << 31;
  expect_rejected(p, status::size_overflow, "overflows");
  p = good(b), p.L = std::numeric_limits<std::int64_t>::max(), p.pad_left = 1;
  expect_rejected(p, status::size_overflow, "overflows");
  p = good(b), p.B = 1, p.C = 1, p.L = std::int64_t(1) << 61, p.pad_left = 0, p.pad_right = 0;
  p.type = dtype::f64;  // 2^61 elements of 8 bytes
  expect_rejected(p, status::size_overflow, "overflows");
}

TEST(Validation, NullPointers) {
  buffers b;
  problem p = good(b);
  p.dy = nullptr;
  expect_rejected(p, status::null_pointer, "dy is null");
  p = good(b), p.dx = nullptr;
  expect_rejected(p, status::null_pointer, "dx is null");
}

TEST(Validation, OverlappingBuffers) {
  buffers b;
  problem p = good(b);
  p.dx = b.dy + 8;
  expect_rejected(p, status::overlapping_buffers, "overlap");
  p.dx = b.dy;  // in place
  expect_rejected(p, status::overlapping_buffers, "overlap");
}

TEST(Validation, MisalignedPointers) {
  buffers b;
  problem p = good(b);
  p.dy = b.dy + 2;
  expect_rejected(p, status::misaligned_pointer, "dy = ");
  p = good(b), p.dx = b.dx + 1;
  expect_rejected(p, status::misaligned_pointer, "dx = ");
  p = good(b), p.type = dtype::f64, p.dx = b.dx + 4;
  expect_rejected(p, status::misaligned_pointer, "aligned to 8 bytes for f64");
}

TEST(Validation, UnknownDtype) {
  buffers b;
  problem p = good(b);
  p.type = static_cast<dtype>(42);
  expect_rejected(p, status::unknown_dtype, "unknown dtype (value 42)");
}

TEST(Validation, EmptyProblemsAreNoOps) {
  for (const problem& p : {problem{nullptr, nullptr, 0, 3, 3, 1, 2, dtype::f32}, problem{nullptr, nullptr, 3, 5, 0, 1, 1, dtype::f16},
                          problem{nullptr, nullptr, 2, 0, 9, 0, 0, dtype::f64}}) {
    EXPECT_EQ(check(p), status::ok);
    for (const instantiation& i : registry()) {
      if (i.type != p.type) continue;
      EXPECT_EQ(launch(i, backend::host, p), status::ok) << i.id;
    }
    EXPECT_EQ(reference_host(p), status::ok);
  }
}

TEST(Validation, OutputLengthZeroNeedsNoSource) {
  // pad_left = -5 crops the whole row: dx is all zeros and dy holds nothing, so dy may be null.
  alignas(16) float dx[5] = {1, 2, 3, 4, 5};
  const problem p{nullptr, dx, 1, 1, 5, -5, 0, dtype::f32};
  ASSERT_EQ(reference_host(p), status::ok);
  for (float v : dx) EXPECT_EQ(v, 0.0f);
}

TEST(Validation, LaunchRejectsAnotherDtype) {
  buffers b;
  const instantiation& f32 = registry().front();
  ASSERT_EQ(f32.type, dtype::f32);
  problem p = good(b);
  p.type = dtype::f16;
  std::string why;
  EXPECT_EQ(launch(f32, backend::host, p, nullptr, &why), status::dtype_mismatch);
  EXPECT_NE(why.find("takes dtype f32"), std::string::npos) << why;
}

TEST(Validation, FillBitsBeyondTheElement) {
  buffers b;
  problem p = good(b);
  p.fill = 0x1'0000'0000u;  // 33 bits for a 4-byte element
  expect_rejected(p, status::invalid_fill, "fill 0x100000000 has bits beyond a 4-byte f32 element");
  p.type = dtype::bf16, p.fill = 0x1'0000u;
  expect_rejected(p, status::invalid_fill, "beyond a 2-byte bf16 element");
  p.type = dtype::f64, p.fill = ~std::uint64_t(0);  // any 64 bits are an f64
  EXPECT_EQ(check(p), status::ok);
}

TEST(FillBits, AsPyTorchConvertsAScalar) {
  const auto bits = [](double v, dtype t) {
    std::uint64_t b = 0xdead;
    std::string why;
    EXPECT_EQ(fill_bits(v, t, &b, &why), status::ok) << v << " " << name_of(t) << ": " << why;
    return b;
  };
  EXPECT_EQ(bits(1.5, dtype::f32), 0x3fc00000u);
  EXPECT_EQ(bits(-0.0, dtype::f32), 0x80000000u);
  EXPECT_EQ(bits(1.0 / 3, dtype::f64), 0x3fd5555555555555u);
  EXPECT_EQ(bits(1.5, dtype::f16), 0x3e00u);
  EXPECT_EQ(bits(65504, dtype::f16), 0x7bffu);                 // f16's largest
  EXPECT_EQ(bits(0x1p-24, dtype::f16), 0x0001u);               // the smallest subnormal
  EXPECT_EQ(bits(0x1p-25, dtype::f16), 0x0000u);               // half of it: a tie, to even
  EXPECT_EQ(bits(3 * 0x1p-25, dtype::f16), 0x0002u);           // 1.5 of it: a tie, to even
  EXPECT_EQ(bits(0x1p-14 - 0x1p-25, dtype::f16), 0x0400u);     // rounds up into the normals
  EXPECT_EQ(bits(1 + 0x1p-11, dtype::f16), 0x3c00u);           // a tie at the last bit, to even
  EXPECT_EQ(bits(1 + 3 * 0x1p-11, dtype::f16), 0x3c02u);
  EXPECT_EQ(bits(-INFINITY, dtype::f16), 0xfc00u);
  EXPECT_EQ(bits(NAN, dtype::f16), 0x7e00u);
  EXPECT_EQ(bits(-NAN, dtype::f16), 0xfe00u);
  EXPECT_EQ(bits(1.0 / 3, dtype::bf16), 0x3eabu);
  EXPECT_EQ(bits(1 + 0x1p-8, dtype::bf16), 0x3f80u);           // a tie, to even
  EXPECT_EQ(bits(1 + 3 * 0x1p-8, dtype::bf16), 0x3f82u);
  EXPECT_EQ(bits(-NAN, dtype::bf16), 0x7fc0u);                 // c10::BFloat16 drops the sign
  // Through float first, as PyTorch: this double rounds to float 1 + 2^-11 (a tie in f16), then to even.
  EXPECT_EQ(bits(1 + 0x1p-11 + 0x1p-40, dtype::f16), 0x3c00u);
}

TEST(FillBits, RefusesWhatTheDtypeOverflows) {
  std::uint64_t b = 0;
  std::string why;
  EXPECT_EQ(fill_bits(65505, dtype::f16, &b, &why), status::invalid_fill);  // PyTorch refuses past the largest
  EXPECT_NE(why.find("overflows f16"), std::string::npos) << why;
  EXPECT_EQ(fill_bits(-1e39, dtype::bf16, &b, &why), status::invalid_fill);
  EXPECT_EQ(fill_bits(1e39, dtype::f32, &b, &why), status::invalid_fill);
  EXPECT_EQ(fill_bits(1e300, dtype::f64, &b, &why), status::ok);
  EXPECT_EQ(fill_bits(INFINITY, dtype::f16, &b, &why), status::ok);
  EXPECT_EQ(fill_bits(1, static_cast<dtype>(9), &b, &why), status::unknown_dtype);
}

}  // namespace
}  // namespace padtune
