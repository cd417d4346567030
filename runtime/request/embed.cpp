// rica/request/embed.hpp: the checks and the run of `rica embed`.
#include "rica/request/embed.hpp"

#include <fmt/format.h>
#include "rica/faults.hpp"
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
  if (r.search_budget < 1 || r.search_budget > defaults::embed::search_budget_max)
    throw usage_error(fmt::format("embed: --search-budget {} is out of range [1, {}]", r.search_budget,
                                  defaults::embed::search_budget_max));
  if (r.every_fault) {
    if (map != EmbedMap::search)
      throw usage_error("embed: --every-fault searches a placement per fault: add --map search");
    const FaultSpec f = parse_fault_spec(r.faults);
    if (!f.file.empty() || f.at || f.links + f.nodes != 1)
      throw usage_error(fmt::format("embed: --every-fault tries every single fault: give --faults links=1 or "
                                    "--faults nodes=1 (got '{}')", r.faults));
  }
  return {std::move(host), std::move(guest), map};
}
}  // namespace

void validate(const Embed& r) { (void)check(r); }

EmbedOutcome run(const Embed& r) {
  const Checked c = check(r);
  const detail::Parallelism limit(r.threads);
  EmbedOutcome out;
  out.threads = limit.threads;
  out.result = r.every_fault ? embed_every_fault(c.guest, c.host, r.faults, r.search_budget)
                             : embed(c.guest, c.host, c.map, r.faults, r.seed, r.search_budget);
  return out;
}

std::string EmbedOutcome::text() const {
  const EmbedResult& e = result;
  std::string s = fmt::format("guest           {} ({} nodes, {} arcs routed)\n", e.guest, e.guest_nodes, e.arcs);
  s += fmt::format("host            {} ({} PEs)\n", e.host, e.host_pes);
  s += fmt::format("map             {}\n", e.map);
  if (e.every_fault) {
    const EveryFaultResult& f = *e.every_fault;
    s += fmt::format("every fault     {} single {} faults: placement found for {}, none exists for {} (exhaustive), "
                     "gave up on {} ({} steps each at most; the most used {}){}\n",
                     f.faults, f.kind == "links" ? "link" : "node", f.found, f.none, f.gave_up, f.budget, f.steps_max,
                     f.repaired ? fmt::format("; {} repaired by a spare", f.repaired) : "");
    const std::size_t shown = std::min<std::size_t>(f.missing.size(), 10);
    for (std::size_t i = 0; i < shown; ++i)
      s += fmt::format("  no placement  {}: {}\n", f.missing[i].first,
                       f.missing[i].second == SearchStatus::none ? "none exists" : "gave up");
    if (shown < f.missing.size()) s += fmt::format("  ... and {} more (all in --json)\n", f.missing.size() - shown);
    return s;
  }
  if (e.search) {
    s += e.search == SearchStatus::found
             ? fmt::format("search          found: every guest arc on a live host link, one guest node per PE ({} "
                           "steps of {})\n", e.search_steps, e.search_budget)
         : e.search == SearchStatus::none
             ? fmt::format("search          none exists: no placement with every guest arc on a live host link and one "
                           "guest node per PE (exhaustive, {} steps)\n", e.search_steps)
             : fmt::format("search          gave up after {} steps (--search-budget): nothing proved\n", e.search_steps);
  }
  if (!e.faults.empty() && e.search)
    s += fmt::format("faults          {}: {} PEs failed; the search used live PEs and links only\n", e.faults,
                     e.failed_pes);
  if (!e.placed()) return s;
  if (!e.faults.empty() && !e.search)
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
