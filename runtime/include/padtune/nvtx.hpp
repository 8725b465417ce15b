#pragma once
/// NVTX ranges in the "padtune" domain, named by strings registered once, so Nsight Compute and
/// Nsight Systems find every launch by its instantiation id (`ncu --nvtx --nvtx-include
/// "padtune@<id>/"`). With no tool attached a range costs a few nanoseconds.
#include <string>

#include "padtune/registry.hpp"

namespace padtune {

/// A range open for the object's lifetime.
class nvtx_range {
 public:
  /// Named by the instantiation's id; the registered string is cached per registry entry.
  explicit nvtx_range(const instantiation& inst);
  /// Named by any string (a peer, the memcpy floor); registered once per distinct name.
  explicit nvtx_range(const std::string& name);
  ~nvtx_range();
  nvtx_range(const nvtx_range&) = delete;
  nvtx_range& operator=(const nvtx_range&) = delete;
};

}  // namespace padtune
