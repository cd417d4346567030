#pragma once
// Latency-throughput sweeps on the cycle engine: one run per (network, traffic, rate, seed), run
// one after the other or several at once. Shared by `rica sweep` and `rica experiment`.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica::experiments {

/// One cycle-engine run to make.
struct SweepJob {
  std::string network;  ///< label in tables and plots (the topology spec when empty)
  Topology topology;
  std::string traffic;  ///< a TrafficRegistry spec
  double rate = 0;      ///< open loop: injection probability per PE per cycle; paced: round-start probability
  std::uint64_t seed = 1;
  /// A pattern with its own schedule (TrafficEntry::paced, e.g. mesh) runs it, a load knob, instead
  /// of the registry's App (mesh's closed loop); other patterns are unaffected.
  bool paced = false;
  unsigned source_queue = defaults::traffic::backlog;  ///< open-loop sources: --source-queue (0 = unbounded)
  Routing routing = Routing::deterministic;            ///< the run's routing (the sweep's config is the base)
  std::string faults;  ///< the --faults spec `topology` was built with ("" = none), for the tables
  /// An application (AppRegistry spec, e.g. "cg:m=256") run instead of `traffic`: a closed program
  /// that ends when it is done (run with cycles = 1: it sends from start() and its handlers); its
  /// verify() must pass. "" = the traffic pattern. (Initialised here, so the aggregate
  /// initialisations that leave it out stay warning-free.)
  std::string app = {};
};

/// What one run measured. Latencies in cycles, generation to delivery (source queueing included).
struct SweepPoint {
  std::string network, topology, traffic;
  std::string routing;  ///< "deterministic" or "adaptive"
  std::string faults;   ///< the --faults spec, "none" without faults
  double rate = 0;
  double offered = 0;          ///< packets per PE per cycle offered while nothing throttles (paced: round_packets x rate)
  std::uint64_t seed = 0;
  double generated = 0;        ///< packets generated per PE per cycle in [warm-up, window) (below `offered` when sources throttle)
  double accepted = 0;         ///< packets delivered per PE per cycle within [warm-up, window)
  std::uint64_t warmup = 0;    ///< cycles left out of the statistics
  std::uint64_t delivered = 0; ///< packets delivered within [warm-up, window) (the MDCE paper's x axis)
  double latency_mean = 0, latency_p50 = 0, latency_p99 = 0, hops_mean = 0;
  std::uint64_t cycles = 0;    ///< injection window
  std::uint64_t cycles_run = 0;  ///< window + drain
  double wall_s = 0;
  // An application's run (SweepJob::app): what it sent and how the links carried it.
  std::string app;                  ///< its spec ("" for traffic)
  std::uint64_t injected = 0;       ///< packets
  std::uint64_t link_load_max = 0;  ///< packets over the busiest link
  double link_load_mean = 0;        ///< packets per link, mean over the links
  nlohmann::json app_summary;       ///< the application's summary() (its logical messages, ...)
};

/// The App of a job: the registry's traffic with `packets` = the window (one packet per cycle at
/// most), or the pattern's own schedule (`paced`).
std::unique_ptr<App> make_app(const SweepJob& job, const EngineConfig& cfg);

/// Runs one job. Throws std::runtime_error with the deadlock report when the run deadlocks, and
/// when packets are not all accounted for.
SweepPoint run_point(const SweepJob& job, const EngineConfig& cfg);

/// Called after each run, from one thread at a time: (runs done, runs in total, the point).
using SweepProgress = std::function<void(std::size_t done, std::size_t total, const SweepPoint& p)>;

/// Runs every job, `parallel` at a time (each run on cfg.threads threads), and returns the points
/// in job order. Results do not depend on `parallel` or cfg.threads (the engine is deterministic).
/// The first failure stops the sweep and is rethrown.
std::vector<SweepPoint> run_sweep(const std::vector<SweepJob>& jobs, const EngineConfig& cfg, unsigned parallel = 1,
                                  const SweepProgress& progress = {});

