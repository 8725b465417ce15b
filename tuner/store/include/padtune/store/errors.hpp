#pragma once
// The tool's errors by cause, beside padtune::results_error (exit code 3) and padtune::io_error
// (exit code 1) of padtune/input_errors.hpp; each cause has its exit code (tuner/cli: exit_code_of).
#include <stdexcept>

#include "padtune/table.hpp"

namespace padtune::tuner {

/// A command padtune cannot carry out as given: an output path that cannot be one (a directory, a
/// folder that cannot be written), two outputs that name one file. Found before any work starts.
/// Exit code 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// SIGINT or SIGTERM ended a wait (a lock, a FIFO's reader) before the run changed any file.
/// Exit code 130.
class interrupted_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace padtune::tuner
