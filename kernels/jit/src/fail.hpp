#pragma once
// How the non-throwing entry points fail: the reason into *why (if asked for), the code returned.
#include <string>
#include <utility>

#include "padtune/error.hpp"

namespace padtune::jit {

inline status fail(std::string* why, status code, std::string message) {
  if (why) *why = std::move(message);
  return code;
}

}  // namespace padtune::jit
