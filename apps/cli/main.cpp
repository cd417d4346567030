// rica — emulation runtime for message passing on emulated interconnection networks.
// Exit status: 0 success, 1 internal failure, 2 bad input (one line on stderr).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "options.hpp"
#include "rica/core.hpp"
#include "rica/version.hpp"

// The size of the last allocation that failed, for the out-of-memory message (issue 11: a
// bad_alloc anywhere is a clean exit 2 naming the size asked for). The replacements below are the
// standard operator new with that one addition; operator delete is the standard one.
static std::atomic<std::size_t> failed_request{0};
static void* allocate_or_throw(std::size_t n) {
  if (void* p = std::malloc(n ? n : 1)) return p;
  failed_request.store(n);
  throw std::bad_alloc();
}
static void* allocate_aligned_or_throw(std::size_t n, std::align_val_t a) {
  const std::size_t al = static_cast<std::size_t>(a);
  if (void* p = std::aligned_alloc(al, (std::max<std::size_t>(n, 1) + al - 1) / al * al)) return p;
  failed_request.store(n);
  throw std::bad_alloc();
}
void* operator new(std::size_t n) { return allocate_or_throw(n); }
void* operator new[](std::size_t n) { return allocate_or_throw(n); }
void* operator new(std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
void* operator new[](std::size_t n, std::align_val_t a) { return allocate_aligned_or_throw(n, a); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

int main(int argc, char** argv) {
  CLI::App app{"rica: multithreaded message passing on emulated interconnection networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rica " + rica::version_string());
  int status = 0;
  rica::cli::add_topology_commands(app);
  rica::cli::add_run_commands(app, status);
  rica::cli::add_sweep_command(app);
  rica::cli::add_os_command(app);
  rica::cli::add_app_command(app, status);
  rica::cli::add_experiment_commands(app);
  rica::cli::add_partition_command(app);
  rica::cli::add_embed_command(app);
  rica::cli::add_plot_command(app);
  // Every leaf subcommand reads --config FILE (apply_config below merges it before parsing).
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const auto leaves = sub->get_subcommands([](CLI::App*) { return true; });
    if (leaves.empty()) rica::cli::add_config(sub);
    for (CLI::App* leaf : leaves) rica::cli::add_config(leaf);
  }
  rica::cli::set_invocation(argc, argv);
  try {
    // --config FILE: its options join the command line unless the command line gives them.
    std::vector<std::string> args(argv + 1, argv + argc);
    args = rica::cli::apply_config(app, std::move(args));
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
    app.parse(args);
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
    std::fprintf(stderr, "rica: error: memory: out of memory (a request for %zu bytes failed); reduce the network "
                 "size, --buffer-words or --packets\n", failed_request.load());
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
