#pragma once
// Which published table a GPU model without one of its own borrows (the dispatcher's lookup order).
// Not installed: not part of the API.
#include <vector>

#include "padtune/table.hpp"

namespace padtune::detail {

/// Of the published tables' devices, the index of the one nearest in compute capability to cc
/// major.minor (the same major version first: one architecture family; then the nearest minor; of
/// two as near, the earlier), among those of the CUDA backend; -1 if there is none.
int nearest_published(const std::vector<device_fingerprint>& tables, int cc_major, int cc_minor);

}  // namespace padtune::detail
