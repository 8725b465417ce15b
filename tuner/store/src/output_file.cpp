#include "padtune/store/output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "padtune/detail/input.hpp"  // print_error

namespace padtune::tuner {
namespace {

namespace fs = std::filesystem;

std::string os_error(int e) { return std::strerror(e); }

/// The descriptor that `p` names, for /proc/self/fd/N, /proc/<this pid>/fd/N and /dev/fd/N; else -1.
int descriptor_named(const fs::path& p) {
  const std::string s = p.lexically_normal().string();
  for (const std::string& prefix : {std::string("/proc/self/fd/"), fmt::format("/proc/{}/fd/", ::getpid()), std::string("/dev/fd/")}) {
    if (s.compare(0, prefix.size(), prefix) != 0) continue;
    int fd = -1;
    const char* first = s.data() + prefix.size();
    const auto [end, ec] = std::from_chars(first, s.data() + s.size(), fd);
    if (ec == std::errc() && end == s.data() + s.size() && end != first) return fd;
  }
  return -1;
}

/// `p` with the folders above it resolved (symbolic links followed), its last name kept as it is.
fs::path with_real_folder(const fs::path& p) {
  std::error_code ec;
  const fs::path folder = fs::weakly_canonical(p.parent_path(), ec);
  return (ec ? p.parent_path() : folder) / p.filename();
}

/// Throws usage_error unless a file can be made in `folder` (or in the first of its parents that
/// exists, where the folders are still to be made).
void check_folder_writable(const output_target& out, fs::path folder) {
  for (;;) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        throw usage_error(fmt::format("{}: cannot be written: {} is not a folder", out.name(), folder.string()));
      if (::access(folder.c_str(), W_OK | X_OK) != 0)
        throw usage_error(fmt::format("{}: cannot be written: folder {}: {}", out.name(), folder.string(), os_error(errno)));
      return;
    }
    if (errno != ENOENT)
      throw usage_error(fmt::format("{}: cannot be written: folder {}: {}", out.name(), folder.string(), os_error(errno)));
    if (!folder.has_parent_path() || folder.parent_path() == folder) return;
    folder = folder.parent_path();
  }
}

/// Why `p` (ENAMETOOLONG) cannot be an output: its name past its folder's NAME_MAX, or its path
/// past PATH_MAX.
std::string too_long(const output_target& out, const fs::path& p) {
  const std::size_t name = p.filename().string().size(), path = p.string().size();
  const long name_max = ::pathconf(p.parent_path().c_str(), _PC_NAME_MAX);
  if (name_max > 0 && name > std::size_t(name_max))
    return fmt::format("{}: cannot be written: its name is {} bytes, longer than the {} bytes (NAME_MAX) of its folder {}",
                       out.name(), name, name_max, p.parent_path().string());
  return fmt::format("{}: cannot be written: its path is {} bytes, longer than the {} bytes (PATH_MAX) a path may have", out.name(),
                     path, PATH_MAX - 1);
}

bool write_all(int fd, std::string_view bytes, int* error) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, std::min<std::size_t>(bytes.size() - done, 1 << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = n < 0 ? errno : EIO;
      return false;
    }
    done += std::size_t(n);
  }
  return true;
}

