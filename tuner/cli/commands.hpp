#pragma once
// The padtune CLI's subcommands: each adds itself to the app and runs when chosen.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <exception>

namespace padtune {
struct results_table;
}

namespace padtune::cli {

/// Exit codes, documented in --help.
enum exit_code : int {
  exit_ok = 0,
  exit_failed = 1,        ///< the work ran and found a problem (a verification failed, a file could not be written, ...)
  exit_usage = 2,         ///< bad command line (an output that cannot be one included)
  exit_bad_input = 3,     ///< a shape, dtype or file that padtune rejects
  exit_no_device = 4,     ///< the CUDA backend was asked for and no GPU is usable
  exit_interrupted = 130, ///< SIGINT or SIGTERM
};

/// The exit code of an error, by its cause (padtune/store/errors.hpp): usage_error 2, results_error 3,
/// interrupted_error 130, io_error and anything else 1.
int exit_code_of(const std::exception& e);

/// Set by SIGINT and SIGTERM once catch_interrupts() ran: long commands stop at the next point that
/// leaves every file whole, and every wait (a lock, a worker, a FIFO's reader) ends.
const std::atomic<bool>* catch_interrupts();

// Each registers its subcommand(s); the callback sets *result to an exit code.
void add_list_command(CLI::App& app, int* result);
void add_tune_command(CLI::App& app, int* result);      ///< tune, verify
void add_show_command(CLI::App& app, int* result);      ///< show FILE
void add_merge_command(CLI::App& app, int* result);     ///< merge INPUT...
void add_dispatch_commands(CLI::App& app, int* result); ///< explain, run
void add_worker_command(CLI::App& app, int* result);    ///< __worker (hidden): an isolated tune's worker

/// The command line this process was started with, for provenance in results files.
const std::string& command_line();

/// Prints a results table as a readable table (show, and the end of tune and merge); what came from
/// the file goes through safe_text.
void print_table(const results_table& t, std::FILE* to = stdout);

/// JSON for standard output: indented, ASCII only (\uXXXX escapes), so that no text from a file can
/// drive a terminal (a C1 control is not escaped in UTF-8 JSON).
std::string json_text(const nlohmann::json& j);

}  // namespace padtune::cli
