#pragma once
// The dispatcher's tables: each device's table is found once, down a ladder of sources (an explicit
// path, the embedded table of the model, the embedded table nearest in compute capability, the
// built-in default), read into a lookup table and kept for the process (tables.cpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "padtune/registry.hpp"
#include "padtune/table.hpp"
#include "vote.hpp"

namespace padtune::detail {

constexpr const char* default_source = "built-in default";

constexpr std::size_t dtype_count = std::size(all_dtypes);

/// One usable table entry, checked against the registry when the table was loaded.
struct dispatch_entry {
  bucket where;
  shape5 shape;  ///< what an exact entry serves (its B*C, L and pads); a bucket's measured shape
  const instantiation* inst = nullptr;
  double ratio_to_memcpy = 0;
  std::string note;  ///< why inst is not the table's winner ("" when it is)
  detail::voter votes;  ///< what the entry brings to the vote (vote.hpp)
};

/// A table ready for lookup: entries split by dtype so that a call scans only its own.
struct lookup_table {
  std::string source;  ///< a path, "embedded:<file>", or "built-in default"
  device_fingerprint device;  ///< what the table was measured on (empty for the built-in default)
  std::array<std::vector<dispatch_entry>, dtype_count> by_dtype;
  std::array<std::vector<dispatch_entry>, dtype_count> exact_by_dtype;  ///< looked at first
};

/// The table one device uses, and how lookup got there.
struct device_table {
  const lookup_table* table = nullptr;
  std::string note;  ///< the sources passed over on the way, in words ("" if none)
  /// Another model's table serves this device (no table of its own): first-use timing is on for it
  /// unless PADTUNE_AUTOTUNE or set_autotune said otherwise (results/nvidia-h200/untuned.md).
  bool borrowed = false;
};

/// The built-in default's kernel for rows of length L (throws for a dtype no instantiation takes).
const instantiation& default_instantiation(dtype type, std::int64_t L);

/// The table that serves backend b (for cuda: the current device), found once per device. If no
/// CUDA device can be named: throws (need_device) or returns the table of "no usable device".
const device_table& table_for(backend b, bool need_device);

}  // namespace padtune::detail
