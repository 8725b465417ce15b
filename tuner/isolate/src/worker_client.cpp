// The supervisor's end of candidate isolation: starts the worker, sends a request, waits for the
// reply with a deadline, and tells a candidate's fault from a worker stopped from outside.
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "padtune/store/errors.hpp"
#include "padtune/isolate/worker.hpp"

namespace padtune::tuner {
namespace {

using nlohmann::json;

/// Signals that something outside sends (a user, a service manager, the OOM killer): they stop the
/// run, they say nothing about the candidate. Every other death is the candidate's fault.
bool sent_from_outside(int sig) {
  return sig == SIGTERM || sig == SIGINT || sig == SIGHUP || sig == SIGQUIT || sig == SIGKILL;
}

std::string death_text(int status) {
  if (WIFSIGNALED(status))
    return fmt::format("the worker died of signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  return fmt::format("the worker exited with code {}", WEXITSTATUS(status));
}

bool write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;  // EPIPE: the worker is gone (SIGPIPE is ignored)
    done += std::size_t(n);
  }
  return true;
}

}  // namespace

worker_client::worker_client(std::vector<std::string> command, double timeout_seconds, const std::atomic<bool>* interrupted)
    : command_(std::move(command)), timeout_(timeout_seconds), interrupted_(interrupted) {
  // A worker that dies while we write to it must not take the supervisor with it.
  std::signal(SIGPIPE, SIG_IGN);
}

worker_client::~worker_client() {
  if (pid_ > 0) stop(false);
}

const device_fingerprint& worker_client::device() {
  if (!device_) start();
  return *device_;
}

void worker_client::start() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0)
    throw std::runtime_error(fmt::format("cannot make pipes for the worker: {}", std::strerror(errno)));
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, in[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&files, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclosefrom_np(&files, 3);  // not the cache, not the lock
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  // A group of its own: Ctrl-C on a terminal reaches the supervisor only, which stops between
  // candidates and then ends the worker.
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  std::vector<std::string> args = command_;
  args.insert(args.end(), {"--parent", std::to_string(::getpid())});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int rc = posix_spawn(&pid_, argv[0], &files, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  ::close(in[0]);
  ::close(out[1]);
  if (rc != 0) {
    ::close(in[1]);
    ::close(out[0]);
    pid_ = -1;
    throw std::runtime_error(fmt::format("cannot start the worker {}: {}", command_.front(), std::strerror(rc)));
  }
  to_worker_ = in[1];
  from_worker_ = out[0];
  buffered_.clear();
  ++starts_;
  json hello;
  try {
    hello = exchange({{"op", "hello"}}, std::max(timeout_, 60.0));
  } catch (const candidate_fault& e) {  // no candidate ran yet: the worker itself is broken
    throw std::runtime_error(fmt::format("the worker did not start: {}", e.what()));
  }
  if (!device_) device_ = std::make_unique<device_fingerprint>(fingerprint_from_json(hello.at("device"), "the worker's device"));
}

int worker_client::stop(bool kill_now) {
  ::close(to_worker_);  // end of input: an idle worker exits by itself
  ::close(from_worker_);
  to_worker_ = from_worker_ = -1;
  open_key_.clear();
  if (kill_now) ::kill(pid_, SIGKILL);
  int status = 0;
  for (int waited_ms = 0;; waited_ms += 10) {
    const pid_t r = ::waitpid(pid_, &status, kill_now ? 0 : WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (r == 0 && waited_ms >= 5000 && !kill_now) {  // busy or stuck: no more waiting
      ::kill(pid_, SIGKILL);
      kill_now = true;
    }
    if (r == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
  return status;
}

worker_client::got worker_client::read_line(std::string& line, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    if (const auto nl = buffered_.find('\n'); nl != std::string::npos) {
      line = buffered_.substr(0, nl);
      buffered_.erase(0, nl + 1);
      return got::line;
    }
    if (interrupted_ && interrupted_->load()) return got::interrupted;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return got::timeout;
    pollfd p{from_worker_, POLLIN, 0};
    // In slices: a signal between the flag's check and poll would otherwise wait out the deadline.
    const int r = ::poll(&p, 1, int(std::min<long long>(left.count() + 1, 100)));
    if (r <= 0) continue;  // a signal (EINTR), or a slice over: the flag and the deadline are checked above
    char chunk[4096];
    const ssize_t n = ::read(from_worker_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return got::eof;
    buffered_.append(chunk, std::size_t(n));
  }
}

json worker_client::request(const json& req, double allowance_seconds) {
  if (pid_ < 0) start();
  json reply = exchange(req, timeout_ + allowance_seconds);
  if (req.at("op") == "open") open_key_ = workspace_key(req);
  return reply;
}

json worker_client::exchange(const json& req, double seconds) {
  std::string line;
  const got g = write_all(to_worker_, req.dump() + "\n") ? read_line(line, seconds) : got::eof;
  if (g == got::interrupted) {  // the measurement in flight is dropped: the next run makes it
    stop(true);
    throw interrupted_error("interrupted while the worker was measuring; the worker was ended");
  }
  if (g == got::timeout) {
    stop(true);
    throw candidate_fault("timeout", fmt::format("no reply within {:.1f} s (--candidate-timeout {} s); the worker was killed",
                                                 seconds, timeout_), timeout_);
  }
  if (g == got::eof) {
    const int status = stop(false);
    if (WIFSIGNALED(status) && sent_from_outside(WTERMSIG(status)))
      throw std::runtime_error(fmt::format("{}, sent from outside: the run stops", death_text(status)));
    throw candidate_fault("fault", death_text(status));
  }
  json reply;
  try {
    reply = json::parse(line);
  } catch (const json::exception& e) {
    stop(true);
    throw candidate_fault("fault", fmt::format("the worker's reply is not JSON ({}): {:.200}", e.what(), line));
  }
  if (const auto f = reply.find("failure"); f != reply.end()) {  // the device is poisoned: a fresh worker
    stop(true);
    throw candidate_fault("fault", f->get<std::string>());
  }
  if (const auto e = reply.find("error"); e != reply.end()) throw std::runtime_error(e->get<std::string>());
  return reply;
}

}  // namespace padtune::tuner
