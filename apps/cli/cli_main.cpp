// rica::cli::main (include/rica/cli.hpp): the subcommands on one CLI11 app, and the mapping of
// failures to exit statuses: 0 success, 1 internal failure, 2 bad input (one line on stderr).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>

#include "api.hpp"
#include "commands.hpp"
#include "rica/cli.hpp"
#include "rica/core.hpp"
#include "sweep.hpp"

namespace rica::cli {

std::atomic<std::size_t>& failed_allocation_size() noexcept {
  static std::atomic<std::size_t> size{0};
  return size;
}

void parse_subcommand(const std::string& name, const std::vector<std::string>& args,
                      const std::function<void(CLI::App*)>& declare) {
  CLI::App app{"rica"};
  CLI::App* sub = app.add_subcommand(name);
  declare(sub);
  std::vector<std::string> argv{args.rbegin(), args.rend()};  // CLI11 takes them last first
  argv.push_back(name);
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    throw usage_error(std::string(e.what()) + " (see rica --help)");
  }
}

int main(int argc, char** argv, const char* scripts_dir) {
  if (scripts_dir != nullptr) experiments::set_scripts_dir(scripts_dir);
  CLI::App app{"rica: multithreaded message passing on emulated interconnection networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rica 0.1.0");
  int status = 0;
  add_topology_commands(app);
  add_run_commands(app, status);
  add_sweep_command(app);
  add_os_command(app);
  add_app_command(app, status);
  add_experiment_commands(app);
  add_partition_command(app);
  add_embed_command(app);
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
  } catch (const std::bad_alloc&) {
    const std::size_t n = failed_allocation_size().load();
    if (n != 0)
      std::fprintf(stderr, "rica: error: memory: out of memory (a request for %zu bytes failed); reduce the network "
                   "size, --buffer-words or --packets\n", n);
    else
      std::fprintf(stderr, "rica: error: memory: out of memory; reduce the network size, --buffer-words or --packets\n");
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

}  // namespace rica::cli
