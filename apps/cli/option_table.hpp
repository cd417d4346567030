#pragma once
// The typed option table: every option of the emulated machine (the engine options) and the
// command-specific options of run, demo, sweep and app (traffic, rates, seeds, telemetry, the
// kernels' parameters) declared once — its name, kind, default (per subcommand where they
// differ), limits, the subcommands and the engines it applies to, its parser, its help text and
// its phrase of the console's model line. Everything else is derived:
//   - CLI11 registration and --help: add_engine_options() declares on a subcommand every entry
//     that names it, in table order, with the default of the value being filled;
//   - the engine checks: engine_config() refuses an entry given for an engine outside its scope;
//   - the recorded configuration, --config keys and the echo: option_config(), apply_config() and
//     echo_command() (config_file.hpp) read what was registered, and run_config() drops entries
//     whose scope excludes the run's engine;
//   - the model line (model_line()) and the Python keywords (option_docs(), config_file.hpp).
// The built-in entries are in engine_options.cpp (the machine) and command_options.cpp (the
// commands'); another file linked with rica::cli (a test, a program built in rica's tree: this
// header is not installed) adds one with register_option() during static initialisation.
//
// Adding a command-specific option (os, os-stream, experiment take theirs the same way):
//   1. its value: a field of CommandValues below (typed; its initialiser is the default of every
//      subcommand that does not say otherwise);
//   2. its entry: in command_options.cpp (or the command's own file, registered), built with
//      uint_value()/text_value()/file_value() or by hand (kind, type_name, parse, show); `commands`
//      names the subcommands that take it; `command_defaults` gives a subcommand its own default
//      (sweep's --warmup: a tenth of --cycles), which --help shows and the run uses;
//   3. the command calls add_engine_options() and reads o.values.FIELD after the parse.
// One name may have several entries when their subcommands are disjoint (run's --rate is one
// rate, sweep's a grid): find_option(name, command) tells them apart.
//
// Thread-safety: entries are registered before main (static initialisation, one thread); after
// that the table is read-only and may be read from any thread.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/faults.hpp"
#include "rica/topology.hpp"

