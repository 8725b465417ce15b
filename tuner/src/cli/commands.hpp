#pragma once
// The padtune CLI's subcommands: each adds itself to the app and runs when chosen.
#include <CLI/CLI.hpp>

namespace padtune::tuner {
struct results_table;
}

namespace padtune::cli {

/// Exit codes, documented in --help.
enum exit_code : int {
  exit_ok = 0,
  exit_failed = 1,        ///< the work ran and found a problem (a verification failed, ...)
  exit_usage = 2,         ///< bad command line
  exit_bad_input = 3,     ///< a shape, dtype or file that padtune rejects
  exit_no_device = 4,     ///< the CUDA backend was asked for and no GPU is usable
};

// Each registers its subcommand(s); the callback sets *result to an exit code.
void add_list_command(CLI::App& app, int* result);
void add_tune_command(CLI::App& app, int* result);      ///< tune, verify
void add_show_command(CLI::App& app, int* result);      ///< show FILE
void add_merge_command(CLI::App& app, int* result);     ///< merge INPUT...
void add_dispatch_commands(CLI::App& app, int* result); ///< explain, run
void add_worker_command(CLI::App& app, int* result);    ///< __worker (hidden): an isolated tune's worker

/// The command line this process was started with, for provenance in results files.
const std::string& command_line();

/// Prints a results table as a readable table (show, and the end of tune).
void print_table(const tuner::results_table& t);

}  // namespace padtune::cli
