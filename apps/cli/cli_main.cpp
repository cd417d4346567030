// rica::cli::main (include/rica/cli.hpp): the subcommands on one CLI11 app, and the mapping of
// failures to exit statuses: 0 success, 1 internal failure, 2 bad input (one line on stderr).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/cli.hpp"
#include "rica/core.hpp"
#include "rica/distributed.hpp"
#include "rica/version.hpp"
#include "sweep.hpp"

namespace rica::cli {

std::atomic<std::size_t>& failed_allocation_size() noexcept {
  static std::atomic<std::size_t> size{0};
  return size;
}

void parse_subcommand(const std::string& name, const std::vector<std::string>& args,
                      const std::function<void(CLI::App*)>& declare, const std::function<void()>& then) {
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
  if (then) then();
}

namespace {

/// Edit distance (insertions, deletions, substitutions, adjacent swaps) between a and b.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

/// The candidate nearest to `given` if it is near enough to be a typo (at most a third of its
/// length, at least 1, at most 3 edits); empty otherwise.
std::string nearest(const std::string& given, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_d = std::min<std::size_t>(3, std::max<std::size_t>(1, given.size() / 3)) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(given, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

/// For a command line CLI11 refused: "; did you mean ..." naming the nearest subcommand to an
/// unknown one, or the nearest option of the chosen subcommand to an unknown option; empty when
/// nothing is near.
std::string did_you_mean(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* leaf = &app;
  while (!leaf->get_subcommands().empty()) leaf = leaf->get_subcommands().front();
  if (leaf == &app) {  // no subcommand recognised: the first word is a misspelt one
    for (const std::string& a : args) {
      if (a.empty() || a[0] == '-') continue;
      std::vector<std::string> names;
      for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) names.push_back(sub->get_name());
      const std::string n = nearest(a, names);
      return n.empty() ? "" : fmt::format("; did you mean '{}'?", n);
    }
    return "";
  }
  std::vector<std::string> names;
  for (const CLI::Option* o : leaf->get_options())
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  for (const std::string& a : args) {
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string given = a.substr(0, a.find('='));
    if (std::find(names.begin(), names.end(), given) != names.end()) continue;
    const std::string n = nearest(given, names);
    if (!n.empty()) return fmt::format("; did you mean '{}' for '{}'?", n, given);
  }
  return "";
}

}  // namespace

int main(int argc, char** argv, const char* scripts_dir) {
  // Under mpirun (more than one process), MPI starts here and ends when main returns
  // (docs/distributed.md); otherwise nothing happens.
  dist::init(argc, argv);
  struct Finalize {
    ~Finalize() { dist::finalize(); }
  } finalize;
  if (scripts_dir != nullptr) experiments::set_scripts_dir(scripts_dir);
  CLI::App app{"rica: multithreaded message passing on emulated interconnection networks"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rica " + version_string());
  int status = 0;
  add_topology_commands(app);
  add_run_commands(app, status);
  add_sweep_command(app);
  add_os_command(app, status);
  add_os_stream_command(app, status);
  add_app_command(app, status);
  add_experiment_commands(app);
  add_partition_command(app);
  add_embed_command(app);
  add_plot_command(app);
  add_report_command(app);
  // Every leaf subcommand reads --config FILE (apply_config below merges it before parsing).
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const auto leaves = sub->get_subcommands([](CLI::App*) { return true; });
    if (leaves.empty()) add_config(sub);
    for (CLI::App* leaf : leaves) add_config(leaf);
  }
  set_invocation(argc, argv);
  try {
    // --config FILE: its options join the command line unless the command line gives them.
    std::vector<std::string> args(argv + 1, argv + argc);
    // --version prints the version and does nothing else: another argument beside it is refused.
    if (std::find(args.begin(), args.end(), "--version") != args.end() && args.size() > 1)
      throw usage_error(fmt::format("--version takes no other argument (got {}); give rica --version alone",
                                    quote_input(args.front() == "--version" ? args[1] : args.front())));
    args = apply_config(app, std::move(args));
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse order
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string hint = did_you_mean(app, std::vector<std::string>(argv + 1, argv + argc));
    std::fprintf(stderr, "rica: error: %s%s (see rica --help)\n", e.what(), hint.c_str());
    return 2;
  } catch (const rica::usage_error& e) {
    std::fprintf(stderr, "rica: error: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    const std::size_t n = failed_allocation_size().load();
    // Under mpirun a failure of one rank ends them all (the others may wait in a collective).
    if (dist::size() > 1) dist::abort(2, fmt::format("rica: rank {}: error: memory: out of memory", dist::rank()));
    if (n != 0)
      std::fprintf(stderr, "rica: error: memory: out of memory (a request for %zu bytes failed); reduce the network "
                   "size, --buffer-words or --packets\n", n);
    else
      std::fprintf(stderr, "rica: error: memory: out of memory; reduce the network size, --buffer-words or --packets\n");
    return 2;
  } catch (const std::exception& e) {
    if (dist::size() > 1) dist::abort(1, fmt::format("rica: rank {}: internal error: {}", dist::rank(), e.what()));
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
