#pragma once
// The typed option table: every option of the emulated machine (the engine options) declared
// once — its name, kind, default, limits, the subcommands and the engines it applies to, its
// parser, its help text and its phrase of the console's model line. Everything else is derived:
//   - CLI11 registration and --help: add_engine_options() declares on a subcommand every entry
//     that names it, in table order, with the default of the value being filled;
//   - the engine checks: engine_config() refuses an entry given for an engine outside its scope;
//   - the recorded configuration, --config keys and the echo: option_config(), apply_config() and
//     echo_command() (config_file.hpp) read what was registered, and run_config() drops entries
//     whose scope excludes the run's engine;
//   - the model line (model_line()) and the Python keywords (option_docs(), config_file.hpp).
// The built-in entries are in engine_options.cpp; another file linked with rica::cli (a test, a
// program built in rica's tree: this header is not installed) adds one with register_option()
// during static initialisation.
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

struct EngineOptions;

/// What the model line's phrases see besides the configuration.
struct ModelContext {
  const Topology* topology = nullptr;  ///< null: several topologies (each has its own classes)
  bool window = true;                  ///< the injection window and warm-up are part of the model
};

/// One option, declared once.
struct OptionDef {
  std::string name;                   ///< long name without dashes: the config key ("buffer-words")
  OptionKind kind = OptionKind::text;
  std::string type_name;              ///< --help's value name ("UINT", "async|cycle"); "" for flags
  std::uint64_t lo = 0, hi = 0;       ///< uint: the accepted range
  std::vector<std::string> commands;  ///< subcommand paths that take it ("run", "app sort")
  EngineScope engines{};              ///< the engines it applies to
  bool shows_default = true;          ///< false: no default in --help; recorded only when given
  bool configuration = true;          ///< false: an output, not part of the recorded configuration
  std::string help;                   ///< --help's text (ranges included)
  /// Parses the text given (flags: "true") into `o`; usage_error naming --name and what it takes.
  std::function<void(EngineOptions& o, const std::string& text)> parse;
  /// The text of the value in `o`: the default --help shows and the configuration records.
  std::function<std::string(const EngineOptions& o)> show;
  /// Its phrase of the console's model line ("" or null: none), shown only on engines in scope,
  /// in the order of model_place.
  std::function<std::string(const EngineConfig& cfg, const ModelContext& ctx)> model;
  int model_place = 0;
  [[nodiscard]] std::string flag() const { return "--" + name; }
  [[nodiscard]] bool applies_to(const std::string& command) const;
};

/// Adds `def` to the table (after the built-in entries). Call during static initialisation, e.g.
/// `[[maybe_unused]] const bool added = rica::cli::register_option({...});`. Returns true.
/// RICA_ASSERT: a name no entry has yet, and a parser.
bool register_option(OptionDef def);
/// Every entry: the built-in ones (engine_options.cpp) in declaration order, then the registered.
const std::vector<const OptionDef*>& option_table();
/// The entry named `name` (without dashes), or null.
const OptionDef* find_option(const std::string& name);
/// The built-in entries (engine_options.cpp); option_table() puts them first.
const std::vector<OptionDef>& builtin_options();

/// The machine's options as parsed: the configuration being filled, the typed fault spec, and the
/// options declared (to tell given from defaulted). Owned by the command that declared them;
/// add_engine_options() binds the CLI11 options to it, so it must outlive the parse.
struct EngineOptions {
  EngineConfig cfg;
  bool no_classes = false;
  std::string faults;                 ///< --faults SPEC as given ("" = none), for reports
  std::optional<FaultSpec> fault_spec;  ///< --faults parsed once (rica/faults.hpp); unset = none
  std::map<std::string, std::string> extra;  ///< values of registered options that keep them here
  std::map<std::string, CLI::Option*> declared;
  /// True when `name` (e.g. "--cycles") was declared and given on the command line.
  [[nodiscard]] bool given(const std::string& name) const;
};

/// Declares on `c` every table entry whose commands name `c` ("run"; "app sort" for a nested one),
/// in table order, filling `o`; the defaults shown are o's values at the call.
void add_engine_options(CLI::App* c, EngineOptions& o);
/// The path of subcommand `c` as the table names it: "run", "app sort".
std::string command_path(const CLI::App* c);

/// The configuration of the parsed options: threads 0 resolved to the host's cores, classes
/// from --no-classes, then validate(). An option given for an engine outside its scope (--cycles,
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
