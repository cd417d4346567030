// rica::cli::main (include/rica/cli.hpp): the subcommands on one CLI11 app, and the mapping of
// failures to exit statuses: 0 success, 1 internal failure, 2 bad input (one line on stderr).
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/cli.hpp"
#include "rica/core.hpp"
#include "rica/distributed.hpp"
#include "rica/interrupt.hpp"
#include "rica/suggest.hpp"
#include "rica/version.hpp"
#include "sweep.hpp"

namespace rica::cli {

std::atomic<std::size_t>& failed_allocation_size() noexcept {
  static std::atomic<std::size_t> size{0};
  return size;
}

namespace {

/// The signal that asked rica to stop (SIGINT or SIGTERM), 0 before one came; the exit status is
/// 128 + it (130, 143), as the shell reports a process the signal ended.
std::atomic<int> stop_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);  // stored from the signal handler

/// Ctrl-C (SIGINT) or SIGTERM in one process: the first asks the running engine or analysis to
/// stop (rica/interrupt.hpp; it then throws rica::interrupted, and no file is written after it:
/// rica/io.hpp), the second ends the process at once (SA_RESETHAND restores the default action).
/// Under mpirun the default action stays: one rank cannot stop alone.
void install_sigint_handler() {
  if (dist::size() > 1) return;
  struct sigaction sa {};
  sa.sa_handler = [](int sig) {
    int none = 0;
    stop_signal.compare_exchange_strong(none, sig, std::memory_order_relaxed);
    request_interrupt();
  };
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

/// The exit status of a stopped command: 128 + the signal (130 for SIGINT, also when the stop was
/// requested some other way).
int stopped_status() {
  const int sig = stop_signal.load(std::memory_order_relaxed);
  return 128 + (sig == 0 ? SIGINT : sig);
}

/// The subcommand CLI11 chose (the innermost), or `app` itself when none was recognised.
CLI::App* chosen_leaf(CLI::App& app) {
  CLI::App* leaf = &app;
  while (!leaf->get_subcommands().empty()) leaf = leaf->get_subcommands().front();
  return leaf;
}

/// What a refused command line got wrong, found once for every message below: the first free
/// word after the chosen command where it expects a subcommand, or the first unknown long option
/// of the chosen subcommand; `names` the valid ones to suggest from. Empty `word`: neither.
struct UnknownWord {
  bool subcommand = false;
  std::string word;
  std::vector<std::string> names;
};
UnknownWord unknown_word(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* leaf = chosen_leaf(app);
  UnknownWord u;
  const auto subs = leaf->get_subcommands([](CLI::App*) { return true; });
  if (!subs.empty()) {  // no (inner) subcommand recognised: the first free word after the chosen one
    u.subcommand = true;
    for (const CLI::App* sub : subs) u.names.push_back(sub->get_name());
    auto a = args.begin();
    if (leaf != &app) a = std::find(args.begin(), args.end(), leaf->get_name()) + 1;
    for (; a < args.end(); ++a)
      if (!a->empty() && (*a)[0] != '-') {
        u.word = *a;
        break;
      }
    return u;
  }
  for (const CLI::Option* o : leaf->get_options())
    for (const std::string& l : o->get_lnames()) u.names.push_back("--" + l);
  for (const std::string& a : args) {
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const std::string given = a.substr(0, a.find('='));
    if (std::find(u.names.begin(), u.names.end(), given) == u.names.end()) {
      u.word = given;
      break;
    }
  }
  return u;
}

/// For a command line CLI11 refused: "; did you mean ..." naming the nearest subcommand to an
/// unknown one, or the nearest option of the chosen subcommand to an unknown option; empty when
/// nothing is near.
std::string command_hint(CLI::App& app, const std::vector<std::string>& args) {
  const UnknownWord u = unknown_word(app, args);
  if (u.word.empty()) return "";
  const std::string n = nearest_name(u.word, u.names);
  if (n.empty()) return "";
  return u.subcommand ? fmt::format("; did you mean '{}'?", n) : fmt::format("; did you mean '{}' for '{}'?", n, u.word);
}

/// For an option of one value given more than once, under one spelling or several ("--rates 0.1
/// --rate 0.2"): a refusal naming the spellings given; empty when no option was.
std::string repeated_option(CLI::App& app, const std::vector<std::string>& args) {
  CLI::App* leaf = chosen_leaf(app);
  if (leaf == &app) return "";
  for (const CLI::Option* o : leaf->get_options()) {
    if (o->get_expected_max() != 1 || o->get_lnames().empty()) continue;
    std::vector<std::string> given;
    for (const std::string& a : args)
      for (const std::string& l : o->get_lnames())
        if (a == "--" + l || a.starts_with("--" + l + "=")) given.push_back("--" + l);
    if (given.size() < 2) continue;
    std::vector<std::string> names = given;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    if (names.size() == 1)
      return fmt::format("{} given {} times; it takes one value, give it once", names.front(), given.size());
    return fmt::format("{} are one option and exclude each other (given {} times); give one of them once",
                       fmt::join(names, " and "), given.size());
  }
  return "";
}

/// "rica run", "rica app sort": the chosen subcommand as typed ("rica" when none was recognised).
std::string command_path(CLI::App& app) {
  std::vector<std::string> names;
  for (CLI::App* a = &app; !a->get_subcommands().empty();) {
    a = a->get_subcommands().front();
    names.push_back(a->get_name());
  }
  return fmt::format("rica{}{}", names.empty() ? "" : " ", fmt::join(names, " "));
}

/// The one-line refusal of a command line CLI11 refused (what follows "rica: error: "): an unknown
/// option or subcommand named with the nearest one, e.g. "unknown option '--engien' of 'rica run';
/// did you mean '--engine'? (rica run --help)"; otherwise CLI11's words and the help to read.
std::string parse_error_text(CLI::App& app, const CLI::ParseError& e, const std::vector<std::string>& args) {
  if (std::string own = repeated_option(app, args); !own.empty()) return own;
  const std::string path = command_path(app);
  const UnknownWord u = unknown_word(app, args);
  if (u.subcommand) {
    if (!u.word.empty())
      return fmt::format("unknown subcommand {} of '{}'{} ({} --help)", quote_input(u.word), path,
                         did_you_mean(u.word, u.names), path);
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    if (!u.word.empty())
      return fmt::format("unknown option {} of '{}'{} ({} --help)", quote_input(u.word), path,
                         did_you_mean(u.word, u.names), path);
    // Words no positional takes, in the order given.
    std::vector<std::string> quoted;
    for (const std::string& w : app.remaining(true)) quoted.push_back(quote_input(w));
    if (!quoted.empty())
      return fmt::format("unexpected argument{} {} of '{}' ({} --help)", quoted.size() == 1 ? "" : "s",
                         fmt::join(quoted, " "), path, path);
  }
  return fmt::format("{}{} (see {} --help)", e.what(), command_hint(app, args), path);
}

}  // namespace

void parse_subcommand(const std::string& name, const std::vector<std::string>& args,
                      const std::function<void(CLI::App*)>& declare, const std::function<void()>& then) {
  CLI::App app{"rica"};
  CLI::App* sub = app.add_subcommand(name);
  declare(sub);
  add_config(sub);
  std::vector<std::string> argv{name};
  argv.insert(argv.end(), args.begin(), args.end());
  {  // the recorded invocation (provenance): "rica NAME ARGS..."
    std::vector<char*> words{const_cast<char*>("rica")};
    for (std::string& a : argv) words.push_back(a.data());
    set_invocation(static_cast<int>(words.size()), words.data());
  }
  argv = apply_config(app, std::move(argv));      // --config FILE, as on the command line
  std::reverse(argv.begin(), argv.end());          // CLI11 takes them last first
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    throw usage_error(parse_error_text(app, e, args));
  }
  if (then) then();
}

