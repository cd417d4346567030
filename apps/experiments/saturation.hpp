#pragma once
// Where a latency-throughput sweep saturates (`rica sweep`, and its --rate auto grid): the rates
// placed by the channel-load bound, saturation detected from the measured points, the rates that
// refine the knee, and the per-network summary (zero-load latency, saturation throughput, knee).
//
//   zero-load   mean latency at the lowest rate;
//   saturated   the first rate (ascending) whose mean latency passes saturation_latency_factor x
//               zero-load, or whose accepted throughput falls below saturation_accepted_fraction x
//               offered;
//   saturation  the largest accepted throughput of the sweep (as `rica experiment`'s tables);
//   knee        accepted throughput where the mean latency reaches 3 x zero-load (interpolated).
// All figures are means over the seeds of a rate. Pure functions of their inputs.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/channel_load.hpp"
#include "sweep.hpp"

namespace rica {
struct PacedSchedule;  // traffic.hpp
}  // namespace rica

namespace rica::experiments {

// The saturation test and the refinement, declared here only (rica sweep's docs quote them).
inline constexpr double saturation_latency_factor = 3.0;      ///< latency past this x zero-load ...
inline constexpr double saturation_accepted_fraction = 0.85;  ///< ... or accepted below this x offered
inline constexpr unsigned refine_points = 4;  ///< --rate auto: rates added between the last unsaturated and first saturated rate

struct SweepSummary {
  std::string topology, traffic;
  std::string routing = "deterministic";  ///< the series' routing (a sweep's series is a (network, routing))
  unsigned rates = 0, seeds = 0;
  double zero_load = 0;        ///< cycles, at the lowest rate
  double zero_load_routed = 0; ///< the timing model over the routes (channel_load), 0 without a bound
  double saturation = 0;       ///< largest accepted throughput, packets/PE/cycle
  double offered_at_saturation = 0;
  bool saturated = false;      ///< a rate met the saturation test
  double saturation_offered = 0;   ///< that rate's offered load (0 when not saturated)
  double saturation_accepted = 0;  ///< and its accepted throughput
  std::string saturation_reason;   ///< "latency 3.4x zero-load", "accepted 0.71 of offered", or why not
  double knee = 0;
  bool knee_reached = false;
  double bound = 0;            ///< channel-load bound (0 = not computed)
  std::string bound_method;
};

/// The knee of a latency-throughput curve, computed here only (rica sweep's summary and rica
/// experiment's tables): `accepted` and `latency` are the means per rate, in ascending rate (the
/// first is the zero-load latency). The knee is the accepted throughput where the latency first
/// reaches saturation_latency_factor x zero-load, interpolated linearly between the two rates
/// around it (the first rate's accepted when it already does); not reached: the largest accepted.
struct Knee {
  double accepted = 0;
  bool reached = false;
};
Knee find_knee(const std::vector<double>& accepted, const std::vector<double>& latency);

/// The rates of `rica sweep --rate auto` for a network whose channel-load bound is `bound`: the
/// papers' experiment grid (rate_grid: 3 % of the bound up to `reach` x the bound, dense from 40 %).
/// `paced`: the pattern's own schedule (TrafficRegistry::paced), nullptr for open loop.
std::vector<double> auto_rates(double bound, const PacedSchedule* paced, double reach);

/// Summary of one network's points (every rate and seed; any order). `load` may be null (no bound).
SweepSummary summarize_sweep(const std::vector<SweepPoint>& points, const ChannelLoad* load);

/// Rates to add so the knee is resolved: refine_points rates evenly between the
/// last unsaturated rate and the first saturated one, rounded to 4 significant digits, none
/// already in `points`; empty when the sweep did not saturate or saturated at its lowest rate.
std::vector<double> refine_rates(const std::vector<SweepPoint>& points);

/// One line per network: "torus:8x8  zero-load 14.2 cycles, saturation 0.271 (offered 0.3), knee
/// 0.265, bound 0.280 (0.97 of it)".
std::string summary_text(const SweepSummary& s);
std::string summary_csv(const std::vector<SweepSummary>& rows);
nlohmann::json summary_json(const SweepSummary& s);

}  // namespace rica::experiments