namespace rica::cli {

/// Whether engine `k` keeps a virtual clock (cycles, windows, timing models, failures at a
/// cycle): its registered traits (rica/engine.hpp EngineTraits::virtual_clock).
bool has_virtual_clock(EngineKind k);

/// The engines an option applies to: those whose registered traits have `trait` (null: every
/// engine). The refusal names them, from the driver registry, never a hard-coded engine.
struct EngineScope {
  bool EngineTraits::*trait = nullptr;
  [[nodiscard]] bool operator()(EngineKind k) const { return trait == nullptr || engine_traits(k).*trait; }
  /// "the cycle engine only" (the engines with the trait), or "every engine".
  [[nodiscard]] std::string only() const;
  /// "--X applies to the cycle engine only{why}; add --engine cycle or drop --X".
  [[nodiscard]] std::string refusal(const std::string& flag, const std::string& why = "") const;
};
inline constexpr EngineScope every_engine{};
inline constexpr EngineScope clocked_engines{&EngineTraits::virtual_clock};  ///< --cycles, --warmup
inline constexpr EngineScope link_timed_engines{&EngineTraits::link_timing};  ///< --link-cycles, --timing, --arbitration
inline constexpr EngineScope router_engines{&EngineTraits::router_cycles};    ///< --router-cycles

/// What kind of value an option takes (for --help, the docs and the Python keywords).
enum class OptionKind : std::uint8_t {
  uint,    ///< an unsigned integer in [lo, hi]
  choice,  ///< one of the names of type_name ("async|cycle")
  text,    ///< a value with its own syntax (type_name: "MEAN[:SPREAD]")
  file,    ///< a file the command writes (checked before the run)
  flag,    ///< a switch (no value)
};
const char* to_string(OptionKind k) noexcept;

/// Where a command declares an entry among its own options (--help's order, the echo's, the
/// Python keywords'): a command calls add_engine_options() once per group at its place.
enum class OptionGroup : std::uint8_t {
  workload,  ///< what runs: run's traffic options, sweep's grid, an application's map
  machine,   ///< the emulated machine (the engine options)
  outputs,   ///< files beside the report: --telemetry, --trace-events
  kernel,    ///< an application kernel's parameters (app sort, app stencil)
};

struct EngineOptions;

/// What the model line's phrases see besides the configuration.
struct ModelContext {
  const Topology* topology = nullptr;  ///< null: several topologies (each has its own classes)
  bool window = true;                  ///< the injection window and warm-up are part of the model
};

/// A subcommand's own default of an entry: `set` puts it into the values (before the declaration,
/// so --help shows it, and again in engine_config() when the option is not given, so a default
/// derived from another option follows it); `help`, when not empty, is the entry's help on that
/// subcommand (it names the default: "default: --cycles / 10").
struct CommandDefault {
  std::function<void(EngineOptions& o)> set;
  std::string help;
};

/// One option, declared once.
struct OptionDef {
  std::string name;                   ///< long name without dashes: the config key ("buffer-words")
  std::vector<std::string> aliases;   ///< other long names without dashes (sweep's "rates")
  OptionKind kind = OptionKind::text;
  std::string type_name;              ///< --help's value name ("UINT", "async|cycle"); "" for flags
  std::uint64_t lo = 0, hi = 0;       ///< uint: the accepted range
  std::vector<std::string> commands;  ///< subcommand paths that take it ("run", "app sort")
  EngineScope engines{};              ///< the engines it applies to
  bool shows_default = true;          ///< false: no default in --help; recorded only when given
  bool configuration = true;          ///< false: an output, not part of the recorded configuration
  std::string help;                   ///< --help's text (ranges included)
  /// Per subcommand path, its own default where it differs from the values' initialiser.
  std::map<std::string, CommandDefault> command_defaults;
  /// Another entry's name this one does not apply with (run's traffic options and --app): both
  /// given is refused (check_not_with), and this one is left out of the configuration.
  std::string not_with;
  OptionGroup group = OptionGroup::machine;
  /// Parses the text given (flags: "true") into `o`; usage_error naming --name and what it takes.
  std::function<void(EngineOptions& o, const std::string& text)> parse;
  /// The text of the value in `o`: the default --help shows and the configuration records.
  std::function<std::string(const EngineOptions& o)> show;
  /// Its phrase of the console's model line ("" or null: none), shown only on engines in scope,
  /// in the order of model_place.
  std::function<std::string(const EngineConfig& cfg, const ModelContext& ctx)> model;
  int model_place = 0;
  [[nodiscard]] std::string flag() const { return "--" + name; }
  /// The CLI11 name list: "--rate,--rates".
  [[nodiscard]] std::string cli_names() const;
  [[nodiscard]] bool applies_to(const std::string& command) const;
};

/// Adds `def` to the table (after the built-in entries). Call during static initialisation, e.g.
/// `[[maybe_unused]] const bool added = rica::cli::register_option({...});`. Returns true.
/// RICA_ASSERT: a parser; a name (or alias) that no entry of a shared subcommand has yet (aborts
/// otherwise, in every build).
bool register_option(OptionDef def);
/// Every entry: the built-in ones (engine_options.cpp, then command_options.cpp) in declaration
/// order, then the registered.
const std::vector<const OptionDef*>& option_table();
/// The entry named `name` (without dashes; an alias too) that subcommand `command` takes ("":
/// the first of that name), or null.
const OptionDef* find_option(const std::string& name, const std::string& command = "");
/// The built-in entries of the machine (engine_options.cpp); option_table() puts them first.
const std::vector<OptionDef>& builtin_options();
/// The built-in command-specific entries (command_options.cpp); option_table() puts them next.
const std::vector<OptionDef>& command_options();

/// The values of the command-specific entries (command_options.cpp), filled by their parsers as
/// `EngineOptions::cfg` is by the machine's; each initialiser is the default of every subcommand
/// without its own (OptionDef::command_defaults). A command reads the fields of the entries it
/// declares.
struct CommandValues {
  // run, demo: the workload
  std::string traffic = defaults::traffic::pattern;  ///< --traffic (run, demo, sweep)
  std::string app;                                   ///< --app: an application instead of traffic
  double rate = defaults::traffic::rate;             ///< --rate (run, demo): one rate
  std::optional<std::uint64_t> packets;              ///< --packets; unset: async 200 per PE, cycle the window
  unsigned source_queue = defaults::traffic::backlog;  ///< --source-queue (run, demo, sweep)
  double burst_on = 0, burst_off = 0;                ///< --burst ON:OFF (0: not bursty)
  unsigned seeds = 1;                                ///< --seeds (run, demo, sweep)
  // run, demo: outputs beside the report
  std::optional<std::uint64_t> telemetry;            ///< --telemetry W
  bool telemetry_links = false;                      ///< --telemetry-links: the per-link table too
  std::string trace_events;                          ///< --trace-events FILE
  std::uint64_t trace_events_packets = defaults::trace_events::packets;
  // sweep
  std::vector<double> rates;                         ///< --rate/--rates grid (sweep's default: defaults::sweep::rates)
  bool auto_rates = false;                           ///< --rate auto: placed by the channel-load bound
  /// sweep --routing A,B,...: one series per routing (empty: cfg.routing alone); never seeds.
  std::vector<Routing> routings;
  // app sort, app stencil
  std::string map = defaults::apps::map;
  std::string pgrid;
  std::string algorithm = defaults::apps::sort_algorithm;
  std::uint64_t keys = defaults::apps::sort_keys;
  std::string keys_file, distribution = "uniform";
  unsigned keys_per_packet = defaults::apps::keys_per_packet;
  unsigned samples = defaults::apps::sort_samples;
  std::string grid = defaults::apps::stencil_grid;
  unsigned points = defaults::apps::stencil_points;
  unsigned iterations = defaults::apps::stencil_iterations;
  unsigned values_per_packet = defaults::apps::values_per_packet;
  std::string boundary = "periodic";
};

/// The table's options as parsed: the machine's configuration being filled, the typed fault spec,
/// the command-specific values, and the options declared (to tell given from defaulted). Owned by
/// the command that declared them; add_engine_options() binds the CLI11 options to it, so it must
/// outlive the parse.
struct EngineOptions {
  EngineConfig cfg;
  CommandValues values;
  bool no_classes = false;
  std::string faults;                 ///< --faults SPEC as given ("" = none), for reports
  std::optional<FaultSpec> fault_spec;  ///< --faults parsed once (rica/faults.hpp); unset = none
  std::map<std::string, std::string> extra;  ///< values of registered options that keep them here
  std::map<std::string, CLI::Option*> declared;
  std::string command;  ///< the subcommand path add_engine_options() declared them on ("run")
  /// True when `name` (e.g. "--cycles") was declared and given on the command line.
  [[nodiscard]] bool given(const std::string& name) const;
};

// ---- Entry builders for command-specific values (command_options.cpp; usable by any file) -------
/// An unsigned field in [lo, hi]; help gets " [lo..hi]"; an optional field shows no default.
OptionDef uint_value(std::string name, unsigned CommandValues::*field, std::uint64_t lo, std::uint64_t hi,
                     std::string help, std::vector<std::string> commands);
OptionDef uint_value(std::string name, std::uint64_t CommandValues::*field, std::uint64_t lo, std::uint64_t hi,
                     std::string help, std::vector<std::string> commands);
OptionDef uint_value(std::string name, std::optional<std::uint64_t> CommandValues::*field, std::uint64_t lo,
                     std::uint64_t hi, std::string help, std::vector<std::string> commands);
/// A non-empty text field whose meaning its owner checks; `accepted` completes the refusal of "".
OptionDef text_value(std::string name, std::string CommandValues::*field, std::string help, std::string accepted,
                     std::vector<std::string> commands);
/// A file the command writes (checked before the run, rica/io.hpp check_output_file); not
/// configuration. "-" is standard output when `stdout_ok`.
OptionDef file_value(std::string name, std::string CommandValues::*field, std::string help,
                     std::vector<std::string> commands, bool stdout_ok = false);

/// Refuses (usage_error) an entry given together with the one its not_with names:
/// "--rate does not apply to --app runs; drop --rate or --app".
void check_not_with(const EngineOptions& o);
/// The entries of o's command that do not apply because the one they name in not_with is given.
std::vector<const OptionDef*> not_applying(const EngineOptions& o);

/// Declares on `c` every table entry whose commands name `c` ("run"; "app sort" for a nested one),
/// group by group (workload, machine, outputs, kernel), in table order within a group, filling
/// `o`; the defaults shown are o's values at the call, after the command's own defaults.
void add_engine_options(CLI::App* c, EngineOptions& o);
/// The same for the entries of one group: a command with options of its own between the groups.
void add_engine_options(CLI::App* c, EngineOptions& o, OptionGroup group);
/// The path of subcommand `c` as the table names it: "run", "app sort".
std::string command_path(const CLI::App* c);

/// The configuration of the parsed options: the command's derived defaults of options not given
/// (OptionDef::command_defaults), threads 0 resolved to the host's cores, classes from
/// --no-classes, then validate(). An option given for an engine outside its scope (--cycles,
/// --warmup, --link-cycles, --timing, --arbitration, --router-cycles with --engine async) is
/// refused, one line.
EngineConfig engine_config(const EngineOptions& o);

/// The topology a run uses: `t` with the faults of --faults applied (drawn from cfg.seed), or `t`
/// itself. Refuses (usage_error, exit 2) a fault set that disconnects the PEs, at=CYCLE with an
/// engine without a virtual clock or with a routing other than deterministic.
Topology faulty_topology(const Topology& t, const EngineOptions& o, const EngineConfig& cfg);

/// "--link-cycles" text of cfg: degree, words or N.
std::string link_cycles_text(const EngineConfig& cfg);

/// The console header's model settings: the table entries' phrases for cfg's engine (engine,
/// timing, link time, arbitration, router, window, routing, buffers, packets, classes). `t` null:
/// several topologies, the class count is each one's own.
std::string model_line(const EngineConfig& cfg, const Topology* t, bool window = true);

}  // namespace rica::cli
