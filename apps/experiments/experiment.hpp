#pragma once
// The papers' dynamic experiments (`rica experiment`): their set-ups as data, the traffic
// matrices behind each pattern (for the channel-load bound), the rate grid of each sweep, and the
// saturation figures taken from a sweep. (The mesh emulation with a load knob is the traffic
// registry's paced schedule of "mesh": PacedMeshEmulation, apps/traffic/traffic.hpp.)
//
// Definitions used throughout (docs/reproduction.md repeats them):
//   offered     packets generated per PE per cycle while nothing throttles (Bernoulli per cycle);
//   accepted    packets delivered per PE per cycle during the window [0, cycles);
//   delivered   packets delivered during the window, all PEs (the MDCE paper's x axis);
//   latency     delivery cycle - generation cycle, source queueing included, mean over packets;
//   zero-load   the mean latency at the sweep's lowest rate (beside it the cut-through timing model over the routes);
//   saturation  the largest accepted throughput the sweep reached (mean over seeds per rate);
//   knee        the accepted throughput at which the mean latency first reaches 3 x zero-load
//               (linear interpolation between neighbouring rates), the papers' "traffic tolerance";
//   bound       the channel-load bound of the pattern (rica/channel_load.hpp).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/channel_load.hpp"
#include "rica/engine.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::experiments {

// ---- Traffic matrices -----------------------------------------------------------------------------

/// The traffic matrix of a pattern spec on `t` for channel_load(): uniform (symmetric), quarter,
/// hotspot and localized as their exact destination distributions (localized: the rounded
/// exponential offsets of traffic::Localized, summed in closed form, the source excluded), the
/// deterministic patterns as their one destination, "mesh" as the d mesh-emulation neighbours
/// (1/d each). usage_error when the pattern does not fit the network.
TrafficMatrix traffic_matrix(const std::string& spec, const Topology& t, std::uint64_t seed = 1);

/// Per coordinate of range k, the probability of each offset 0..k-1 of traffic::Localized's draw
/// (before the redraw of the source itself).
std::vector<double> localized_offsets(std::uint32_t k);

// ---- The papers' set-ups --------------------------------------------------------------------------

struct Network {
  std::string label;  ///< the papers' name, e.g. "(CB)^2", "2DT"
  std::string spec;   ///< rica topology spec
  Routing routing = Routing::deterministic;  ///< --routing of its runs (e.g. "Adaptive CB")
};

struct Setup {
  std::string name;    ///< "mdce-1024", "rwc1", "mdce-delta", "adaptive"
  std::string title;
  std::string source;  ///< paper and section
  std::vector<Network> networks;
  std::vector<std::string> patterns;        ///< traffic specs in figure order ("mesh" = paced mesh emulation)
  std::map<std::string, std::string> x_axis;  ///< per pattern: "delivered" (default), "interval", "accepted"
  std::map<std::string, std::string> figures; ///< per pattern: the paper's figure ("Fig. 7")
  std::string link_cycles;                  ///< degree | words | N
  unsigned buffer_words = 32, packet_words = 3, packet_spread = 1;
  std::uint64_t cycles = 10000;
  unsigned hotspot_seeds = 3;               ///< trials of the hot-spot pattern (seeds 1..k)
  std::vector<std::string> notes;           ///< what differs from the paper, for the README of the output
  /// Per pattern: network labels it is not run on (the pattern does not apply, e.g. tornado on a
  /// hypercube, whose coordinates have range 2).
  std::map<std::string, std::vector<std::string>> skip;
  /// The channel-load bound of every sweep exact (by symmetry, else over all pairs), never sampled
  /// as rica bound does beyond 4,096 PEs (a sampled maximum overestimates the busiest link's load:
  /// at 16K PEs it put the absolute dragonfly's bound, and so its rate grid, at 0.39 of the exact).
  bool exact_bounds = false;
  /// --quick's rates as fractions of the bound at reach 1.6 (rate_grid), ascending; empty: 5, 50,
  /// 90 and 150 %.
  std::vector<double> quick_rates;
};

/// Every set-up, in documentation order.
const std::vector<Setup>& setups();
/// usage_error "unknown experiment 'x'; valid: ..." (every set-up's name) when unknown.
const Setup& setup_by_name(const std::string& name);

/// The engine configuration of a set-up (threads and seed left at their defaults).
EngineConfig engine_config(const Setup& s);

/// Rates of one sweep, ascending and distinct, placed by the pattern's channel-load bound:
/// log-spaced from 3 % of the bound, dense from 40 % to 100 %, and past it to `reach` x the bound
/// (the whole grid scales with reach / 1.6; quick: `quick_rates`, by default 5 %, 50 %, 90 %, 150 %
/// at reach 1.6). Open loop: injection probabilities, capped at 1. `paced` (the pattern's own
/// schedule, TrafficRegistry::paced; nullptr: open loop): round-start probabilities, the grid
/// divided by its round_packets, and always 1 (the closed loop) last.
std::vector<double> rate_grid(double bound, bool quick, const PacedSchedule* paced, double reach = 1.6,
                              const std::vector<double>& quick_rates = {});

/// How far past its bound a pattern's grid reaches: 4 for the hot spot (its bound holds for the
/// steady-state mix; within a window the accepted throughput passes it while hot packets queue),
/// 1.6 otherwise.
double grid_reach(const std::string& pattern);

// ---- Figures from a sweep -------------------------------------------------------------------------

struct Summary {
  std::string network, topology, pattern;
  unsigned seeds = 1;
  double zero_load = 0;         ///< measured mean latency at the lowest rate
  double zero_load_routed = 0;  ///< channel_load's zero_load_latency (the timing model over the routes)
  double saturation = 0;        ///< largest accepted throughput (per-rate mean over seeds)
  double saturation_min = 0, saturation_max = 0;  ///< the largest accepted throughput of each seed: min, max
  std::uint64_t delivered_at_saturation = 0;
  double offered_at_saturation = 0;
  double knee = 0;              ///< accepted throughput where latency reaches 3 x zero-load
  bool knee_reached = false;    ///< false: latency never reached 3 x zero-load (knee = saturation)
  double bound = 0;             ///< channel-load bound of the pattern
  double max_load = 0;          ///< its largest link load per unit injection
  std::string bound_method;
};

/// The figures of one (network, pattern) sweep: `points` of every rate and seed.
Summary summarize(const std::vector<SweepPoint>& points, const ChannelLoad& load);

// ---- Output files ---------------------------------------------------------------------------------

/// Header and rows of points.csv (one row per run; no wall time, so the file is deterministic).
std::string points_csv_header();
std::string points_csv_row(const SweepPoint& p, const std::string& pattern);

/// table.csv, table.json and table.md of the summaries.
std::string table_csv(const std::vector<Summary>& rows);
nlohmann::json table_json(const std::vector<Summary>& rows);
std::string table_markdown(const Setup& s, const std::vector<Summary>& rows);

/// The resolved configuration of a run of a set-up (config.json; the plot script reads it).
nlohmann::json config_json(const Setup& s, const EngineConfig& cfg, bool quick,
                           const std::map<std::string, std::vector<double>>& grids);

}  // namespace rica::experiments