namespace {
[[maybe_unused]] const bool command_table_set = set_command_table(&add_all_commands);
}  // namespace

void add_all_commands(CLI::App& app, int& status) {
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
  add_record_command(app, status);
  add_replay_command(app, status);
  // Every leaf subcommand reads --config FILE (apply_config merges it before parsing).
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    const auto leaves = sub->get_subcommands([](CLI::App*) { return true; });
    if (leaves.empty()) add_config(sub);
    for (CLI::App* leaf : leaves) add_config(leaf);
  }
}

int run_command(const std::vector<std::string>& args) {
  CLI::App app{"rica"};
  app.require_subcommand(1);
  int status = 0;
  add_all_commands(app, status);
  std::vector<char*> argv{const_cast<char*>("rica")};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  set_invocation(static_cast<int>(argv.size()), argv.data());
  std::vector<std::string> words = apply_config(app, args);
  std::reverse(words.begin(), words.end());  // CLI11 takes the arguments in reverse order
  try {
    app.parse(words);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) throw usage_error("help: see rica --help (nothing was run)");
    throw usage_error(parse_error_text(app, e, args));
  }
  return status;
}

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
  add_all_commands(app, status);
  set_invocation(argc, argv);
  install_sigint_handler();
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
    const std::string text = parse_error_text(app, e, std::vector<std::string>(argv + 1, argv + argc));
    std::fprintf(stderr, "rica: error: %s\n", text.c_str());
    return 2;
  } catch (const rica::usage_error& e) {
    std::fprintf(stderr, "rica: error: %s\n", e.what());
    return 2;
  } catch (const rica::interrupted&) {
    std::fprintf(stderr, "rica: interrupted (nothing written)\n");
    return stopped_status();  // the shell's status for SIGINT (130) or SIGTERM (143)
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
  // Ctrl-C came after the last check of the flag: what was written is whole, but the run was asked to stop.
  if (interrupt_requested()) {
    std::fprintf(stderr, "rica: interrupted\n");
    return stopped_status();
  }
  // Standard output is a report too: a full device or a closed pipe is an error, not exit 0.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "rica: error: cannot write standard output: %s\n", std::strerror(errno));
    return 2;
  }
  return status;
}

}  // namespace rica::cli
