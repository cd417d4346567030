// rica/request/bound.hpp: the checks, the run and the text of `rica bound`.
#include "rica/request/bound.hpp"

#include <fmt/format.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <thread>

#include "experiment.hpp"
#include "sweep.hpp"
#include "rica/footprint.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "traffic.hpp"

namespace rica::request {

namespace {
/// Every check of validate(); the topologies parsed.
std::vector<Topology> check(const Bound& r) {
  if (r.topologies.empty()) throw usage_error("topology: give one or more topology specs (see 'rica list')");
  if (r.engine.threads > defaults::limits::threads)
    throw usage_error(fmt::format("--threads: '{}' is not an integer in [0, {}]", r.engine.threads,
                                  defaults::limits::threads));
  // The bound is computed in one process: no machine is split over MPI ranks.
  if (r.engine.rank_split != RankSplit::blocks)
    throw usage_error("--rank-split: rica bound splits no machine over MPI ranks (it computes in one process); "
                      "give --rank-split to a command that runs a machine (run, sweep, os, app)");
  EngineConfig cfg = r.engine;
  cfg.engine = EngineKind::cycle;
  rica::validate(cfg);
  (void)TrafficRegistry::canonical(r.traffic);  // an unknown pattern: the nearest name
  std::vector<Topology> topologies;
  for (const std::string& spec : r.topologies) {
    (void)check_memory_for("bound", spec, bound_footprint);
    topologies.push_back(TopologyRegistry::parse(spec));
    for (Routing routing : r.routings) {  // before any work: every (network, routing) has a bound
      if (!offers(topologies.back(), routing))
        throw usage_error(fmt::format("--routing: '{}' does not offer {} routing (`rica list` names the topologies "
                                      "that offer each)",
                                      spec, to_string(routing)));
      if (routing == Routing::adaptive)
        throw usage_error("--routing adaptive: no channel-load bound (an adaptive routing's load follows the "
                          "buffers); give deterministic, valiant, ugal-l, ugal-g or par");
    }
  }
  return topologies;
}
}  // namespace

void validate(const Bound& r) { (void)check(r); }

BoundOutcome run(const Bound& r, const std::function<void(const BoundOutcome&, const BoundOutcome::Row&)>& row) {
  std::vector<Topology> topologies = check(r);
  BoundOutcome out;
  out.engine = r.engine;
  out.engine.engine = EngineKind::cycle;  // the bound is in cycles: the cycle engine's link time
  out.engine.threads = r.engine.threads ? r.engine.threads : std::max(1u, std::thread::hardware_concurrency());
  out.traffic = TrafficRegistry::canonical(r.traffic);
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, out.engine.threads);
  ChannelLoadOptions opt;
  opt.force_all_pairs = r.all_pairs;
  const std::vector<Routing> routings = r.routings.empty() ? std::vector<Routing>{Routing::deterministic} : r.routings;
  for (const Topology& t : topologies) {
    const TrafficMatrix matrix = experiments::traffic_matrix(r.traffic, t, out.engine.seed);
    for (Routing routing : routings) {
      ChannelLoad c = routing_channel_load(t, matrix, out.engine, routing, opt);
      out.rows.push_back({t, std::move(c), routing});
      if (row) row(out, out.rows.back());
    }
  }
  return out;
}

nlohmann::json BoundOutcome::to_json() const {
  nlohmann::json all = nlohmann::json::array();
  for (const Row& row : rows) {
    nlohmann::json j = rica::to_json(row.load, row.topology);
    j["link_cycles"] = experiments::link_cycles_text(engine);
    j["link_model"] = link_model_text(engine, &row.topology);
    j["routing"] = to_string(row.routing);
    if (engine.router_cycles != 0) j["router_cycles"] = engine.router_cycles;
    all.push_back(j);
  }
  return all;
}

std::string BoundOutcome::text_header() {
  return fmt::format("{:<22} {:<16} {:>9} {:>10} {:>9} {:<22} {:>9}\n", "topology", "method", "mean hops", "zero-load",
                     "max load", "busiest link (cycles)", "bound");
}

std::string BoundOutcome::text_row(const Row& row) const {
  const Topology& t = row.topology;
  const ChannelLoad& c = row.load;
  const std::string busy = fmt::format("{} p{} ({})", t.label(c.busy_node), c.busy_port, c.cycles[c.busy_node]);
  const std::string name =
      row.routing == Routing::deterministic ? t.spec() : fmt::format("{} {}", t.spec(), to_string(row.routing));
  std::string line = fmt::format("{:<22} {:<16} {:>9.3f} {:>10.2f} {:>9.4f} {:<22} {:>9.5f}\n", name,
                                 c.method.substr(0, c.method.find(',')), c.mean_hops, c.zero_load_latency, c.max_load,
                                 busy, c.bound);
  const std::size_t more = c.method.find(", best of");
  if (more != std::string::npos) line += fmt::format("{:<22} ({})\n", "", c.method.substr(more + 2));
  return line;
}

std::string BoundOutcome::text_footer() const {
  return fmt::format("traffic {}, link time {}{}; bound = injection rate (packets/PE/cycle) at which the busiest link "
                     "is busy every cycle\n", traffic, link_model_text(engine),
                     engine.router_cycles ? fmt::format(", router {} cycles per hop (zero-load only)", engine.router_cycles)
                                          : "");
}

}  // namespace rica::request
