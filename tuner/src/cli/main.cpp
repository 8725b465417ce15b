// padtune: list, verify and tune the ConstantPad1dBackward kernel family.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

#include "commands.hpp"

namespace padtune::cli {
namespace {
std::string the_command_line;
}
const std::string& command_line() { return the_command_line; }
}  // namespace padtune::cli

int main(int argc, char** argv) {
  using namespace padtune::cli;
  for (int i = 0; i < argc; ++i) the_command_line += (i ? " " : "") + std::string(i ? argv[i] : "padtune");
  CLI::App app{"padtune: autotuned ConstantPad1dBackward kernels (dx[b,c,i] = dy[b,c,i+pad_left])", "padtune"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success (tune: candidates that failed, faulted or timed out are recorded, not errors);\n"
      "1 the work found a problem or could not go on (a failed verification; a device failure in process;\n"
      "a tune worker that cannot start or was stopped from outside); 2 bad command line;\n"
      "3 input padtune rejects (a shape, dtype, or file; for merge, inputs of different devices or settings);\n"
      "4 no usable GPU for --backend cuda;\n"
      "130 tune was interrupted (SIGINT or SIGTERM): a partial table was written, and running again resumes.");
  int result = exit_ok;
  add_list_command(app, &result);
  add_tune_command(app, &result);
  add_show_command(app, &result);
  add_merge_command(app, &result);
  add_dispatch_commands(app, &result);
  add_worker_command(app, &result);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? exit_ok : exit_usage;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "padtune: out of host memory for this problem\n");
    return exit_bad_input;
  } catch (const std::exception& e) {  // nothing escapes as an abort
    std::fprintf(stderr, "padtune: %s\n", e.what());
    return exit_failed;
  }
  return result;
}
