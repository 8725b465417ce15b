#pragma once
// An advisory lock on a file (flock), held for the life of the object: every writer of a cache (a
// `padtune tune`, a `padtune merge`) holds the cache's lock, so they take turns instead of
// interleaving or losing each other's lines.
#include <atomic>
#include <filesystem>
#include <functional>

namespace padtune::tuner {

class file_lock {
 public:
  /// Locks path (created if missing). If another process holds it, calls waiting() once, then
  /// waits until it is free, checking `interrupted` (set by a signal handler) as it waits: set, it
  /// gives up with interrupted_error. Throws io_error if the file cannot be opened or locked.
  explicit file_lock(const std::filesystem::path& path, const std::function<void()>& waiting = {},
                     const std::atomic<bool>* interrupted = nullptr);
  ~file_lock();
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  int fd_ = -1;
};

/// The lock of a cache: the cache's own path (symbolic links followed) + ".lock", so that two
/// names of one cache take one lock.
std::filesystem::path lock_path_of(const std::filesystem::path& cache_target);

}  // namespace padtune::tuner
