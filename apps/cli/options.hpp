#pragma once
// One parser and one validation per option concept, shared by every subcommand of the rica CLI.
// Each add_* function declares the option on a CLI11 subcommand with its help text, its default
// (include/rica/defaults.hpp) and its accepted range; the value is parsed and checked while the
// command line is parsed, so a bad value fails (usage_error: one line naming the option and what
// is accepted, exit 2) before any work starts. Unsigned options never wrap: "-1", "1e23", "" and
// values above the documented bound (defaults::limits) are refused.

#include <CLI/CLI.hpp>

#include <chrono>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/footprint.hpp"
#include "rica/progress.hpp"
#include "rica/registry.hpp"
#include "rica/topology.hpp"

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
CLI::Option* add_engine(CLI::App* c, EngineKind& target);
CLI::Option* add_timing(CLI::App* c, Timing& target);
CLI::Option* add_arbitration(CLI::App* c, Arbitration& target);
/// --router-cycles R: the cycle engine's router pipeline per hop, [0, 65536] (0: none)
CLI::Option* add_router_cycles(CLI::App* c, unsigned& target);
/// --routing deterministic|adaptive (whether the topology offers it: checked when the machine is
/// built, usage_error naming the routings it offers).
CLI::Option* add_routing(CLI::App* c, Routing& target);
CLI::Option* add_threads(CLI::App* c, unsigned& target, const std::string& help = "Worker threads (0 = all cores)");
CLI::Option* add_seed(CLI::App* c, std::uint64_t& target, const std::string& help = "Seed of every random choice");
CLI::Option* add_buffer_words(CLI::App* c, unsigned& target);
/// --packet-words MEAN[:SPREAD]: mean in [1, 255], spread below the mean.
CLI::Option* add_packet_words(CLI::App* c, EngineConfig& target);
/// --link-cycles degree|words|N, N in [1, 65536].
CLI::Option* add_link_cycles(CLI::App* c, EngineConfig& target);
CLI::Option* add_batch(CLI::App* c, unsigned& target);
/// --block: a power of two in [1, 64].
CLI::Option* add_block(CLI::App* c, unsigned& target);
/// --cycles: the injection window, [1, 2^31].
CLI::Option* add_cycles(CLI::App* c, std::uint64_t& target, const std::string& help = "Injection window in cycles");
CLI::Option* add_cycles(CLI::App* c, std::optional<std::uint64_t>& target, const std::string& help);
/// --warmup: [0, 2^31 - 1]; engine_config() checks it is below --cycles.
CLI::Option* add_warmup(CLI::App* c, std::uint64_t& target);
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
/// --source-queue N: packets a source may hold waiting before it stops generating, [0, 2^20]
/// (0 = unbounded; the owner refuses 0 on the async engine).
CLI::Option* add_source_queue(CLI::App* c, unsigned& target);
/// --burst ON:OFF: on/off sources, mean period lengths in injection opportunities (reals >= 1).
CLI::Option* add_burst(CLI::App* c, double& on, double& off);
/// --seeds K: runs per point with seeds seed, seed+1, ..., seed+K-1, [1, 1000]; figures are
/// reported as mean and 95% confidence interval.
CLI::Option* add_seeds(CLI::App* c, unsigned& target);
/// Refuses (usage_error naming --seed/--seeds) seeds whose last, seed + seeds - 1, does not fit in
/// 64 bits: the runs would wrap to seed 0. Every command with --seeds calls it before its runs.
void check_seeds(std::uint64_t seed, unsigned seeds);
/// The two-sided 95% Student t quantile for `df` degrees of freedom (df >= 1; 1.96 beyond 30).
double student_t95(std::size_t df);
/// Mean and 95% confidence half-width (Student t) of `v` (half-width 0 for fewer than 2 values).
std::pair<double, double> mean_ci95(const std::vector<double>& v);
/// --telemetry W: telemetry over time per window of W cycles, or W microseconds on the async
/// engine (rica/telemetry.hpp), [1, 2^31]; unset unless given. The owner checks it (check_telemetry).
CLI::Option* add_telemetry(CLI::App* c, std::optional<std::uint64_t>& target);
/// Refuses (usage_error, one line) an async window below defaults::telemetry::async_min_window_us.
void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine);
/// --trace-events FILE and --trace-events-packets N (rica/trace_events.hpp), checked like every output file.
void add_trace_events(CLI::App* c, std::string& path, std::uint64_t& packets);
/// --trace-events needs the cycle engine: usage_error otherwise.
void check_trace_events(const std::string& path, EngineKind engine);
/// --jobs: runs at once, [0, 1024] (0 = cores / threads per run).
CLI::Option* add_jobs(CLI::App* c, unsigned& target, const std::string& help);

// ---- The engine options of a subcommand, resolved into an EngineConfig -------------------------
/// Which engine options a subcommand offers.
enum EngineOption : unsigned {
  opt_engine = 1u << 0,       ///< --engine
  opt_timing = 1u << 1,       ///< --timing, --arbitration, --router-cycles
  opt_threads = 1u << 2,      ///< --threads
  opt_seed = 1u << 3,         ///< --seed
  opt_buffers = 1u << 4,      ///< --buffer-words
  opt_packet_words = 1u << 5, ///< --packet-words
  opt_link_cycles = 1u << 6,  ///< --link-cycles
  opt_schedule = 1u << 7,     ///< --batch, --block
  opt_window = 1u << 8,       ///< --cycles, --warmup
  opt_classes = 1u << 9,      ///< --no-classes
  opt_trace = 1u << 10,       ///< --trace
  opt_faults = 1u << 11,      ///< --faults
  opt_routing = 1u << 12,     ///< --routing
};

