#pragma once
// Candidate isolation: a worker process owns the device (the CUDA context and the workspaces) and
// runs verify and time requests; the tuner (the supervisor) talks to it over pipes, one JSON line
// per request and per reply. A candidate that kills the worker (a signal, a sticky CUDA error that
// poisons the context) or outlives its deadline costs one worker: the supervisor records the fault,
// starts a fresh worker and goes on. Linux only (posix_spawn, prctl).
//
// Requests: {"op": "hello"} -> {"device": fingerprint}; {"op": "open" | "verify" | "time" |
// "time_memcpy", "dtype", "shape": [B, C, L, pl, pr], "id", "settings"} -> {"mismatch": text} for
// verify, {"timing": {"cold", "hot"}} for the timings. Any reply may carry "error" (an exception:
// the request failed, the worker is fine) or "failure" (a sticky device error: the worker is done).
// An "id" is the registry's, or a JIT candidate's ("jit__..."), which the worker builds from the id
// itself (jit_candidates.hpp: find_candidate), so it needs no list of them.
//
// Why a process and not a thread or a fresh CUDA context: a sticky error poisons every context of
// the process, a hung kernel cannot be cancelled, and a host-emulated candidate can crash the
// process; only a process can be killed and replaced. One worker serves the whole run (a request
// costs ~25 us, a measurement 10-300 ms); time_interleaved sends one sample per request.
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "padtune/measure/workspace.hpp"

namespace padtune::tuner {

/// The supervisor's end: starts the worker when first needed and again after a fault.
class worker_client {
 public:
  /// command: argv of the worker (e.g. /proc/self/exe __worker --backend cuda); timeout_seconds:
  /// what a request may take beyond its own allowance before the worker is killed; interrupted (set
  /// by a signal handler): while it waits for a reply, a set flag ends the worker at once and
  /// request() throws interrupted_error.
  worker_client(std::vector<std::string> command, double timeout_seconds, const std::atomic<bool>* interrupted = nullptr);
  ~worker_client();
  worker_client(const worker_client&) = delete;
  worker_client& operator=(const worker_client&) = delete;

  /// The worker's device (asked once, from the first worker). Throws std::runtime_error if the
  /// worker cannot start or has no device.
  const device_fingerprint& device();

  /// Sends one request and waits for its reply, at most timeout + allowance_seconds (starting the
  /// worker first if needed: its start has a minute of its own, a CUDA context takes time). Throws
  /// candidate_fault when the worker died, hung or reported a sticky failure (the worker is then
  /// gone and the next request starts another); std::runtime_error for an "error" reply or a worker
  /// stopped from outside (SIGTERM, SIGKILL not sent by us); interrupted_error as above.
  nlohmann::json request(const nlohmann::json& req, double allowance_seconds);

  double timeout_seconds() const { return timeout_; }
  int starts() const { return starts_; }
  pid_t pid() const { return pid_; }  ///< the running worker, or -1
  /// The "dtype|shape" the running worker built its workspace for ("" for none): a request on
  /// another one, or after a restart, must "open" first, with the setup allowance.
  const std::string& open_key() const { return open_key_; }
  /// The key of a request's {"dtype", "shape"}.
  static std::string workspace_key(const nlohmann::json& req) { return req.at("dtype").dump() + "|" + req.at("shape").dump(); }

 private:
  enum class got { line, eof, timeout, interrupted };
  /// Spawns the worker and asks its device.
  void start();
  /// One request, one reply within `seconds`; faults thrown as described at request().
  nlohmann::json exchange(const nlohmann::json& req, double seconds);
  got read_line(std::string& line, double seconds);
  /// Ends the worker: closes its pipes (an idle worker exits), waits up to 5 s, then SIGKILL; at
  /// once with kill_now. Returns its wait status.
  int stop(bool kill_now);

  std::vector<std::string> command_;
  double timeout_;
  const std::atomic<bool>* interrupted_;
  pid_t pid_ = -1;
  int to_worker_ = -1, from_worker_ = -1;
  std::string buffered_, open_key_;
  std::unique_ptr<device_fingerprint> device_;
  int starts_ = 0;
};

/// A workspace whose work runs in the worker: same interface, same numbers, faults thrown as
/// candidate_fault. Building it builds the worker's workspace for (type, s) (errors as
/// std::runtime_error, like the in-process ones).
std::unique_ptr<workspace> make_isolated_workspace(worker_client& worker, dtype type, const shape5& s);

/// The worker's side: serves requests from stdin until it closes. Returns the exit code.
/// parent: the supervisor's pid (the worker ends if it is already gone); device: the CUDA device
/// to use (a team's rank passes its own), -1 for the default.
int run_worker(backend where, pid_t parent, int device = -1);

}  // namespace padtune::tuner
