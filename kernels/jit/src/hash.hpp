#pragma once
// FNV-1a, 64 bits: the content hash of JIT sources and the checksum of cache entries. Not a
// defence against a crafted collision: a cache hit is also checked against the stored source.
#include <cstdint>
#include <string>
#include <string_view>

namespace padtune::jit::detail {

class fnv1a64 {
 public:
  /// Adds the bytes of `s`, then a separator byte, so that ("ab", "c") and ("a", "bc") differ.
  fnv1a64& add(std::string_view s);
  std::uint64_t value() const { return h_; }
  /// 16 lower-case hex digits.
  std::string hex() const;

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace padtune::jit::detail
