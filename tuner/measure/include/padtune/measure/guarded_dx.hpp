#pragma once
// dx inside a device buffer with guard bytes on both sides, so a write outside dx is caught: the
// verification of the tuner's CUDA workspace and of the benchmarks.
#include <cstddef>
#include <string>

namespace padtune::tuner {

class guarded_dx {
 public:
  static constexpr std::size_t guard_bytes = 256;

  /// Allocates bytes + 2 * guard_bytes of device memory; throws std::runtime_error if it cannot.
  explicit guarded_dx(std::size_t bytes);
  ~guarded_dx();
  guarded_dx(const guarded_dx&) = delete;
  guarded_dx& operator=(const guarded_dx&) = delete;

  void* get() const { return static_cast<unsigned char*>(buffer_) + guard_bytes; }
  std::size_t bytes() const { return bytes_; }

  /// Writes the guard bytes and fills dx with `fill` (the poison, or 0 for a kernel that needs a
  /// zeroed dx). Synchronous.
  void prepare(unsigned char fill);
  /// "" if dx equals `reference` (device memory) byte for byte and every guard byte is intact,
  /// else what is wrong. Synchronizes; throws std::runtime_error on a CUDA error.
  std::string compare(const void* reference) const;

 private:
  void* buffer_ = nullptr;
  unsigned long long* answer_ = nullptr;  ///< the comparison's device word
  std::size_t bytes_ = 0;
};

}  // namespace padtune::tuner