/// A stream's descriptor: a FIFO is opened without blocking, and retried until its reader comes.
int open_stream(const output_target& out, const std::atomic<bool>* interrupted) {
  if (out.descriptor >= 0) {
    const int fd = ::fcntl(out.descriptor, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) throw io_error(fmt::format("{}: cannot be written: {}", out.name(), os_error(errno)));
    return fd;
  }
  for (bool told = false;;) {
    const int fd = ::open(out.target.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd >= 0) {
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      return fd;
    }
    const int e = errno;
    if (e != ENXIO && e != EINTR) throw io_error(fmt::format("{}: cannot be opened for writing: {}", out.name(), os_error(e)));
    if (interrupted && interrupted->load())
      throw interrupted_error(fmt::format("{}: interrupted while waiting for a reader; nothing was written", out.name()));
    // ENXIO: no reader yet (a FIFO's). Said once, so that a run that seems to hang says why.
    if (e == ENXIO && !told) {
      print_error("padtune: {} has no reader yet: waiting for one (SIGINT or SIGTERM stops)\n", out.name());
      told = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

void write_stream(const output_target& out, std::string_view bytes, const std::atomic<bool>* interrupted) {
  const int fd = open_stream(out, interrupted);
  // A reader that goes away must fail this write (EPIPE), not end the process.
  struct sigaction ignore {}, old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  int error = 0;
  const bool ok = write_all(fd, bytes, &error);
  ::sigaction(SIGPIPE, &old, nullptr);
  if (::close(fd) != 0 && ok && errno != EINTR) error = errno;
  if (!ok || error) throw io_error(fmt::format("{}: cannot be written: {}", out.name(), os_error(error)));
}

void replace_atomically(const output_target& out, std::string_view bytes) {
  const fs::path folder = out.target.parent_path();
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw io_error(fmt::format("{}: its folder {} cannot be made: {}", out.name(), folder.string(), ec.message()));
  // Named in the folder, whatever the target's name: every name that fits NAME_MAX gets a
  // temporary one that fits too, and no path longer than the target's is used (PATH_MAX).
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw io_error(fmt::format("{}: its folder {} cannot be opened: {}", out.name(), folder.string(), os_error(errno)));
  static std::atomic<unsigned> serial{0};
  const std::string tmp = fmt::format(".padtune.tmp.{}.{}", ::getpid(), serial++);
  const std::string name = out.target.filename().string();
  // The new file keeps the old one's permissions; a new one gets the umask's, as any created file.
  struct stat old {};
  const bool had = ::fstatat(dir, name.c_str(), &old, 0) == 0 && S_ISREG(old.st_mode);
  const int fd = ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int e = errno;
    ::close(dir);
    throw io_error(fmt::format("{}: cannot be written: {}: {}", out.name(), (folder / tmp).string(), os_error(e)));
  }
  int error = 0;
  bool ok = write_all(fd, bytes, &error);
  if (ok && had && ::fchmod(fd, old.st_mode & 07777) != 0) ok = false, error = errno;
  if (ok && ::fsync(fd) != 0) ok = false, error = errno;
  if (::close(fd) != 0 && ok) ok = false, error = errno;
  if (ok && ::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) ok = false, error = errno;
  if (!ok) {
    ::unlinkat(dir, tmp.c_str(), 0);
    ::close(dir);
    throw io_error(fmt::format("{}: cannot be written: {}", out.name(), os_error(error)));
  }
  // The rename itself survives a crash once the folder is flushed; a failure here loses nothing.
  ::fsync(dir);
  ::close(dir);
}

}  // namespace

std::string output_target::name() const {
  const std::string g = given.string();
  if (descriptor >= 0 || target.empty() || target == fs::absolute(given).lexically_normal()) return g;
  return fmt::format("{} (-> {})", g, target.string());
}

bool output_target::same_file(const output_target& other) const {
  if (descriptor >= 0 || other.descriptor >= 0) return descriptor == other.descriptor;
  if (exists && other.exists) return device == other.device && inode == other.inode;
  return !exists && !other.exists && target == other.target;
}

output_target resolve_output(const fs::path& path) {
  output_target out;
  out.given = path;
  if (path.empty()) throw usage_error("an output path is empty");
  std::error_code ec;
  // Not normalised by its text: "link/../x" is x beside the link's target, as the OS resolves it, not
  // beside the link; with_real_folder resolves the folders.
  fs::path p = fs::absolute(path, ec);
  if (ec) throw usage_error(fmt::format("{}: cannot be resolved: {}", path.string(), ec.message()));
  for (int hop = 0; hop < 40; ++hop) {
    if (const int fd = descriptor_named(p); fd >= 0) {
      if (::fcntl(fd, F_GETFD) < 0) throw usage_error(fmt::format("{}: names descriptor {}, which is not open", path.string(), fd));
      out.target = p, out.stream = true, out.descriptor = fd, out.exists = true;
      return out;
    }
    p = with_real_folder(p);
    out.target = p;
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENAMETOOLONG) throw usage_error(too_long(out, p));
      if (errno != ENOENT && errno != ENOTDIR) throw usage_error(fmt::format("{}: cannot be checked: {}", out.name(), os_error(errno)));
      check_folder_writable(out, p.parent_path());
      return out;  // a new file
    }
    if (S_ISLNK(st.st_mode)) {
      const fs::path link = fs::read_symlink(p, ec);
      if (ec) throw usage_error(fmt::format("{}: the link cannot be read: {}", out.name(), ec.message()));
      p = link.is_absolute() ? link : p.parent_path() / link;
      continue;
    }
    out.exists = true;
    out.device = st.st_dev, out.inode = st.st_ino;
    if (S_ISDIR(st.st_mode)) throw usage_error(fmt::format("{}: is a folder, not a file", out.name()));
    if (!S_ISREG(st.st_mode)) {
      out.stream = true;
      return out;
    }
    if (::access(p.c_str(), W_OK) != 0)
      throw usage_error(fmt::format("{}: cannot be replaced: {}", out.name(), os_error(errno)));
    check_folder_writable(out, p.parent_path());
    return out;
  }
  throw usage_error(fmt::format("{}: too many levels of symbolic links", path.string()));
}

void write_output(const output_target& out, std::string_view bytes, const std::atomic<bool>* interrupted) {
  if (out.stream) write_stream(out, bytes, interrupted);
  else replace_atomically(out, bytes);
}

void write_output(const fs::path& path, std::string_view bytes) { write_output(resolve_output(path), bytes); }

bool is_standard_output(const output_target& out) {
  if (out.descriptor == STDOUT_FILENO) return true;
  struct stat one {}, it {};
  if (::fstat(STDOUT_FILENO, &one) != 0) return false;
  if (out.descriptor >= 0) return ::fstat(out.descriptor, &it) == 0 && it.st_dev == one.st_dev && it.st_ino == one.st_ino;
  return out.exists && out.device == one.st_dev && out.inode == one.st_ino;
}

void refuse_same_file(const output_target& a, const char* a_what, const output_target& b, const char* b_what) {
  if (a.same_file(b))
    throw usage_error(fmt::format("{} {} and {} {} are one file: one output would replace the other", a_what, a.name(),
                                  b_what, b.name()));
}

}  // namespace padtune::tuner
