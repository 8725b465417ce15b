#pragma once
// An advisory lock on a file (flock), held for the life of the object: every writer of a cache (a
// `padtune tune`, a `padtune merge`) holds the cache's lock, and a tune replacing a table the
// table's, so they take turns instead of interleaving or losing each other's lines and entries.
// Cache locks are taken before table locks.
#include <atomic>
#include <filesystem>
#include <functional>

namespace padtune::tuner {

class file_lock {
 public:
  /// exclusive: a writer's; the lock file is created if missing. shared: a reader's (padtune merge's
  /// input caches), beside writers of none; it opens the lock file for reading and creates none, so
  /// reading needs no write access: where no lock file exists, no writer ever took it, and nothing
  /// is held.
  enum class mode { exclusive, shared };

  /// Locks path. If another process holds it (exclusively, or at all for an exclusive lock), calls
  /// waiting() once, then waits until it is free, checking `interrupted` (set by a signal handler) as
  /// it waits: set, it gives up with interrupted_error. Throws io_error if the file cannot be opened
  /// (an exclusive lock) or locked.
  explicit file_lock(const std::filesystem::path& path, const std::function<void()>& waiting = {},
                     const std::atomic<bool>* interrupted = nullptr, mode how = mode::exclusive);
  ~file_lock();
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  int fd_ = -1;
};

/// The lock of a cache or a table: its own path (symbolic links followed) + ".lock", so that two
/// names of one file take one lock.
std::filesystem::path lock_path_of(const std::filesystem::path& cache_target);

}  // namespace padtune::tuner
