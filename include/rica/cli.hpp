#pragma once
// rica's command-line front end as a library (target rica::cli). A user's program that registers
// its own applications, traffic patterns or switch policies (docs/extending.md) and then calls
// rica::cli::main gets every rica subcommand — list, run, sweep, os, app, topo, ... — with its
// additions available by name:
//
//   int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
//
// Exit status: 0 success, 1 internal failure or an unverified result, 2 bad input (one line on
// stderr), 3 deadlock, 130 stopped by Ctrl-C (SIGINT; one process: rica/interrupt.hpp). Call
// from the main thread, after every registration, once at a time.

#include <atomic>
#include <cstddef>

namespace rica::cli {

/// Parses argv (argv[0] is the program name) and runs the subcommand; returns the exit status.
/// `scripts_dir`: where the plot scripts are (share/rica/scripts of the installed rica); nullptr
/// = look beside the running binary and at rica's install prefix (rica_experiments'
/// find_plot_script).
int main(int argc, char** argv, const char* scripts_dir);

/// The same with the scripts of the rica this program was compiled against: an installed rica's
/// CMake package defines RICA_CLI_SCRIPTS_DIR for everything linking rica::cli.
inline int main(int argc, char** argv) {
#ifdef RICA_CLI_SCRIPTS_DIR
  return main(argc, argv, RICA_CLI_SCRIPTS_DIR);
#else
  return main(argc, argv, nullptr);
#endif
}

/// Size of the last allocation that failed (0: unknown), named in the out-of-memory message.
/// A program that replaces operator new (rica's own main.cpp does) stores it here.
std::atomic<std::size_t>& failed_allocation_size() noexcept;

}  // namespace rica::cli
