#include "hash.hpp"

#include <fmt/format.h>

namespace padtune::jit::detail {

fnv1a64& fnv1a64::add(std::string_view s) {
  for (const char c : s) h_ = (h_ ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  h_ = (h_ ^ 0xffu) * 0x100000001b3ull;
  return *this;
}

std::string fnv1a64::hex() const { return fmt::format("{:016x}", h_); }

}  // namespace padtune::jit::detail
