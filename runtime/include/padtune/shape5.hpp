#pragma once
/// A problem's shape as tables, caches and sizes files write it: [B, C, L, pad_left, pad_right].

namespace padtune {

/// The shape a measurement was made on.
struct shape5 {
  long long B = 0, C = 0, L = 0, pad_left = 0, pad_right = 0;
  bool operator==(const shape5&) const = default;
};

}  // namespace padtune
