#pragma once
/// The errors of reading what users hand padtune (tables, caches, sizes files): apart from
/// table.hpp so that the strict readers (detail/input.hpp) need not include the table they serve.
#include <stdexcept>

namespace padtune {

/// Input padtune rejects: a bad table, cache or sizes file. what() names the file and the field.
class results_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A table or cache of a schema newer than this padtune reads (a newer padtune wrote it): refused by
/// every command, and never replaced or set aside.
class newer_schema_error : public results_error {
 public:
  using results_error::results_error;
};

/// A file that could not be read or written: what() names the file and the OS error.
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace padtune
