#pragma once
// `rica os SPEC` as a library request: two or more jobs time-share one partition under the switch
// policies (rica/os.hpp, docs/os.md), over injection rates and slice lengths, each rate also run
// as a baseline with the jobs back to back. The CLI (apps/cli/os_command.cpp) fills a request::Os
// from its options — the request's own declared once, in Os::fields(); the machine's in the
// option table — and presents the outcome (table, os.csv, switches.csv, os.json, telemetry CSVs,
// trace events, plots); Python's rica.os runs that CLI in process; a C++ caller gives the same
// request and gets the same checks and messages. Implemented in rica::experiments
// (apps/experiments/os_request.cpp), which knows the traffic patterns and applications a job runs.
//
// Thread-safety: one run() at a time per process (it drives the machine, whose workers are
// oneTBB's); the hooks are called on the calling thread. The outcome is a value.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/os.hpp"
#include "rica/request/fields.hpp"
#include "rica/telemetry.hpp"
#include "rica/topology.hpp"
#include "rica/trace_events.hpp"

namespace rica::request {

struct Os {
  static constexpr unsigned max_io_hop_cycles = 1024;  ///< io_hop_cycles in [1, max_io_hop_cycles]
  static constexpr unsigned max_save_rate = 1024;      ///< save_rate in [1, max_save_rate]
  std::string topology;                                  ///< a topology spec (see `rica list`)
  std::vector<std::string> jobs{"uniform", "hotspot"};   ///< >= 2: traffic patterns or application specs
  std::vector<std::string> policies{"drain", "flush"};   ///< switch policies (rica::switch_policies())
  std::vector<double> rates{0.002, 0.05};                ///< traffic jobs' rates: low and saturated (degree link time)
  std::vector<std::uint64_t> slices{500, 2000};          ///< cycles per slice, each in [1, defaults::limits::slice]
  std::uint64_t packets = 200;                           ///< packets per PE of traffic jobs
  unsigned parts = 1;                                    ///< > 1: cut into K partitions (rica partition), share one
  std::string dims;                                      ///< the cut's dimensions, as rica partition's (parse_dim_cuts)
  unsigned partition = 0;                                ///< which partition of the cut (0 without a cut: the machine)
  /// The machine: link time, routing, buffers, packets, seed, threads (0 = all cores). Time
  /// sharing runs on the cycle engine whatever `engine.engine` says; run() sets the cycles.
  EngineConfig engine;
  std::string faults;  ///< --faults SPEC (rica/faults.hpp): failed links before the run only; "" = none
  unsigned io_hop_cycles = defaults::os::io_hop_cycles;       ///< I/O network: cycles per broadcast-tree level
  unsigned save_rate = defaults::os::save_words_per_cycle;    ///< words per cycle a PE saves or restores
  std::optional<std::uint64_t> telemetry;  ///< every run over time, per window of W cycles, jobs' tables too
  bool telemetry_links = false;            ///< with telemetry: the per-link table too (most of a window's cost)
  bool trace_events = false;               ///< every run's packets, halts and switches (rica/trace_events.hpp)
  std::uint64_t trace_events_packets = defaults::trace_events::packets;  ///< packets followed hop by hop

  /// The request's own options, declared once: name, kind, range, help, in --help's order.
  static const std::vector<Field<Os>>& fields();
  /// Runs the request makes: rates x (1 baseline + policies x slices).
  [[nodiscard]] std::size_t runs() const { return rates.size() * (1 + policies.size() * slices.size()); }
  /// The telemetry CSVs, one per table ("telemetry_windows.csv", ...); empty without telemetry.
  [[nodiscard]] std::vector<std::string> telemetry_files() const;
};

struct OsOutcome {
  /// One run: a policy at a rate and slice, or the rate's baseline (policy "baseline", slice 0).
  struct Run {
    std::string policy;
    double rate = 0;
    std::uint64_t slice = 0;  ///< 0: the baseline, the jobs back to back
    OsStats stats;
    std::uint64_t completion = 0;               ///< the last job's completion cycle
    std::shared_ptr<Telemetry> telemetry;       ///< Os::telemetry: this run over time; else null
    std::shared_ptr<TraceEvents> trace_events;  ///< Os::trace_events: this run's events; else null
  };
  Os request;           ///< as given (threads as given; `engine` below has them resolved)
  Topology base;        ///< the topology as given
  Topology topology;    ///< as run: with the faults of Os::faults
  std::string where;    ///< "the whole machine", or "partition P of K (..., N PEs, closed)"
  EngineConfig engine;  ///< as run: the cycle engine, threads resolved
  std::vector<Run> runs;  ///< per rate: the baseline, then each policy x slice

  /// The console's header line: topology, jobs, partition, the model.
  [[nodiscard]] std::string header() const;
  /// The console's table: a header row and one row per run.
  [[nodiscard]] std::string table() const;
  /// os.csv: one row per run (switch cost, peak, bound, completion against the baseline, checks).
  [[nodiscard]] std::string csv() const;
  /// switches.csv: one row per switch of every run.
  [[nodiscard]] std::string switches_csv() const;
  /// The telemetry CSVs (Os::telemetry_files() order): the runs one after another, each row led by
  /// its run's policy, rate and slice (0: the baseline).
  [[nodiscard]] std::vector<std::pair<std::string, std::string>> telemetry_csvs() const;
  /// Every run's trace events, named ("drain rate 0.05 slice 500", "baseline (back to back) rate 0.05").
  [[nodiscard]] std::vector<std::pair<std::string, const TraceEvents*>> trace_event_runs() const;
  /// The report without provenance: topology, faults, partition, jobs, model, per-policy sums, runs.
  [[nodiscard]] nlohmann::json to_json() const;
  /// The plots' title (scripts/plot_os.py --title).
  [[nodiscard]] std::string plot_title() const;
  /// The exit status: 0; 3 when a run got stuck (deadlock or livelock; `stuck` gets its report,
  /// "os: <run>: <evidence>"); else 1 when a job of a run failed its verification (its
  /// application's own check, or it never finished; `stuck` gets one line naming the run, how many
  /// jobs failed and the first one's reason). Throws std::runtime_error when a run lost,
  /// duplicated or misdelivered packets or a switch broke the drain bound (an internal failure, exit 1).
  int status(std::string* stuck = nullptr) const;
};

/// What run() reports while it works (each may be empty); called on the calling thread.
struct OsHooks {
  /// After every check and the set-up, before the first run: the outcome has everything but its
  /// runs (the CLI prepares its outputs and prints its header here).
  std::function<void(const OsOutcome&)> started;
  /// Before each run: the runs done so far and the one starting ("drain rate 0.05 slice 500").
  std::function<void(std::size_t done, const std::string& what)> next;
};

/// Refuses (usage_error: one line naming the parameter and what is accepted, the CLI's words)
/// before any run: a field outside its declaration (Os::fields()), fewer than 2 jobs, a job that
/// is neither a traffic pattern nor an application (the nearest name suggested), an unknown
/// policy, --threads or an engine setting out of range, a topology too large for memory or
/// unknown, a routing it does not offer, faults during the run, with a cut or failing PEs, a
/// partition outside the cut or open. Computes the cut (rica::partition) when there is one.
void validate(const Os& request);
/// validate(), then every run in order (OsOutcome::runs). Stops with rica::interrupted on Ctrl-C.
[[nodiscard]] OsOutcome run(const Os& request, const OsHooks& hooks = {});

}  // namespace rica::request