/// Parsed engine options: the configuration being filled, and the options declared (to tell
/// given from defaulted).
struct EngineOptions {
  EngineConfig cfg;
  bool no_classes = false;
  std::string faults;  ///< --faults SPEC ("" = none), rica/faults.hpp
  std::map<std::string, CLI::Option*> declared;
  /// True when `name` (e.g. "--cycles") was declared and given on the command line.
  [[nodiscard]] bool given(const std::string& name) const;
};

/// Declares the engine options `which` (EngineOption bits) on `c`, filling `o`.
void add_engine_options(CLI::App* c, EngineOptions& o, unsigned which);

/// The configuration of the parsed options: threads 0 resolved to the host's cores, classes
/// from --no-classes, then validate(). Options the chosen engine ignores (--cycles, --warmup,
/// --link-cycles, --timing, --arbitration with --engine async) are refused, one line each.
EngineConfig engine_config(const EngineOptions& o);

/// The topology a run uses: `t` with the faults of --faults applied (drawn from cfg.seed), or `t`
/// itself. Refuses (usage_error, exit 2) a bad spec or file, a fault set that disconnects the PEs,
/// and at=CYCLE with the async engine.
Topology faulty_topology(const Topology& t, const EngineOptions& o, const EngineConfig& cfg);

/// "--link-cycles" text of cfg: degree, words or N.
std::string link_cycles_text(const EngineConfig& cfg);

/// The options that reproduce cfg's engine configuration exactly: --engine, the cycle engine's
/// --cycles/--warmup/--link-cycles/--timing/--arbitration (cycle engine only), --threads, --seed,
/// --buffer-words, --packet-words, --batch, --block, --no-classes, --trace.
std::string engine_echo(const EngineConfig& cfg);

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

// ---- Runs over MPI ranks (docs/distributed.md) ---------------------------------------------------
/// The "distributed" block of a run's JSON: ranks, threads per rank, the split, links cut
/// between ranks and the hops over them. Only for runs over more than one rank (RunStats::ranks).
nlohmann::json distributed_json(const RunStats& st, const EngineConfig& cfg);
/// The same as a console line: "ranks         R ranks x T threads, ...".
void print_distributed(const RunStats& st, const EngineConfig& cfg);

// ---- Provenance and configuration files (docs: docs/reference.md "Configuration and provenance") -------
/// Records the command line and the start time; main calls it once, before parsing.
void set_invocation(int argc, char** argv);
/// The command line as given, each word shell-quoted ("rica run torus:4x4 --rate 0.1").
std::string command_line();
/// When set_invocation ran, ISO 8601 UTC ("2026-11-23T07:37:23Z").
std::string start_time();
/// `word` quoted for a POSIX shell when it needs it.
std::string shell_quote(const std::string& word);

/// --config FILE and --strict-config on c. The file is read by apply_config() before parsing; this
/// declaration documents the options.
CLI::Option* add_config(CLI::App* c);
/// `args` (argv without the program) with the options of `--config FILE` added that the command
/// line does not give (the command line overrides the file). FILE is JSON (or TOML when it ends in
/// .toml: top-level `key = value` lines, the same keys): an object whose keys
/// are the subcommand's option names without the leading dashes, dashed or snake_case
/// ("buffer-words" or "buffer_words"; positionals by name), or a rica JSON report of any
/// subcommand (its "config" object is used). Keys another subcommand takes are listed on one stderr
/// line and skipped; with --strict-config on the command line they are refused. A value is a string, a number, a boolean (flags) or an array
/// (a repeated option, or several positionals); null is skipped. Unknown keys, non-JSON text and
/// other value kinds are refused (usage_error naming --config and the key, with the nearest key).
std::vector<std::string> apply_config(CLI::App& app, std::vector<std::string> args);
/// Every option key of every subcommand (long names without dashes, positional names), sorted:
/// apply_config skips a key of another subcommand (listed on stderr) and refuses one no
/// subcommand takes. Built once from the command table (set_command_table), thread-safe; empty
/// without one (then every key a command does not take is refused).
const std::vector<std::string>& config_keys();
/// The function that declares every subcommand (add_all_commands, commands.hpp), for
/// config_keys(); cli_main.cpp sets it during static initialisation. Returns true.
bool set_command_table(void (*add_all)(CLI::App&, int&));
/// The configuration of parsed subcommand `c`: every option that shapes the result, keyed as for
/// --config, the given value or the default (options without a default and not given are left
/// out). Outputs and presentation (--json, --csv, --trace, --telemetry, --dot, --out, --quiet, --progress,
/// --no-plot, --config) are not configuration. Integers and decimals become JSON numbers.
nlohmann::json option_config(const CLI::App* c);
/// The command line that runs `c` with `config`: "rica <path> <positionals> --key value ...".
std::string echo_command(const CLI::App* c, const nlohmann::json& config);
/// The provenance block every JSON report carries: rica_version, command_line, start_time,
/// seed, threads (host threads actually used) and config.
nlohmann::json provenance(const nlohmann::json& config, std::uint64_t seed, unsigned threads);
/// The console header's model settings: engine, timing, link time, arbitration (cycle engine),
/// buffer and packet words, buffer classes; the injection window and warm-up when `window`.
/// `t` null: several topologies, the class count is each one's own.
std::string model_line(const EngineConfig& cfg, const Topology* t, bool window = true);

}  // namespace rica::cli
