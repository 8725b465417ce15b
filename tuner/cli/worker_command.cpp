// `padtune __worker`: the process that runs candidates for an isolated `padtune tune`
// (padtune/isolate/worker.hpp). Hidden from --help: only padtune starts it.
#include "padtune/isolate/worker.hpp"
#include "commands.hpp"

namespace padtune::cli {

void add_worker_command(CLI::App& app, int* result) {
  struct options {
    std::string backend_name;
    int parent = 0;
    int device = -1;
  };
  auto o = std::make_shared<options>();
  CLI::App* worker = app.add_subcommand("__worker", "");  // an empty description hides it
  worker->group("");
  worker->add_option("--backend", o->backend_name)->required()->check(CLI::IsMember({"cuda", "host"}));
  worker->add_option("--parent", o->parent)->required();
  worker->add_option("--device", o->device);  // a team's rank: the GPU of its local rank
  worker->callback([o, result] {
    *result = tuner::run_worker(o->backend_name == "cuda" ? backend::cuda : backend::host, pid_t(o->parent), o->device);
  });
}

}  // namespace padtune::cli
