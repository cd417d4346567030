// `rica run` as a library request (rica/request/run.hpp): its checks, its plan and its runs.
#include "rica/request/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "app_registry.hpp"
#include "mpi_replay.hpp"
#include "rica/core.hpp"
#include "rica/footprint.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "rica/routing.hpp"
#include "run_statistics.hpp"
#include "traffic.hpp"

namespace rica::request {

Topology with_checked_faults(const Topology& t, const std::optional<FaultSpec>& faults, const EngineConfig& cfg) {
  if (!faults) return t;
  if (cfg.routing != Routing::deterministic && faults->at)
    throw usage_error(fmt::format("--faults: at=CYCLE with --routing {}: the routing changes at the failure and only "
                                  "the table rerouting follows it; drop at= or --routing {}",
                                  to_string(cfg.routing), to_string(cfg.routing)));
  if (faults->at) require_trait(cfg.engine, &EngineTraits::timed_faults, "--faults at=CYCLE", "has no clock");
  return with_faults(t, *faults, cfg.seed);
}

void check_telemetry(const std::optional<std::uint64_t>& window, EngineKind engine) {
  if (!window) return;
  require_trait(engine, &EngineTraits::windows, "--telemetry", "has no windows");
  if (!engine_traits(engine).virtual_clock && *window < defaults::telemetry::async_min_window_us)
    throw usage_error(fmt::format("--telemetry = {} is out of range on the {} engine: a window of W microseconds "
                                  "takes W in [{}, 2^31]",
                                  *window, to_string(engine), defaults::telemetry::async_min_window_us));
}

void check_trace_events(const std::string& path, EngineKind engine) {
  if (!path.empty()) require_trait(engine, &EngineTraits::virtual_clock, "--trace-events", "has no cycle-by-cycle view");
}

void validate(const Run& r) {
  experiments::check_seeds(r.engine.seed, r.seeds);
  check_telemetry(r.telemetry, r.engine.engine);
  if (r.telemetry_links && !r.telemetry)
    throw usage_error("--telemetry-links: the per-link table of --telemetry W; give --telemetry W or drop --telemetry-links");
  check_trace_events(r.trace_events, r.engine.engine);
}

namespace {
/// Refuses what the async engine cannot pace: it has no clock, so --rate is a probability per
/// activation of a PE, activated continuously while it generates. Below the minimum a run spends
/// more than 10,000 activations per packet (seconds to hours of spinning).
void check_pacing(const Run& r, bool clocked) {
  if (!clocked && r.app.empty() && r.rate < defaults::traffic::async_min_rate)
    throw usage_error(fmt::format("--rate: {:g} is below the async engine's minimum {:g} (a probability per PE "
                                  "activation); use --engine cycle for lower rates",
                                  r.rate, defaults::traffic::async_min_rate));
  if (!clocked && r.source_queue == 0)
    throw usage_error("--source-queue: 0 (unbounded) needs --engine cycle; the async engine has no clock to pace "
                      "sources, give 1 or more");
}
}  // namespace

RunPlan prepare(const Run& r) {
  validate(r);
  EngineConfig cfg = r.engine;
  check_run_memory("run", r.topology, cfg, static_cast<double>(r.packets.value_or(0)));
  const Topology base = TopologyRegistry::parse(r.topology);
  RunPlan p{with_checked_faults(base, r.faults, cfg), cfg, 0, "", nullptr, {}, nullptr, nullptr};
  check_routing(p.topology, cfg.routing);
  if (!r.app.empty() && !failed_nodes(p.topology).empty())
    throw usage_error("--faults: nodes= / node lines need traffic; an application (--app) needs every PE (give failed "
                      "links only)");
  const bool clocked = engine_traits(cfg.engine).virtual_clock;
  check_pacing(r, clocked);
  p.packets = r.packets ? *r.packets : (clocked ? cfg.cycles : defaults::traffic::packets);
  TrafficOptions to;
  to.rate = r.rate;
  to.packets = p.packets;
  to.seed = cfg.seed;
  to.source_queue = r.source_queue;
  to.burst_on = r.burst_on;
  to.burst_off = r.burst_off;
  to.min_words = cfg.packet_words - cfg.packet_spread;
  to.max_words = cfg.packet_words + cfg.packet_spread;
  // The workloads see one topology that outlives them (the plan's function holds it).
  p.make = [to, t = std::make_shared<const Topology>(p.topology), traffic = r.traffic, app = r.app](std::uint64_t seed) {
    TrafficOptions ts = to;
    ts.seed = seed;
    return app.empty() ? TrafficRegistry::make(traffic, *t, ts) : AppRegistry::make(app, *t);
  };
  p.app = p.make(cfg.seed);
  // A replayed trace runs to its last injection unless the window is given.
  if (clocked && r.app.empty() && !r.cycles_given)
    if (const auto end = traffic_end(*p.app)) {
      p.engine.cycles = std::max<std::uint64_t>(*end + 1, 1);
      if (!r.packets) p.packets = p.engine.cycles;
    }
  // A replayed MPI program (apps/replay) times its compute gaps by injection opportunities: the
  // window stays open until it ends unless --cycles bounds it.
  if (clocked && !r.app.empty() && !r.cycles_given && replay::is_mpi_replay(*p.app))
    p.engine.cycles = defaults::limits::cycles;
  p.traffic = r.app.empty() ? TrafficRegistry::canonical(r.traffic) : "";
  if (r.telemetry) p.telemetry = std::make_shared<Telemetry>(*r.telemetry, Telemetry::Options{.links = r.telemetry_links});
  if (!r.trace_events.empty())
    p.trace_events =
        std::make_shared<TraceEvents>(TraceEvents::Options{r.trace_events_packets, p.engine.warmup, false});
  return p;
}

namespace {
/// --seeds K: each figure's mean and 95% interval over the K runs.
nlohmann::json seeds_figures(const RunStats& first, const std::vector<RunStats>& more, unsigned seeds,
                             std::uint64_t seed) {
  using Field = double (*)(const RunStats&);
  const std::pair<const char*, Field> figures[] = {
      {"latency_mean", [](const RunStats& r) { return r.latency_mean; }},
      {"latency_p99", [](const RunStats& r) { return r.latency_p99; }},
      {"net_latency_mean", [](const RunStats& r) { return r.net_latency_mean; }},
      {"hops_mean", [](const RunStats& r) { return r.hops_mean; }},
      {"throughput", [](const RunStats& r) { return r.throughput; }},
      {"delivered", [](const RunStats& r) { return static_cast<double>(r.delivered); }}};
  nlohmann::json j = {{"count", seeds}, {"first", seed}};
  for (const auto& [name, f] : figures) {
    std::vector<double> v = {f(first)};
    for (const auto& r : more) v.push_back(f(r));
    const auto [mean, ci] = experiments::mean_ci95(v);
    j["figures"][name] = {{"mean", mean}, {"ci95", ci}, {"values", v}};
  }
  for (const auto& r : more)
    if (!r.conservation_ok || !r.app_ok || r.deadlock) j["all_verified"] = false;
  return j;
}
}  // namespace

RunOutcome run(const Run& r, RunPlan plan) {
  std::vector<Observer*> observers;
  if (plan.telemetry) observers.push_back(plan.telemetry.get());
  if (plan.trace_events) observers.push_back(plan.trace_events.get());
  RunStats first = rica::run(plan.topology, *plan.app, plan.engine, observers);
  std::vector<RunStats> more;
  for (unsigned k = 1; k < r.seeds && !first.deadlock; ++k) {  // the same run, seeds seed+1 ..
    EngineConfig c = plan.engine;
    c.seed = plan.engine.seed + k;
    c.trace.clear();
    c.progress = false;
    auto a = plan.make(c.seed);
    more.push_back(rica::run(plan.topology, *a, c));
  }
  RunOutcome out{std::move(plan), std::move(first), std::move(more), {}, {}, std::nullopt, 0};
  if (r.seeds > 1) out.seeds = seeds_figures(out.stats, out.more, r.seeds, out.plan.engine.seed);
  out.app = out.plan.app->summary();
  out.trace_end = r.app.empty() ? traffic_end(*out.plan.app) : std::nullopt;
  if (out.trace_end) out.replayed = out.app.value("packets", std::uint64_t{0});
  return out;
}

int RunOutcome::status() const {
  for (const auto& m : more)  // the first seed that failed
    if (m.deadlock || !m.conservation_ok || !m.app_ok) return m.deadlock ? 3 : 1;
  // A replayed MPI program that never finished (a rendezvous deadlock, apps/replay) is a deadlock too.
  const bool app_deadlock = app.is_object() && app.contains("deadlock") && !app["deadlock"].is_null();
  return stats.deadlock || app_deadlock ? 3 : stats.conservation_ok && stats.app_ok ? 0 : 1;
}

std::string RunOutcome::seeds_failure() const {
  for (const auto& m : more)
    if (m.deadlock || !m.conservation_ok || !m.app_ok)
      return m.deadlock ? "deadlock" : m.conservation_ok ? m.app_message : "packets not accounted for";
  return "";
}

nlohmann::json RunOutcome::to_json(const Run& r) const {
  nlohmann::json j = report::run_summary(plan.topology, plan.engine, stats);
  j["traffic"] = r.app.empty() ? nlohmann::json(plan.traffic) : nlohmann::json();
  j["app_spec"] = r.app.empty() ? nlohmann::json() : nlohmann::json(r.app);
  j["rate"] = r.rate;
  j["packets_per_pe"] = plan.packets;
  j["source_queue"] = r.app.empty() ? nlohmann::json(r.source_queue) : nlohmann::json();
  j["app"] = app;
  if (app.is_object() && app.value("app", "") == "replay") j["replay"] = app;  // rica replay's results
  j["seeds"] = seeds;
  return j;
}

}  // namespace rica::request
