#pragma once
// One parser and one validation per option concept, shared by every subcommand of the rica CLI.
// The options of the emulated machine are declared once in the option table (option_table.hpp);
// this header adds the generic kinds other options are declared with, the concepts several
// subcommands share outside the table, and the shared presentation options. Each add_* function
// declares the option on a CLI11 subcommand with its help text, its default
// (include/rica/defaults.hpp) and its accepted range; the value is parsed and checked while the
// command line is parsed, so a bad value fails (usage_error: one line naming the option and what
// is accepted, exit 2) before any work starts. Unsigned options never wrap: "-1", "1e23", "" and
// values above the documented bound (defaults::limits) are refused.
//
// --seeds, --source-queue, --burst, --traffic, --telemetry (run, demo, os) and run's
// --trace-events are option table entries (command_options.cpp); add_trace_events() below serves
// the command not yet in the table (rica os).
//
// The rest of the CLI's shared parts have their own headers, included here for the commands:
// config_file.hpp (provenance, --config, the recorded configuration, the echo), statistics.hpp
// (seeds, confidence intervals), rica/footprint.hpp (the memory guard), distributed_report.hpp (runs over MPI ranks).

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config_file.hpp"
#include "distributed_report.hpp"
#include "option_table.hpp"
#include "rica/engine.hpp"
#include "rica/footprint.hpp"
#include "rica/progress.hpp"
#include "rica/registry.hpp"
#include "rica/topology.hpp"
#include "statistics.hpp"

namespace rica::cli {

// ---- Generic kinds --------------------------------------------------------------------------
/// An unsigned integer in [lo, hi]; help gets " [default: D; lo..hi]".
CLI::Option* add_uint(CLI::App* c, const std::string& name, std::uint64_t& target, std::uint64_t lo,
                      std::uint64_t hi, const std::string& help);
CLI::Option* add_uint(CLI::App* c, const std::string& name, unsigned& target, std::uint64_t lo, std::uint64_t hi,
                      const std::string& help);
/// The same, unset unless given.
CLI::Option* add_uint(CLI::App* c, const std::string& name, std::optional<std::uint64_t>& target, std::uint64_t lo,
                      std::uint64_t hi, const std::string& help);
/// A comma list of unsigned integers, each in [lo, hi]; no empty element.
CLI::Option* add_uint_list(CLI::App* c, const std::string& name, std::vector<std::uint64_t>& target,
                           std::uint64_t lo, std::uint64_t hi, const std::string& help);
/// A comma list of non-empty names (at least one); the owner checks the names themselves.
CLI::Option* add_name_list(CLI::App* c, const std::string& name, std::vector<std::string>& target,
                           const std::string& help);
/// A non-empty text value (a name or spec whose meaning the owner checks); repeatable when
/// `target` is a vector (each value non-empty). `accepted` completes the refusal of "".
CLI::Option* add_text(CLI::App* c, const std::string& name, std::string& target, const std::string& help,
                      const std::string& accepted);
CLI::Option* add_text(CLI::App* c, const std::string& name, std::vector<std::string>& target,
                      const std::string& help, const std::string& accepted);
/// A file the command writes: non-empty, not a directory, in an existing writable directory
/// (checked at parse time, before the run; rica/io.hpp check_output_file). "-" is standard output
/// when `stdout_ok` (the help says so), else refused: never a file called "-".
CLI::Option* add_output_file(CLI::App* c, const std::string& name, std::string& target, const std::string& help,
                             bool stdout_ok = false);
/// One output of a command: the option that names it (e.g. "--json", "--out (sweep.csv)") and its
/// path, "-" for standard output, "" when not asked for.
struct Output {
  std::string option, path;
};
/// Refuses (usage_error naming both options) two outputs that would overwrite or interleave each
/// other: both standard output, or the same file (resolved paths compared: weakly_canonical, and
/// std::filesystem::equivalent when both exist). Devices (/dev/null, ...) may be shared. Every
/// command with more than one output calls it with all of them before its work.
void check_distinct_outputs(const std::vector<Output>& outputs);
/// The outputs `files` that a command writes into directory `dir` (option "--out"), for
/// check_distinct_outputs: "--out (NAME)" each; none when `dir` is empty.
std::vector<Output> dir_outputs(const std::string& dir, const std::vector<std::string>& files);
/// A directory the command writes into: non-empty, not an existing non-directory (checked at
/// parse time); the command calls prepare_output_dir() before its first run.
CLI::Option* add_output_dir(CLI::App* c, const std::string& name, std::string& target, const std::string& help);


// ---- Option concepts (one each; every subcommand that has the concept uses these) -------------
/// --routing of `rica route` (the machine's --routing is an option table entry; whether the
/// topology offers it is checked when the path is walked).
CLI::Option* add_routing(CLI::App* c, Routing& target);
CLI::Option* add_threads(CLI::App* c, unsigned& target, const std::string& help = "Worker threads (0 = all cores)");
CLI::Option* add_seed(CLI::App* c, std::uint64_t& target, const std::string& help = "Seed of every random choice");
/// --cycles of a command outside the option table (rica experiment): [1, 2^31], unset unless given.
CLI::Option* add_cycles(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help);
/// --packets per PE: [1, 10^9].
CLI::Option* add_packets(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help);
CLI::Option* add_packets(CLI::App* c, std::uint64_t& target, const std::string& help);
/// --rate: one injection rate in (0, 1].
CLI::Option* add_rate(CLI::App* c, double& target);
/// A rate grid: FROM:TO:STEP (at most defaults::limits::rates points) or a comma list, each in
/// (0, 1]; no empty element. With `auto_rates`, also "auto" (sets *auto_rates; the owner places
/// the rates, rica sweep by the channel-load bound).
CLI::Option* add_rates(CLI::App* c, const std::string& name, std::vector<double>& target, const std::string& help,
                       bool* auto_rates = nullptr);
/// Refuses (usage_error, one line) an async window below defaults::telemetry::async_min_window_us.
void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine);
/// --trace-events FILE and --trace-events-packets N (rica/trace_events.hpp), checked like every output file.
void add_trace_events(CLI::App* c, std::string& path, std::uint64_t& packets);
/// --trace-events needs the cycle engine: usage_error otherwise.
void check_trace_events(const std::string& path, EngineKind engine);
/// --jobs: runs at once, [0, 1024] (0 = cores / threads per run).
CLI::Option* add_jobs(CLI::App* c, unsigned& target, const std::string& help);


