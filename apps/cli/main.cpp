// rica — emulation runtime for message passing on emulated interconnection networks.
// Exit status: 0 success, 1 internal failure, 2 bad input (one line on stderr).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "rica/core.hpp"

int main(int argc, char** argv) {
  CLI::App app{"rica: multithreaded message passing on emulated interconnection networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rica 0.1.0");
  int status = 0;
  rica::cli::add_topology_commands(app);
  rica::cli::add_run_commands(app, status);
  rica::cli::add_sweep_command(app);
  rica::cli::add_os_command(app);
  rica::cli::add_app_command(app, status);
  rica::cli::add_experiment_commands(app);
  rica::cli::add_partition_command(app);
  rica::cli::add_embed_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "rica: error: %s (see rica --help)\n", e.what());
    return 2;
  } catch (const rica::usage_error& e) {
    std::fprintf(stderr, "rica: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rica: internal error: %s\n", e.what());
    return 1;
  }
  // Standard output is a report too: a full device or a closed pipe is an error, not exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "rica: error: cannot write standard output: %s\n", std::strerror(errno));
    return 2;
  }
  return status;
}
