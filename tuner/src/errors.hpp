#pragma once
// The tool's errors by cause; each cause has its exit code (cli/commands.hpp: exit_code_of).
#include <stdexcept>

namespace padtune::tuner {

/// Input padtune rejects: a bad table, cache or sizes file. what() names the file and the field.
/// Exit code 3.
class results_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A file that could not be read or written: what() names the file and the OS error. Exit code 1.
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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
