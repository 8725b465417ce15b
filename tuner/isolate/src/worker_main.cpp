// The worker's end of candidate isolation: one workspace at a time, kept while requests stay on
// its (dtype, shape), answered one JSON line per request line.
#include <fmt/format.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>

#include "padtune/candidates/jit_candidates.hpp"
#include "padtune/isolate/worker.hpp"

namespace padtune::tuner {
namespace {

using nlohmann::json;

class worker {
 public:
  explicit worker(backend where) : where_(where) {}

  json serve(const json& req) {
    const std::string op = req.at("op").get<std::string>();
    if (op == "hello") return {{"device", to_json(where_ == backend::cuda ? cuda_device_fingerprint() : host_fingerprint())}};
    workspace& ws = workspace_for(req);
    if (op == "open") return json::object();
    if (op == "time_memcpy") return {{"timing", to_json(ws.time_memcpy(measure_settings_from_json(req.at("settings"))))}};
    const std::string id = req.at("id").get<std::string>();
    const instantiation* inst = find_candidate(id);  // a JIT id builds its candidate here
    if (!inst) throw std::runtime_error(fmt::format("the worker has no instantiation {}", id));
    if (op == "verify") return {{"mismatch", ws.verify(*inst)}};
    if (op == "time") return {{"timing", to_json(ws.time(*inst, measure_settings_from_json(req.at("settings"))))}};
    throw std::runtime_error(fmt::format("unknown request '{}'", op));
  }

  /// The backend's sticky error after a request, or "".
  std::string failure() const { return ws_ ? ws_->failure() : ""; }

 private:
  workspace& workspace_for(const json& req) {
    const auto type = parse_dtype(req.at("dtype").get<std::string>());
    const auto v = req.at("shape").get<std::vector<long long>>();
    if (!type || v.size() != 5) throw std::runtime_error("a request names no dtype or no shape of 5 numbers");
    const shape5 s{v[0], v[1], v[2], v[3], v[4]};
    if (!ws_ || type_ != *type || !(shape_ == s)) {
      ws_.reset();  // free the old buffers before taking new ones
      ws_ = where_ == backend::cuda ? make_cuda_workspace(*type, s) : make_host_workspace(*type, s);
      type_ = *type, shape_ = s;
    }
    return *ws_;
  }

  backend where_;
  std::unique_ptr<workspace> ws_;
  dtype type_ = dtype::f32;
  shape5 shape_{};
};

}  // namespace

int run_worker(backend where, pid_t parent, int device) {
  // Dies with the supervisor, even when that is SIGKILLed; the pipe's end of input is the usual way.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) return 1;  // the supervisor was gone before the line above
  std::signal(SIGINT, SIG_IGN);  // interrupts are the supervisor's to handle
  std::signal(SIGTERM, SIG_DFL);  // a SIGTERM from outside kills it as a signal, which the supervisor tells from a fault
  // Replies go to a private copy of stdout; anything else printed lands on stderr.
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> reply_file(::fdopen(::dup(STDOUT_FILENO), "w"), &std::fclose);
  std::FILE* replies = reply_file.get();
  if (!replies || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return 1;
  if (where == backend::cuda && device >= 0) {
    try {
      use_cuda_device(device);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "padtune __worker: %s\n", e.what());
      return 1;
    }
  }
  worker w(where);
  for (std::string line; std::getline(std::cin, line);) {
    json reply;
    try {
      reply = w.serve(json::parse(line));
    } catch (const std::exception& e) {
      reply = {{"error", e.what()}};
    }
    const std::string failure = w.failure();
    if (!failure.empty()) reply["failure"] = failure;
    const std::string text = reply.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    if (std::fwrite(text.data(), 1, text.size(), replies) != text.size() || std::fflush(replies) != 0) return 1;
    if (!failure.empty()) return 1;  // the context is poisoned: nothing more can be measured here
  }
  return 0;
}

}  // namespace padtune::tuner
