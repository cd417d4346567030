// rica/request/embed.hpp: the checks and the run of `rica embed`.
#include "rica/request/embed.hpp"

#include <fmt/format.h>
#include "rica/footprint.hpp"
#include "rica/registry.hpp"
#include "request_common.hpp"

namespace rica::request {

namespace {
/// Every check of validate(), in the order the CLI always made them; what they parsed.
struct Checked {
  Topology host;
  Guest guest;
  EmbedMap map;
};
Checked check(const Embed& r) {
  (void)check_memory_for("embed", r.host, embed_footprint);
  Topology host = TopologyRegistry::parse(r.host);
  Guest guest = parse_guest(r.guest, host.pes(), r.oriented);
  detail::check_threads(r.threads);
  const EmbedMap map = parse_embed_map(r.map);
  return {std::move(host), std::move(guest), map};
}
}  // namespace

void validate(const Embed& r) { (void)check(r); }

EmbedOutcome run(const Embed& r) {
  const Checked c = check(r);
  const detail::Parallelism limit(r.threads);
  EmbedOutcome out;
  out.threads = limit.threads;
  out.result = embed(c.guest, c.host, c.map, r.faults, r.seed);
  return out;
}

std::string EmbedOutcome::text() const {
  const EmbedResult& e = result;
  std::string s = fmt::format("guest           {} ({} nodes, {} arcs routed)\n", e.guest, e.guest_nodes, e.arcs);
  s += fmt::format("host            {} ({} PEs)\n", e.host, e.host_pes);
  s += fmt::format("map             {}\n", e.map);
  if (!e.faults.empty())
    s += fmt::format("faults          {}: {} PEs failed, {} guest nodes moved to the next live PE{}; arcs rerouted "
                     "around the failures\n", e.faults, e.failed_pes, e.moved,
                     e.rotation ? fmt::format(" (starting at position {} of the host cycle)", e.rotation) : "");
  s += fmt::format("dilation        {}   (mean {:.4f} host links per guest arc)\n", e.dilation, e.mean_dilation);
  s += fmt::format("congestion      {}   (guest arcs over the busiest host link)\n", e.congestion);
  s += fmt::format("load            {}   (guest nodes on the fullest PE)\n", e.load);
  s += fmt::format("expansion       {:.4f}   (host PEs / guest nodes)\n", e.expansion);
  return s;
}

}  // namespace rica::request
