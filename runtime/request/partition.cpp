// rica/request/partition.hpp: the checks, the run and the text of `rica partition`.
#include "rica/request/partition.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rica/footprint.hpp"
#include "rica/registry.hpp"
#include "request_common.hpp"

namespace rica::request {

PairCheck parse_pair_check(const std::string& name) {
  if (name == "auto") return PairCheck::automatic;
  if (name == "all") return PairCheck::all;
  if (name == "sample") return PairCheck::sample;
  throw usage_error(fmt::format("--pairs '{}': valid: auto, all, sample", name));
}

namespace {
/// Every check of validate(), in the order the CLI always made them; what they parsed.
struct Checked {
  Topology topology;
  PartitionRequest cut;
};
Checked check(const Partition& r) {
  if (r.parts != 0) detail::check_range("--parts", r.parts, 1, defaults::limits::parts);
  detail::check_range("--samples", r.samples, 1, Partition::max_samples);
  detail::check_threads(r.threads);
  (void)check_memory_for("partition", r.topology, partition_footprint);
  Checked c{TopologyRegistry::parse(r.topology), {}};
  c.cut.parts = r.parts;
  if (!r.dims.empty()) c.cut.dims = parse_dim_cuts(r.dims);
  for (const std::string& s : r.cuts) c.cut.cuts.push_back(parse_axis_cut(s));
  c.cut.verify.pairs = parse_pair_check(r.pairs);
  c.cut.verify.sample_destinations = r.samples;
  c.cut.verify.seed = r.seed;
  return c;
}
}  // namespace

void validate(const Partition& r) { (void)check(r); }

PartitionOutcome run(const Partition& r) {
  Checked c = check(r);
  const detail::Parallelism limit(r.threads);
  PartitionPlan plan = partition(c.topology, c.cut);
  return PartitionOutcome{std::move(c.topology), std::move(plan), r.routers, limit.threads};
}

namespace {
std::string example_text(const Topology& t, const OutsideHop& h) {
  return fmt::format("{} -> {} steps {} --port {}--> {}", t.label(h.src), t.label(h.dst), t.label(h.from), h.port,
                     t.label(h.to));
}
}  // namespace

std::string PartitionOutcome::text() const {
  const Topology& t = topology;
  const std::size_t k = plan.parts.size();
  std::string s = fmt::format("partition {}: {} part{} by rule {}, verified {}{}\n", plan.spec, k, k == 1 ? "" : "s",
                              plan.rule, plan.method,
                              plan.method == "sampled" ? fmt::format(" (seed {})", plan.seed) : "");
  for (const std::string& line : plan.search) s += fmt::format("  search: {}\n", line);
  std::size_t width = 11;
  for (const rica::Partition& P : plan.parts) width = std::max(width, P.description.size());
  s += fmt::format("{:>5}  {:>8}  {:<6}  {:<{}}  {}\n", "#", "PEs", "status", "PE range", width,
                   plan.direct ? "outside nodes touched" : "outside nodes touched (switches used)");
  for (std::size_t i = 0; i < k; ++i) {
    const rica::Partition& P = plan.parts[i];
    std::size_t switches = 0;
    for (node_t v : P.nodes) switches += v >= plan.pes ? 1 : 0;
    std::string outside = std::to_string(P.outside_nodes.size());
    if (!plan.direct) outside += fmt::format(" ({})", switches);
    if (!P.closed)
      outside += fmt::format(", {} of {} pairs leave", P.leaving_pairs, P.pairs_covered);
    else if (!P.isolated)
      outside += ", but other partitions' routes enter it";
    s += fmt::format("{:>5}  {:>8}  {:<6}  {:<{}}  {}\n", i, P.pes.size(), P.closed ? "closed" : "OPEN", P.description,
                     width, outside);
    for (std::size_t e = 0; e < P.examples.size() && e < 2; ++e)
      s += fmt::format("{:>5}  e.g. {}\n", "", example_text(t, P.examples[e]));
  }
  std::uint64_t pairs = 0, routed = 0, covered = 0;
  for (const rica::Partition& P : plan.parts) {
    pairs += P.pairs;
    routed += P.pairs_routed;
    covered += P.pairs_covered;
  }
  const bool isolated =
      std::all_of(plan.parts.begin(), plan.parts.end(), [](const rica::Partition& P) { return P.isolated; });
  s += fmt::format("{} of {} closed{}; pairs {} (routed {}{}); {:.3f} s\n", plan.closed_count(), k,
                   isolated ? ", all isolated" : "", pairs, routed,
                   covered < pairs ? fmt::format(", covered {}", covered) : "", plan.seconds);
  return s;
}

}  // namespace rica::request
