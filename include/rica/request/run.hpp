#pragma once
// `rica run` as a library request: one workload — a traffic pattern or an application — on one
// topology, the first seed's run observed (telemetry over time, the trace-viewer export) and
// seeds seed+1 .. seed+K-1 run again for means and 95% intervals. The CLI (apps/cli/run_commands.cpp)
// parses its options into a request::Run, echoes prepare()'s resolved plan, runs it and presents
// the outcome; Python (rica.run) and C++ callers get the same checks. Implemented in
// rica::experiments (apps/experiments/run_request.cpp), which knows the traffic patterns and
// the application registry.
//
// Thread-safety: a request and its plan belong to the caller; run() uses cfg.threads workers and
// may be called from any one thread at a time per plan.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/faults.hpp"
#include "rica/telemetry.hpp"
#include "rica/topology.hpp"
#include "rica/trace_events.hpp"

namespace rica::request {

struct Run {
  std::string topology;                              ///< a topology spec (see `rica list`)
  std::string traffic = defaults::traffic::pattern;  ///< a pattern, matrix:FILE or trace:FILE
  std::string app;                                   ///< an application spec instead of traffic ("" = traffic)
  double rate = defaults::traffic::rate;             ///< injection probability per PE per opportunity, (0, 1]
  std::optional<std::uint64_t> packets;              ///< per PE; unset: the window (cycle), 200 (async)
  unsigned source_queue = defaults::traffic::backlog;  ///< 0 = unbounded (engines with a clock only)
  double burst_on = 0, burst_off = 0;                ///< on/off sources' mean periods (0 = not bursty)
  unsigned seeds = 1;                                ///< runs with seeds seed .. seed+seeds-1
  EngineConfig engine;                               ///< the machine (validated by rica::validate)
  std::optional<FaultSpec> faults;                   ///< failed links and nodes, drawn from engine.seed
  bool cycles_given = false;  ///< false: a replayed trace sets the window to its last injection
  std::optional<std::uint64_t> telemetry;            ///< window W (cycles, or us on the async engine)
  bool telemetry_links = false;                      ///< with telemetry: the per-link table too
  std::string trace_events;                          ///< a trace-viewer file is wanted ("" = none)
  std::uint64_t trace_events_packets = defaults::trace_events::packets;
};

/// A request resolved and checked, ready to run: what the echo and the header show.
struct RunPlan {
  Topology topology;             ///< with the faults applied
  EngineConfig engine;           ///< resolved: a replayed trace's window
  std::uint64_t packets = 0;     ///< per PE, resolved
  std::string traffic;           ///< the canonical traffic spec ("" for an application)
  std::shared_ptr<App> app;      ///< the first seed's workload
  std::function<std::unique_ptr<App>(std::uint64_t seed)> make;  ///< the workload of another seed
  std::shared_ptr<Telemetry> telemetry;       ///< null without a window
  std::shared_ptr<TraceEvents> trace_events;  ///< null without a trace-viewer file
};

struct RunOutcome {
  RunPlan plan;
  RunStats stats;              ///< the first seed's run
  std::vector<RunStats> more;  ///< seeds seed+1 .. seed+K-1 (not run after a deadlock)
  nlohmann::json seeds;        ///< with K > 1: count, first, figures {mean, ci95, values}, all_verified
  nlohmann::json app;          ///< the workload's summary() after the run
  std::optional<std::uint64_t> trace_end;  ///< a replayed trace's last injection
  std::uint64_t replayed = 0;              ///< packets of a replayed trace
  /// 0 verified; else the first failed seed's: 1 conservation or verification failed, 3 a deadlock.
  [[nodiscard]] int status() const;
  /// The figures `rica run --json` writes beside its provenance, outputs and files: the run's
  /// summary (rica/report.hpp run_summary), traffic, app_spec, rate, packets_per_pe, source_queue,
  /// app, seeds.
  [[nodiscard]] nlohmann::json to_json(const Run& request) const;
  /// The first failure of seeds seed+1 .. as one line ("deadlock", the app's message, ...), or "".
  [[nodiscard]] std::string seeds_failure() const;
};

/// Refuses (usage_error, one line naming the parameter) what needs no topology: seeds past the
/// largest seed, a telemetry window the engine cannot keep, a trace-viewer file without a clock.
void validate(const Run& request);
/// validate(), then the memory guard, the topology and its faults, the routing, the workload
/// (an unknown pattern or application: the nearest name suggested; nodes failed under an
/// application; a rate or source queue the async engine cannot pace), resolved into a plan.
[[nodiscard]] RunPlan prepare(const Run& request);
/// Runs the plan: the first seed observed by its telemetry and trace events, then the others.
/// Stops with rica::interrupted on Ctrl-C.
[[nodiscard]] RunOutcome run(const Run& request, RunPlan plan);

/// The topology with `faults` applied (drawn from cfg.seed), or `t` itself. Refuses at=CYCLE with
/// an engine without a clock or a routing other than deterministic, and a fault set that
/// disconnects the PEs. The one check of every command with --faults.
[[nodiscard]] Topology with_checked_faults(const Topology& t, const std::optional<FaultSpec>& faults,
                                           const EngineConfig& cfg);
/// --telemetry W on `engine`: refused without windows, or below the async engine's minimum.
void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine);
/// --trace-events needs an engine with a virtual clock.
void check_trace_events(const std::string& path, EngineKind engine);

}  // namespace rica::request
