#include "padtune/store/file_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "padtune/store/errors.hpp"

namespace padtune::tuner {

file_lock::file_lock(const std::filesystem::path& path, const std::function<void()>& waiting,
                     const std::atomic<bool>* interrupted, mode how) {
  // O_NONBLOCK: a FIFO put where the lock goes must not hang the open (it is refused below).
  if (how == mode::shared) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0 && (errno == ENOENT || errno == EACCES)) return;  // no writer took it here, or none we could wait for
  } else {
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0644);
  }
  if (fd_ < 0) throw io_error(fmt::format("{}: cannot be opened as a lock: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw io_error(fmt::format("{}: a lock must be a regular file, and this is not one: move it away", path.string()));
  }
  const int operation = how == mode::shared ? LOCK_SH : LOCK_EX;
  bool told = false;
  // Polled rather than blocking in flock: a signal that lands just before a blocking call would go
  // unseen until the other run let go, which is the wait a user means to cut short.
  for (;;) {
    if (::flock(fd_, operation | LOCK_NB) == 0) return;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int e = errno;
      ::close(fd_);
      throw io_error(fmt::format("{}: cannot be locked: {}", path.string(), std::strerror(e)));
    }
    if (interrupted && interrupted->load()) {
      ::close(fd_);
      throw interrupted_error(fmt::format("interrupted while waiting for the lock {} (another padtune holds it); nothing was "
                                          "written", path.string()));
    }
    if (!told && waiting) waiting();
    told = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

file_lock::~file_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the lock
}

std::filesystem::path lock_path_of(const std::filesystem::path& cache_target) { return cache_target.string() + ".lock"; }

}  // namespace padtune::tuner
