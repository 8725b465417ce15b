#pragma once
// Instantiations added to the registry from outside kernels/: the deliberately faulting ones of the
// reliability tests (tests/fault/), and a place for kernels built at run time later. Not public API.
#include "padtune/registry.hpp"

namespace padtune::detail {

/// Appends `inst` after the compiled instantiations. Call it before the first call to registry() or
/// find_instantiation() (a static initializer does): registry() hands out a span that must stay
/// valid, so a later call throws std::logic_error. Returns true, for `static const bool x = ...;`.
bool add_extra_instantiation(instantiation inst);

}  // namespace padtune::detail
