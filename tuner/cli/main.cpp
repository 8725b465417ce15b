// padtune: list, verify and tune the ConstantPad1dBackward kernel family.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <sstream>
#include <string>

#include <unistd.h>

#include "padtune/store/errors.hpp"
#include "padtune/table.hpp"
#include "commands.hpp"
#include "padtune/detail/input.hpp"

namespace padtune::cli {
namespace {
std::string the_command_line;
std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) { interrupted.store(true); }
/// Until a command says it polls for an interrupt (catch_interrupts), SIGINT and SIGTERM end the
/// process at once with 130 and a message, as --help promises: such a command (verify, show,
/// explain --autotune) has nothing of its own to finish, and outputs are only ever replaced whole.
extern "C" void on_interrupt_before_polling(int signal) {
  static const char sigint[] = "padtune: interrupted (SIGINT); nothing was written\n";
  static const char sigterm[] = "padtune: interrupted (SIGTERM); nothing was written\n";
  if (signal == SIGINT) (void)!write(STDERR_FILENO, sigint, sizeof sigint - 1);
  else (void)!write(STDERR_FILENO, sigterm, sizeof sigterm - 1);
  _exit(130);
}

/// The first argument when it is meant as a command (no option) and names none; "" otherwise.
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->check_name(argv[1])) return "";
  return argv[1];
}
}  // namespace

const std::string& command_line() { return the_command_line; }

int exit_code_of(const std::exception& e) {
  if (dynamic_cast<const tuner::usage_error*>(&e)) return exit_usage;
  if (dynamic_cast<const results_error*>(&e)) return exit_bad_input;
  if (dynamic_cast<const tuner::interrupted_error*>(&e)) return exit_interrupted;
  return exit_failed;
}

const std::atomic<bool>* catch_interrupts() {
  std::signal(SIGINT, on_interrupt);
  std::signal(SIGTERM, on_interrupt);
  return &interrupted;
}
}  // namespace padtune::cli

int main(int argc, char** argv) {
  using namespace padtune::cli;
  // Recorded in tables as provenance: escaped (safe_text), so that a file name that is not UTF-8
  // cannot make the table unwritable as JSON.
  for (int i = 0; i < argc; ++i) the_command_line += (i ? " " : "") + padtune::safe_text(i ? argv[i] : "padtune");
  CLI::App app{"padtune: autotuned ConstantPad1dBackward kernels (dx[b,c,i] = dy[b,c,i+pad_left])", "padtune"};
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 success (tune: candidates that failed, faulted or timed out are recorded, not errors);\n"
      "1 the work found a problem or could not go on (a failed verification; a device failure in process; a\n"
      "file that could not be written, named with the OS error; a tune worker that cannot start or was stopped\n"
      "from outside); 2 bad command line (an output that is a folder or cannot be written, two outputs that\n"
      "are one file); 3 input padtune rejects (a shape, dtype, or file; for merge, inputs of different devices\n"
      "or settings); 4 no usable GPU for --backend cuda;\n"
      "130 interrupted (SIGINT or SIGTERM): a tune that had measured writes a partial table and running again\n"
      "resumes; a command that was waiting (for a lock another run holds) writes nothing.\n"
      "Outputs: a regular file is replaced atomically, a symbolic link's target likewise, a device or FIFO is\n"
      "written in place (docs/reliability.md).");
  int result = exit_ok;
  add_list_command(app, &result);
  add_tune_command(app, &result);
  add_show_command(app, &result);
  add_merge_command(app, &result);
  add_dispatch_commands(app, &result);
  add_worker_command(app, &result);
  std::signal(SIGINT, on_interrupt_before_polling);
  std::signal(SIGTERM, on_interrupt_before_polling);
  // A file-size limit must fail a write (EFBIG, reported with its file), not kill the process.
  std::signal(SIGXFSZ, SIG_IGN);
  if (const std::string name = unknown_command(app, argc, argv); !name.empty()) {
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({}))
      if (!sub->get_group().empty()) names += (names.empty() ? "" : ", ") + sub->get_name();
    std::fprintf(stderr, "padtune: '%s' is no command; the commands are %s (padtune --help)\n",
                 padtune::printable(name).c_str(), names.c_str());
    return exit_usage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 quotes the offending argument: its message goes through safe_text, as every other does.
    std::ostringstream out, err;
    const int code = app.exit(e, out, err);
    std::fputs(out.str().c_str(), stdout);
    std::fputs(padtune::safe_text(err.str()).c_str(), stderr);
    result = code == 0 ? exit_ok : exit_usage;  // --help into a full disk fails below, as any output does
  } catch (const std::bad_alloc&) {
    padtune::print_error("padtune: out of host memory for this problem\n");
    return exit_bad_input;
  } catch (const std::exception& e) {  // nothing escapes as an abort
    padtune::print_error("padtune: {}\n", e.what());
    return exit_code_of(e);
  }
  // What went to standard output must have arrived (a full disk, /dev/full, a file-size limit): a
  // buffered write fails only here.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    padtune::print_error("padtune: standard output cannot be written: {}\n", std::strerror(errno));
    return result == exit_ok ? exit_failed : result;
  }
  return result;
}
