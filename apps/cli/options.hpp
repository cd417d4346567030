#pragma once
// One parser and one validation per option concept, shared by every subcommand of the rica CLI.
// Each add_* function declares the option on a CLI11 subcommand with its help text, its default
// (include/rica/defaults.hpp) and its accepted range; the value is parsed and checked while the
// command line is parsed, so a bad value fails (usage_error: one line naming the option and what
// is accepted, exit 2) before any work starts. Unsigned options never wrap: "-1", "1e23", "" and
// values above the documented bound (defaults::limits) are refused.

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rica/engine.hpp"

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
/// (checked at parse time, before the run; rica/io.hpp check_output_file).
CLI::Option* add_output_file(CLI::App* c, const std::string& name, std::string& target, const std::string& help);
/// A directory the command writes into: non-empty, not an existing non-directory (checked at
/// parse time); the command calls prepare_output_dir() before its first run.
CLI::Option* add_output_dir(CLI::App* c, const std::string& name, std::string& target, const std::string& help);

// ---- Option concepts (one each; every subcommand that has the concept uses these) -------------
CLI::Option* add_engine(CLI::App* c, EngineKind& target);
CLI::Option* add_timing(CLI::App* c, Timing& target);
CLI::Option* add_arbitration(CLI::App* c, Arbitration& target);
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
/// (0, 1]; no empty element.
CLI::Option* add_rates(CLI::App* c, const std::string& name, std::vector<double>& target, const std::string& help);
/// --jobs: runs at once, [0, 1024] (0 = cores / threads per run).
CLI::Option* add_jobs(CLI::App* c, unsigned& target, const std::string& help);

// ---- The engine options of a subcommand, resolved into an EngineConfig -------------------------
/// Which engine options a subcommand offers.
enum EngineOption : unsigned {
  opt_engine = 1u << 0,       ///< --engine
  opt_timing = 1u << 1,       ///< --timing, --arbitration
  opt_threads = 1u << 2,      ///< --threads
  opt_seed = 1u << 3,         ///< --seed
  opt_buffers = 1u << 4,      ///< --buffer-words
  opt_packet_words = 1u << 5, ///< --packet-words
  opt_link_cycles = 1u << 6,  ///< --link-cycles
  opt_schedule = 1u << 7,     ///< --batch, --block
  opt_window = 1u << 8,       ///< --cycles, --warmup
  opt_classes = 1u << 9,      ///< --no-classes
  opt_trace = 1u << 10,       ///< --trace
};

/// Parsed engine options: the configuration being filled, and the options declared (to tell
/// given from defaulted).
struct EngineOptions {
  EngineConfig cfg;
  bool no_classes = false;
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

/// "--link-cycles" text of cfg: degree, words or N.
std::string link_cycles_text(const EngineConfig& cfg);

/// The options that reproduce cfg's engine configuration exactly: --engine, the cycle engine's
/// --cycles/--warmup/--link-cycles/--timing/--arbitration (cycle engine only), --threads, --seed,
/// --buffer-words, --packet-words, --batch, --block, --no-classes, --trace.
std::string engine_echo(const EngineConfig& cfg);

}  // namespace rica::cli
