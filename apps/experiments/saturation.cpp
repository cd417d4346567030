// Saturation of a sweep (saturation.hpp).
#include "saturation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "experiment.hpp"
#include "rica/assert.hpp"
#include "rica/defaults.hpp"
#include "rica/report.hpp"

namespace rica::experiments {
namespace {

/// Per rate (ascending): means over its seeds.
struct RateMean {
  double rate = 0, offered = 0, accepted = 0, latency = 0;
  unsigned n = 0;
};

std::vector<RateMean> rate_means(const std::vector<SweepPoint>& points) {
  std::map<double, RateMean> by;
  for (const SweepPoint& p : points) {
    RateMean& r = by[p.rate];
    r.rate = p.rate;
    r.offered += p.offered, r.accepted += p.accepted, r.latency += p.latency_mean;
    ++r.n;
  }
  std::vector<RateMean> out;
  for (auto& [rate, r] : by) {
    r.offered /= r.n, r.accepted /= r.n, r.latency /= r.n;
    out.push_back(r);
  }
  return out;
}

/// Index of the first saturated rate, or rates.size(); `why` says what crossed.
std::size_t first_saturated(const std::vector<RateMean>& rates, std::string& why) {
  if (rates.empty()) return 0;
  const double zero = rates.front().latency;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const RateMean& r = rates[i];
    if (r.latency > saturation_latency_factor * zero) {
      why = fmt::format("latency {:.1f}x zero-load", r.latency / zero);
      return i;
    }
    if (r.offered > 0 && r.accepted < saturation_accepted_fraction * r.offered) {
      why = fmt::format("accepted {:.2f} of offered", r.accepted / r.offered);
      return i;
    }
  }
  why = fmt::format("not saturated up to offered {:.4g}", rates.back().offered);
  return rates.size();
}

double round4(double x) {
  if (x <= 0) return x;
  const double scale = std::pow(10.0, 3 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

}  // namespace

Knee find_knee(const std::vector<double>& accepted, const std::vector<double>& latency) {
  RICA_ASSERT(accepted.size() == latency.size(), "find_knee: one latency per accepted throughput");
  Knee k;
  if (accepted.empty()) return k;
  k.accepted = *std::max_element(accepted.begin(), accepted.end());
  const double limit = saturation_latency_factor * latency.front();
  for (std::size_t i = 0; i < latency.size(); ++i) {
    if (latency[i] < limit) continue;
    k.reached = true;
    k.accepted = i == 0 ? accepted[0]
                        : accepted[i - 1] + (limit - latency[i - 1]) / (latency[i] - latency[i - 1]) *
                                                (accepted[i] - accepted[i - 1]);
    break;
  }
  return k;
}

std::vector<double> auto_rates(double bound, const PacedSchedule* paced, double reach) {
  return rate_grid(bound, false, paced, reach);
}

SweepSummary summarize_sweep(const std::vector<SweepPoint>& points, const ChannelLoad* load) {
  SweepSummary s;
  if (points.empty()) return s;
  s.topology = points.front().topology;
  s.traffic = points.front().traffic;
  s.routing = points.front().routing;
  const auto rates = rate_means(points);
  s.rates = static_cast<unsigned>(rates.size());
  s.seeds = rates.front().n;
  s.zero_load = rates.front().latency;
  for (const RateMean& r : rates)
    if (r.accepted > s.saturation) s.saturation = r.accepted, s.offered_at_saturation = r.offered;
  const std::size_t i = first_saturated(rates, s.saturation_reason);
  s.saturated = i < rates.size();
  if (s.saturated) s.saturation_offered = rates[i].offered, s.saturation_accepted = rates[i].accepted;
  std::vector<double> acc, lat;
  for (const RateMean& r : rates) acc.push_back(r.accepted), lat.push_back(r.latency);
  const Knee k = find_knee(acc, lat);
  s.knee = k.accepted, s.knee_reached = k.reached;
  if (load) {
    s.bound = load->bound;
    s.bound_method = load->method;
    s.zero_load_routed = load->zero_load_latency;
  }
  return s;
}

std::vector<double> refine_rates(const std::vector<SweepPoint>& points) {
  const auto rates = rate_means(points);
  std::string why;
  const std::size_t i = first_saturated(rates, why);
  if (i == 0 || i >= rates.size()) return {};
  const double lo = rates[i - 1].rate, hi = rates[i].rate;
  std::vector<double> out;
  const unsigned k = refine_points;
  for (unsigned j = 1; j <= k; ++j) {
    const double r = round4(lo + (hi - lo) * j / (k + 1));
    if (r > lo && r < hi && std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
  }
  return out;
}

std::string summary_text(const SweepSummary& s) {
  std::string line = fmt::format("{}{}: zero-load latency {:.1f} cycles", s.topology,
                                 s.routing == "deterministic" ? std::string() : " " + s.routing, s.zero_load);
  line += s.saturated ? fmt::format(", saturates at offered {:.4g} (accepted {:.4g}; {})", s.saturation_offered,
                                    s.saturation_accepted, s.saturation_reason)
                      : fmt::format(", {}", s.saturation_reason);
  line += fmt::format(", saturation throughput {:.4g} packets/PE/cycle, knee {}{:.4g}", s.saturation,
                      s.knee_reached ? "" : ">= ", s.knee);
  if (s.bound > 0)
    line += fmt::format(", channel-load bound {:.4g} (saturation {:.2f} of it)", s.bound, s.saturation / s.bound);
  return line;
}

std::string summary_csv(const std::vector<SweepSummary>& rows) {
  std::string out = report::csv_row({"topology", "traffic", "rates", "seeds", "zero_load_latency", "zero_load_routed",
                                     "saturated", "saturation_offered", "saturation_accepted", "saturation_reason",
                                     "saturation", "offered_at_saturation", "knee", "knee_reached", "bound",
                                     "saturation_over_bound", "bound_method", "routing"});
  for (const SweepSummary& s : rows)
    out += report::csv_row(
        {s.topology, s.traffic, std::to_string(s.rates), std::to_string(s.seeds), fmt::format("{:.4f}", s.zero_load),
         s.bound > 0 ? fmt::format("{:.4f}", s.zero_load_routed) : "", s.saturated ? "1" : "0",
         s.saturated ? fmt::format("{:.6g}", s.saturation_offered) : "",
         s.saturated ? fmt::format("{:.6g}", s.saturation_accepted) : "", s.saturation_reason,
         fmt::format("{:.6g}", s.saturation), fmt::format("{:.6g}", s.offered_at_saturation),
         fmt::format("{:.6g}", s.knee), s.knee_reached ? "1" : "0", s.bound > 0 ? fmt::format("{:.6g}", s.bound) : "",
         s.bound > 0 ? fmt::format("{:.4f}", s.saturation / s.bound) : "", s.bound_method, s.routing});
  return out;
}

nlohmann::json summary_json(const SweepSummary& s) {
  nlohmann::json j = {{"topology", s.topology},
                      {"routing", s.routing},
                      {"traffic", s.traffic},
                      {"rates", s.rates},
                      {"seeds", s.seeds},
                      {"zero_load_latency", s.zero_load},
                      {"saturated", s.saturated},
                      {"saturation_reason", s.saturation_reason},
                      {"saturation", s.saturation},
                      {"offered_at_saturation", s.offered_at_saturation},
                      {"knee", s.knee},
                      {"knee_reached", s.knee_reached}};
  if (s.saturated) j["saturation_offered"] = s.saturation_offered, j["saturation_accepted"] = s.saturation_accepted;
  if (s.bound > 0) {
    j["bound"] = s.bound;
    j["bound_method"] = s.bound_method;
    j["zero_load_routed"] = s.zero_load_routed;
    j["saturation_over_bound"] = s.saturation / s.bound;
  }
  return j;
}

}  // namespace rica::experiments
