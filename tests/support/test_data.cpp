#include "test_data.hpp"

#include <cstring>

namespace padtune::test {

random_source::random_source() : seed((std::uint64_t(std::random_device{}()) << 32) | std::random_device{}()), gen(seed) {}

namespace {

std::vector<std::uint64_t> special_values(dtype type) {
  switch (type) {
    case dtype::f32: return {0x80000000u, 0x7FC00123u, 0x7F800456u, 0xFFC00001u, 0x7F800000u, 0x00000001u, 0x807FFFFFu};
    case dtype::f64:
      return {0x8000000000000000u, 0x7FF8000000000ABCu, 0x7FF0000000000DEFu, 0xFFF8000000000001u,
              0x7FF0000000000000u, 0x0000000000000001u};
    case dtype::f16: return {0x8000u, 0x7E01u, 0x7C02u, 0xFE03u, 0x7C00u, 0x0001u, 0x83FFu};
    case dtype::bf16: return {0x8000u, 0x7FC1u, 0x7F82u, 0xFFC3u, 0x7F80u, 0x0001u, 0x807Fu};
  }
  return {};
}

}  // namespace

std::vector<unsigned char> random_elements(dtype type, std::size_t n, std::mt19937_64& gen) {
  const std::size_t S = size_of(type);
  std::vector<unsigned char> out(n * S);
  for (std::size_t i = 0; i + 8 <= out.size(); i += 8) {
    const std::uint64_t r = gen();
    std::memcpy(&out[i], &r, 8);
  }
  for (std::size_t i = out.size() / 8 * 8; i < out.size(); ++i) out[i] = static_cast<unsigned char>(gen());
  const std::vector<std::uint64_t> specials = special_values(type);
  for (std::size_t e = 0; e < n; ++e) {
    unsigned char* p = &out[e * S];
    if (gen() % 16 == 0) {  // about one element in 16 is special
      const std::uint64_t v = specials[gen() % specials.size()];
      std::memcpy(p, &v, S);  // little-endian: the low S bytes
    }
    bool zero = true;
    for (std::size_t b = 0; b < S; ++b) zero = zero && p[b] == 0;
    if (zero) p[0] = 1;  // +0 would hide an element that was never written
  }
  return out;
}

}  // namespace padtune::test
