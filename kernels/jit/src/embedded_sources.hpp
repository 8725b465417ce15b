#pragma once
// The device sources the JIT compiles, embedded at build time (kernels/jit/embed_sources.cmake).
#include <span>
#include <string_view>

namespace padtune::jit::detail {

/// One file of kernels/device: its name (as the others #include it) and its text.
struct embedded_source {
  std::string_view name;
  std::string_view text;
};

/// Every embedded file, in the order CMake lists them.
std::span<const embedded_source> embedded_sources();

/// The text of the embedded file `name`; throws padtune::error if there is none.
std::string_view embedded_source_text(std::string_view name);

}  // namespace padtune::jit::detail