// ---- Shared presentation options ---------------------------------------------------------------
/// --quiet: no progress, no echo, no header (results still written). --quiet and --progress
/// exclude each other on every subcommand that has both (whichever is declared second says so).
CLI::Option* add_quiet(CLI::App* c, bool& target);
/// --json FILE: the command's JSON report; '-' writes it to standard output.
CLI::Option* add_json(CLI::App* c, std::string& target, const std::string& help);
/// Whether a command prints its text report: not when the JSON (or `other`, another output such
/// as --trace) goes to standard output, and not with --quiet when a JSON file holds the results.
inline bool show_text(bool quiet, const std::string& json, const std::string& other = "") {
  return json != "-" && other != "-" && (!quiet || json.empty());
}
/// Host threads a serial-or-parallel analysis command uses for --threads N (0 = all cores); the
/// returned guard limits oneTBB to them while it lives.
struct ThreadLimit {
  explicit ThreadLimit(unsigned requested);
  ~ThreadLimit();
  ThreadLimit(const ThreadLimit&) = delete;
  ThreadLimit& operator=(const ThreadLimit&) = delete;
  unsigned threads;  ///< resolved (>= 1)
 private:
  void* control_;
};
/// Writes `j` (2-space indent, newline) to `path`, or to standard output when `path` is "-".
void write_json(const std::string& path, const nlohmann::json& j);

// ---- Memory guard: every command, from the spec, before it builds or allocates (issue 28) ------
// Footprint, topo/bound/partition/embed_footprint, check_memory_for and check_run_memory are the
// library's (rica/footprint.hpp): the typed requests apply the same guard.

// ---- Progress: the one progress display of every long-running command ------------------------
/// --progress: show progress even when standard error is not a terminal.
CLI::Option* add_progress(CLI::App* c, bool& target);
/// Progress (the one display of every long-running command) is rica::Progress, rica/progress.hpp.
using rica::Progress;
using rica::duration_text;


/// "a, b, c": a registry's names (name, doc pairs), so a help text stays true as entries register.
std::string registered(const std::vector<std::pair<std::string, std::string>>& entries);

}  // namespace rica::cli
