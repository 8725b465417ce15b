#include "file_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "results.hpp"

namespace padtune::tuner {

file_lock::file_lock(const std::filesystem::path& path, const std::function<void()>& waiting) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw results_error(fmt::format("{}: cannot be opened as a lock: {}", path.string(), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (errno == EWOULDBLOCK && waiting) waiting();
  int rc;
  do rc = ::flock(fd_, LOCK_EX);
  while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    const int e = errno;
    ::close(fd_);
    throw results_error(fmt::format("{}: cannot be locked: {}", path.string(), std::strerror(e)));
  }
}

file_lock::~file_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

}  // namespace padtune::tuner
