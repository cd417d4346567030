#pragma once
// The CLI's subcommands as functions that return data instead of printing (used by the Python
// module, python/module.cpp). Each takes the subcommand's arguments exactly as on the command line
// (without "rica" and the subcommand's name), declares them with the subcommand's own option
// parsers (options.hpp) and so accepts and refuses exactly what the CLI does: a bad value throws
// usage_error with the CLI's one-line message (what `rica` prints after "rica: error: ").
// Nothing is printed; no progress line. Thread-safe for different calls once registration is over.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/telemetry.hpp"
#include "rica/topology.hpp"
#include "sweep.hpp"

namespace CLI {
class App;
}

namespace rica::cli {

/// `rica topo SPEC [--samples N] [--seed S] [--all-pairs]`: the measures as `--json` prints them.
nlohmann::json topo_json(const std::vector<std::string>& args);
/// `rica route SPEC SRC DST`: the path as `--json` prints it.
nlohmann::json route_json(const std::vector<std::string>& args);

/// One `rica run` (every option of `rica run` but --quiet): the run's figures and tables.
struct RunOutcome {
  Topology topology;
  EngineConfig config;  ///< resolved (threads 0 -> cores)
  RunStats stats;
  nlohmann::json json;  ///< what `rica run --json` writes
  int status = 0;       ///< the CLI's exit status: 0, 1 (conservation or verification failed), 3 deadlock
  /// --telemetry W: the first seed's run over time (rica/telemetry.hpp); null without it.
  std::shared_ptr<const Telemetry> telemetry;
};
RunOutcome run_outcome(const std::vector<std::string>& args);

/// `rica sweep SPEC... [options]`: the points, in the CLI's order; the CLI's files too when --out
/// or --json is given (nothing is printed).
std::vector<experiments::SweepPoint> sweep_points(const std::vector<std::string>& args);

/// `rica os-stream SPEC --jobs ... [options]` without --out/--json: the JSON `--json` writes.
nlohmann::json os_stream_json(const std::vector<std::string>& args);

/// `rica embed|partition|bound ARGS` without --json/--quiet: the CLI's parsers into the typed
/// library request (rica/request/embed.hpp, partition.hpp, bound.hpp), its run, and the JSON
/// `--json` writes (provenance and figures). Refusals as the CLI's; Ctrl-C: rica::interrupted.
nlohmann::json embed_json(const std::vector<std::string>& args);
nlohmann::json partition_json(const std::vector<std::string>& args);
nlohmann::json bound_json(const std::vector<std::string>& args);
/// `rica experiment NAME ARGS` without --json/--quiet/--progress/--list: the request
/// (rica/request/experiment.hpp) run, its files written to --out (and its figures unless
/// --no-plot), and the JSON `--json` writes. Refusals as the CLI's; Ctrl-C: rica::interrupted.
nlohmann::json experiment_json(const std::vector<std::string>& args);

/// Any subcommand in this process: `args` as after "rica" (the subcommand first), --config
/// merged as on the command line. What the command writes (--json FILE, --out DIR) is the result;
/// give --quiet to print nothing. Refusals throw usage_error with the CLI's one-line text; a
/// stopped run (rica/interrupt.hpp) throws rica::interrupted. Returns the exit status the CLI
/// would (0, 1 failed checks, 3 deadlock). Sets the recorded invocation (provenance): one call at
/// a time.
int run_command(const std::vector<std::string>& args);

/// Parses `args` as subcommand `name` whose options `declare` adds; CLI11's parse errors become
/// usage_error with the CLI's text ("... (see rica --help)"). `then` runs after the parse while the
/// subcommand still exists (options that remember their CLI::App or CLI::Option need it alive).
void parse_subcommand(const std::string& name, const std::vector<std::string>& args,
                      const std::function<void(CLI::App*)>& declare, const std::function<void()>& then = {});

}  // namespace rica::cli