// ---- What `rica sweep` writes (sweep.csv, sweep_mean.csv, its JSON); Python's rica.sweep the same --
/// sweep.csv: one row per point with the model's settings (link time, timing, arbitration, buffers,
/// packet words, `source_queue`).
std::string points_csv(const std::vector<SweepPoint>& points, const std::string& traffic, const EngineConfig& cfg,
                       unsigned source_queue);
/// The points as the JSON's "points".
nlohmann::json points_json(const std::vector<SweepPoint>& points);
/// Per point over its `seeds` consecutive runs (seed, seed+1, ...): the mean and 95% confidence
/// half-width (Student t, K-1 degrees of freedom) of each figure, as sweep_mean.csv and as the
/// JSON's "means".
struct SeedMeans {
  std::string csv;
  nlohmann::json json = nlohmann::json::array();
};
SeedMeans seed_means(const std::vector<SweepPoint>& points, const std::string& traffic, unsigned seeds);
/// The JSON's "model": the cycle engine's settings every point shares.
nlohmann::json sweep_model(const EngineConfig& cfg, unsigned source_queue);

/// "FROM:TO:STEP" (inclusive; points FROM + i*STEP) or "r1,r2,..."; every rate in (0, 1], no
/// empty element, at most defaults::limits::rates points (a larger grid is refused, never cut).
/// usage_error naming `option`. The one rate-list parser of the CLI (apps/cli/options.hpp).
std::vector<double> parse_rates(const std::string& text, const std::string& option = "--rates");

/// Sets cfg's link time from "degree" (in+out degree of the sender), "words" (one cycle per word)
/// or cycles in [1, defaults::limits::link_cycles]. usage_error naming `option` otherwise (0
/// included). The one --link-cycles parser of the CLI.
void set_link_cycles(EngineConfig& cfg, const std::string& text, const std::string& option = "--link-cycles");
/// The text set_link_cycles() accepts for cfg's link time.
std::string link_cycles_text(const EngineConfig& cfg);

/// "A" or "A,B,...": routings by name (routing_by_name), no empty element, none twice. usage_error
/// naming `option`. The one routing-list parser (sweep --routing, experiment --routing).
std::vector<Routing> parse_routings(const std::string& text, const std::string& option = "--routing");
/// The list as parse_routings reads it: "deterministic,valiant".
std::string routings_text(const std::vector<Routing>& routings);

/// Sets cfg's packet length from "MEAN" or "MEAN:SPREAD" (words; MEAN in [1, 255], SPREAD below
/// MEAN). usage_error naming `option`. The one --packet-words parser of the CLI.
void set_packet_words(EngineConfig& cfg, const std::string& text, const std::string& option = "--packet-words");

/// `text` as one CSV field: quoted (quotes doubled) when it holds a comma, a quote or a newline.
std::string csv_field(const std::string& text);

/// Where find_plot_script looks first after $RICA_SCRIPTS_DIR (rica::cli::main sets it for user
/// programs built against an installed rica). Before any run, from one thread.
void set_scripts_dir(std::string dir);
/// The path of a plot script (plot_sweep.py, ...): $RICA_SCRIPTS_DIR, set_scripts_dir(), else share/rica/scripts
/// relative to the library or executable running this code, else the install prefix's; "" when
/// none has it. Never the source tree.
std::string find_plot_script(const std::string& script);
/// Runs `script` (find_plot_script) with matplotlib's Python and `args` (each quoted); returns
/// false when it is not found or plotting fails. A script that finds its input malformed exits 65
/// after one line naming the file and what it expected (scripts/rica_plot.py): with `bad_input`,
/// that line is stored there and nothing is printed (the caller reports it); without, it is
/// printed as "rica: plots skipped (<line>)". Other failures print a one-line note.
bool run_plot_script(const std::string& script, const std::vector<std::string>& args,
                     std::string* bad_input = nullptr);

}  // namespace rica::experiments
