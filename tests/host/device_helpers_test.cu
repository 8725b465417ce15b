// Helpers every kernel uses: the multiply-shift division, the register realignment and unaligned loads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bits.cuh"
#include "divmod.cuh"
#include "flat.cuh"
#include "pad_args.cuh"
#include "plans.cuh"

namespace padtune::detail {
namespace {

void expect_exact(std::uint64_t d, std::uint64_t n) {
  const fast_divmod f(d);
  std::uint64_t q, r;
  f.divmod(n, q, r);
  ASSERT_EQ(q, n / d) << n << " / " << d;
  ASSERT_EQ(r, n % d) << n << " % " << d;
}

/// The device builds its magic numbers without 128-bit arithmetic (a JIT kernel plans on the device):
/// div_shifted_64 must give the host's numbers for every divisor, below 2^32 and above.
TEST(FastDivmod, DeviceMagicEqualsHostMagic) {
  std::mt19937_64 gen(std::random_device{}());
  std::vector<std::uint64_t> divisors = {2, 3, 7, 1000, 65537, (std::uint64_t(1) << 32) - 1, std::uint64_t(1) << 32,
                                         (std::uint64_t(1) << 32) + 1, std::uint64_t(1) << 62, std::uint64_t(1) << 63};
  for (int k = 0; k < 100000; ++k) divisors.push_back(std::max<std::uint64_t>(2, gen() >> (1 + gen() % 63)));
  for (const std::uint64_t d : divisors) {
    const fast_divmod f(d);
    const std::uint64_t r = (std::uint64_t(1) << f.shift) - d;
    ASSERT_EQ(div_shifted_64(r, d) + 1, f.magic) << d;
    ASSERT_EQ(f.shift, unsigned(64 - __builtin_clzll(d - 1))) << d;  // the device's ceil(log2 d)
  }
}

TEST(FastDivmod, SmallDivisorsAndDividends) {
  for (std::uint64_t d = 1; d < 300; ++d)
    for (std::uint64_t n = 0; n < 3000; ++n) expect_exact(d, n);
}

TEST(FastDivmod, EdgesOfTheRange) {
  const std::uint64_t top = (std::uint64_t(1) << 63) - 1;
  for (std::uint64_t d : {std::uint64_t(1), std::uint64_t(2), std::uint64_t(3), std::uint64_t(7), std::uint64_t(1000),
                          std::uint64_t(65535), std::uint64_t(65537), std::uint64_t(1) << 31, (std::uint64_t(1) << 32) + 1,
                          std::uint64_t(1) << 62, top})
    for (std::uint64_t n : {std::uint64_t(0), d - 1, d, d + 1, 2 * d - 1, top, top - 1, top / d * d, top / d * d - 1})
      expect_exact(d, n);
}

TEST(FastDivmod, RandomPairs) {
  std::mt19937_64 gen(std::random_device{}());
  for (int k = 0; k < 200000; ++k) {
    const std::uint64_t d = (gen() >> (1 + gen() % 63)) | 1u;  // below 2^63, the documented range
    const std::uint64_t n = gen() >> 1;
    expect_exact(std::max<std::uint64_t>(1, d >> (k & 1)), n);  // odd and even divisors
    if (HasFatalFailure()) return;
  }
}

template <int W>
void expect_realign_matches_bytes() {
  unsigned char bytes[2 * W];
  for (int i = 0; i < 2 * W; ++i) bytes[i] = static_cast<unsigned char>(0x11 * (i + 1));
  vec<W> a, b;
  std::memcpy(&a, bytes, W);
  std::memcpy(&b, bytes + W, W);
  for (unsigned shift = 0; shift < unsigned(W); ++shift) {
    const vec<W> r = realign(a, b, shift);
    EXPECT_EQ(std::memcmp(&r, bytes + shift, W), 0) << "W " << W << " shift " << shift;
  }
}

TEST(Realign, EveryByteShiftOfEveryWidth) {
  expect_realign_matches_bytes<4>();
  expect_realign_matches_bytes<8>();
  expect_realign_matches_bytes<16>();
}

/// load(address) at every step-th byte shift from W-alignment returns the W bytes at the address.
template <int W, class Load>
void expect_load_matches_bytes(Load load, unsigned step, const std::string& what) {
  alignas(16) unsigned char bytes[3 * 16];
  for (int i = 0; i < 3 * W; ++i) bytes[i] = static_cast<unsigned char>(0x5B * (i + 3));
  for (unsigned shift = 0; shift < unsigned(W); shift += step) {
    const vec<W> r = load(bytes + W + shift);
    EXPECT_EQ(std::memcmp(&r, bytes + W + shift, W), 0) << what << ": W " << W << " shift " << shift;
  }
}

/// load_source at every shift its piece allows (every shift for 0).
template <int W>
void expect_source_load_matches_bytes(int piece) {
  expect_load_matches_bytes<W>([piece](const byte* p) { return load_source<W>(p, piece); }, piece ? unsigned(piece) : 1u,
                               "load_source, piece " + std::to_string(piece));
}

TEST(LoadSource, EveryShiftOfEveryPiece) {
  for (int piece : {0, 4, 8}) expect_source_load_matches_bytes<16>(piece);
  for (int piece : {0, 4}) expect_source_load_matches_bytes<8>(piece);
  expect_source_load_matches_bytes<4>(0);
}

/// source_piece: the piece every chunk's source address allows, from the pointers, pad_left and
/// the pads' sum (how far a row moves the source from its chunk).
TEST(SourcePiece, FromThePadsAndPointers) {
  alignas(16) static unsigned char dy[4096], dx[4096];
  const auto piece = [&](int dy_off, std::int64_t L, std::int64_t pl, std::int64_t pr, int elem, int w) {
    return source_piece(make_pad_args(dy + dy_off, dx, 4, L, pl, pr, elem), elem, w);
  };
  EXPECT_EQ(piece(0, 64, 4, 4, 2, 16), 8);  // P2 16-bit: 8 bytes off, rows of 16-byte multiples
  EXPECT_EQ(piece(0, 64, 2, 2, 2, 16), 4);
  EXPECT_EQ(piece(0, 64, 8, 8, 2, 16), 0);  // aligned everywhere: one load a chunk
  EXPECT_EQ(piece(0, 8, 2, 3, 2, 16), 0);   // P6 16-bit: the shift changes from row to row
  EXPECT_EQ(piece(0, 64, 3, 5, 4, 16), 4);  // P1 f32: 12 bytes off
  EXPECT_EQ(piece(2, 64, 4, 4, 2, 16), 0);  // dy off by one element
  EXPECT_EQ(piece(0, 64, 2, 2, 2, 8), 4);
  EXPECT_EQ(piece(0, 64, -2, 6, 2, 16), 4);  // a negative pad_left
}

/// load_unaligned: one aligned load at shift 0, else two realigned.
TEST(LoadUnaligned, EveryByteShiftOfEveryWidth) {
  expect_load_matches_bytes<4>([](const byte* p) { return load_unaligned<4>(p); }, 1, "load_unaligned");
  expect_load_matches_bytes<8>([](const byte* p) { return load_unaligned<8>(p); }, 1, "load_unaligned");
  expect_load_matches_bytes<16>([](const byte* p) { return load_unaligned<16>(p); }, 1, "load_unaligned");
}

}  // namespace
}  // namespace padtune::detail
