#pragma once
// Every file padtune writes goes through here, by one rule (docs: reliability):
// - a regular file, or a path that does not exist yet, is replaced atomically: a temporary file in
//   the same folder is written, flushed to disk and renamed over it; it is removed on every failure;
// - a symbolic link is followed, and its target is replaced the same way (the link stays);
// - anything else (a character device such as /dev/null, a FIFO, /dev/stdout or another open
//   descriptor) is written in place, as a stream;
// - a folder, or a path whose folder cannot be written, is refused before any work starts.
#include <sys/types.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <string_view>

#include "padtune/store/errors.hpp"
#include "padtune/table.hpp"

namespace padtune::tuner {

/// An output path, resolved and checked.
struct output_target {
  std::filesystem::path given;   ///< as the user wrote it: errors name it
  std::filesystem::path target;  ///< the file written: symbolic links followed
  bool stream = false;           ///< written in place (a device, a FIFO, an open descriptor)
  int descriptor = -1;           ///< stream: the open descriptor it names (/dev/stdout: 1), else -1
  bool exists = false;
  dev_t device = 0;              ///< identity of an existing target
  ino_t inode = 0;

  /// "out.json", or "out.json (-> /data/t.json)" where a link was followed: how errors name it.
  std::string name() const;
  /// Whether two outputs are one file (the same inode, or the same new path).
  bool same_file(const output_target& other) const;
};

/// Resolves `path` as an output and checks it can be written. Throws usage_error naming the path
/// and the reason: a folder, a folder in the way, a folder or file that cannot be written, a loop
/// of links.
output_target resolve_output(const std::filesystem::path& path);

/// Writes `bytes` to the output by the rule above. Throws io_error naming the file and the OS
/// error (a full disk, a file-size limit); an atomic replace then leaves the old file as it was and
/// no temporary file. Opening a FIFO waits for its reader: `interrupted` (set by a signal handler)
/// ends that wait with interrupted_error.
void write_output(const output_target& out, std::string_view bytes, const std::atomic<bool>* interrupted = nullptr);

/// resolve_output, then write_output.
void write_output(const std::filesystem::path& path, std::string_view bytes);

/// Writes a results table to `path` by the rule above.
inline void write_table(const results_table& t, const std::filesystem::path& path) { write_output(path, table_text(t)); }

/// Whether the output is this process's standard output: /dev/stdout, /proc/self/fd/1, or any path
/// or descriptor of the file descriptor 1 is open on (the same device and inode). A command that
/// writes an output there prints its readable report on standard error instead.
bool is_standard_output(const output_target& out);

/// Throws usage_error if two of the outputs are one file: `what` names each ("--table").
void refuse_same_file(const output_target& a, const char* a_what, const output_target& b, const char* b_what);

}  // namespace padtune::tuner
