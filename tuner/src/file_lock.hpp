#pragma once
// An advisory lock on a file (flock), held for the life of the object: several `padtune tune`
// processes on one results folder take turns instead of interleaving their writes.
#include <filesystem>
#include <functional>

namespace padtune::tuner {

class file_lock {
 public:
  /// Locks path (created if missing). If another process holds it, calls waiting() once, then
  /// blocks until it is free. Throws results_error if the file cannot be opened or locked.
  explicit file_lock(const std::filesystem::path& path, const std::function<void()>& waiting = {});
  ~file_lock();
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace padtune::tuner
