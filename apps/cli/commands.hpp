#pragma once
// Sub-commands of the rica CLI. Each registers itself on the CLI11 app; parse errors and
// rica::usage_error end the program with status 2 and a one-line message (see main.cpp).

#include <CLI/CLI.hpp>

namespace rica::cli {

/// Every subcommand on `app` (each leaf with --config and --strict-config): the whole command line
/// rica::cli::main parses; `status` receives a command's exit status.
void add_all_commands(CLI::App& app, int& status);

/// `rica list`, `rica topo`, `rica route`.
void add_topology_commands(CLI::App& app);
/// `rica run`, `rica demo`; `status` receives the exit status (3 on deadlock).
void add_run_commands(CLI::App& app, int& status);
/// `rica sweep`.
void add_sweep_command(CLI::App& app);
/// `rica app sort|stencil`; `status` receives the exit status (1 unverified, 3 on deadlock).
void add_app_command(CLI::App& app, int& status);
/// `rica experiment` and `rica bound` (apps/cli/experiment_command.cpp).
void add_experiment_commands(CLI::App& app);
/// `rica partition`.
void add_partition_command(CLI::App& app);
/// `rica embed` (apps/cli/embed_command.cpp).
void add_embed_command(CLI::App& app);

/// `rica plot links|sweep|os` (apps/cli/plot_command.cpp).
void add_plot_command(CLI::App& app);

/// `rica report PATH` (apps/cli/report_command.cpp): one self-contained HTML page.
void add_report_command(CLI::App& app);

/// `rica os` (time sharing: drain vs flush); `status` receives the exit status (1 packets lost,
/// duplicated or misdelivered or a drain bound broken, 3 a run deadlocked or livelocked).
void add_os_command(CLI::App& app, int& status);
/// `rica os-stream` (job streams: allocators, schedulers, switch policies; rica/os_stream.hpp);
/// `status` as for `rica os`.
void add_os_stream_command(CLI::App& app, int& status);

/// `rica record -- COMMAND` (apps/cli/record_command.cpp): the program's exit status in `status`.
void add_record_command(CLI::App& app, int& status);
/// `rica replay ARCHIVE SPEC` (apps/cli/replay_command.cpp): `rica run --app replay:...`'s status.
void add_replay_command(CLI::App& app, int& status);

}  // namespace rica::cli
