// `rica partition`: cut a topology into K partitions by its rule and verify which are closed.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "rica/partition.hpp"
#include "rica/registry.hpp"

namespace rica::cli {
namespace {

struct PartitionOptions {
  CLI::App* cmd = nullptr;
  std::string spec;
  std::string json;
  bool quiet = false;
  unsigned threads = defaults::engine::threads;
  std::uint32_t parts = 0;
  std::string dims;
  std::vector<std::string> cuts;
  std::string pairs = "auto";
  unsigned samples = defaults::partition::sample_destinations;
  std::uint64_t seed = defaults::partition::seed;
  bool routers = false;
};

std::string example_text(const Topology& t, const OutsideHop& h) {
  return fmt::format("{} -> {} steps {} --port {}--> {}", t.label(h.src), t.label(h.dst), t.label(h.from), h.port,
                     t.label(h.to));
}

void print_plan(const Topology& t, const PartitionPlan& plan) {
  const std::size_t k = plan.parts.size();
  fmt::print("partition {}: {} part{} by rule {}, verified {}{}\n", plan.spec, k, k == 1 ? "" : "s", plan.rule,
             plan.method, plan.method == "sampled" ? fmt::format(" (seed {})", plan.seed) : "");
  for (const std::string& s : plan.search) fmt::print("  search: {}\n", s);
  std::size_t width = 11;
  for (const Partition& P : plan.parts) width = std::max(width, P.description.size());
  fmt::print("{:>5}  {:>8}  {:<6}  {:<{}}  {}\n", "#", "PEs", "status", "PE range", width,
             plan.direct ? "outside nodes touched" : "outside nodes touched (switches used)");
  for (std::size_t i = 0; i < k; ++i) {
    const Partition& P = plan.parts[i];
    std::size_t switches = 0;
    for (node_t v : P.nodes) switches += v >= plan.pes ? 1 : 0;
    std::string outside = std::to_string(P.outside_nodes.size());
    if (!plan.direct) outside += fmt::format(" ({})", switches);
    if (!P.closed)
      outside += fmt::format(", {} of {} pairs leave", P.leaving_pairs, P.pairs_covered);
    else if (!P.isolated)
      outside += ", but other partitions' routes enter it";
    fmt::print("{:>5}  {:>8}  {:<6}  {:<{}}  {}\n", i, P.pes.size(), P.closed ? "closed" : "OPEN", P.description, width,
               outside);
    for (std::size_t e = 0; e < P.examples.size() && e < 2; ++e)
      fmt::print("{:>5}  e.g. {}\n", "", example_text(t, P.examples[e]));
  }
  std::uint64_t pairs = 0, routed = 0, covered = 0;
  for (const Partition& P : plan.parts) {
    pairs += P.pairs;
    routed += P.pairs_routed;
    covered += P.pairs_covered;
  }
  const bool isolated = std::all_of(plan.parts.begin(), plan.parts.end(), [](const Partition& P) { return P.isolated; });
  fmt::print("{} of {} closed{}; pairs {} (routed {}{}); {:.3f} s\n", plan.closed_count(), k,
             isolated ? ", all isolated" : "", pairs, routed, covered < pairs ? fmt::format(", covered {}", covered) : "",
             plan.seconds);
}

void run_partition(const PartitionOptions& o) {
  (void)check_memory_for("partition", o.spec, partition_footprint);
  const Topology t = TopologyRegistry::parse(o.spec);
  PartitionRequest r;
  r.parts = o.parts;
  if (!o.dims.empty()) r.dims = parse_dim_cuts(o.dims);
  for (const std::string& c : o.cuts) r.cuts.push_back(parse_axis_cut(c));
  if (o.pairs == "auto") {
    r.verify.pairs = PairCheck::automatic;
  } else if (o.pairs == "all") {
    r.verify.pairs = PairCheck::all;
  } else if (o.pairs == "sample") {
    r.verify.pairs = PairCheck::sample;
  } else {
    throw usage_error(fmt::format("--pairs '{}': valid: auto, all, sample", o.pairs));
  }
  r.verify.sample_destinations = o.samples;
  r.verify.seed = o.seed;
  const ThreadLimit limit(o.threads);
  const PartitionPlan plan = partition(t, r);
  if (!o.json.empty()) {
    nlohmann::json config = option_config(o.cmd);
    config["threads"] = limit.threads;
    nlohmann::json j = provenance(config, o.seed, limit.threads);
    j.update(to_json(plan, t, o.routers));
    write_json(o.json, j);
  }
  if (show_text(o.quiet, o.json)) print_plan(t, plan);
}

}  // namespace

void add_partition_command(CLI::App& app) {
  auto opt = std::make_shared<PartitionOptions>();
  auto* cmd = app.add_subcommand(
      "partition", "Cut a topology into K partitions by its rule and verify which are closed (docs/partitions.md)");
  opt->cmd = cmd;
  add_text(cmd, "spec", opt->spec, "Topology spec (see 'rica list')", "a topology spec (see 'rica list')")->required();
  add_uint(cmd, "--parts,-k", opt->parts, 1, defaults::limits::parts, "K, the number of partitions");
  cmd->add_option("--dims", opt->dims,
                  "Dimensions of the shape to cut: D or D:B (B high bits = 2^B pieces), comma separated, e.g. 2:1,1:1");
  cmd->add_option("--cut", opt->cuts, "Explicit cut points of a grid dimension: D=c1[,c2...] (repeatable), e.g. 0=5");
  cmd->add_option("--pairs", opt->pairs,
                  "Pairs to route: auto (symmetry where exact, else all pairs up to a limit, else sample), all, sample")
      ->capture_default_str();
  add_uint(cmd, "--samples", opt->samples, 1, 1u << 20, "Destinations per partition when sampling");
  add_seed(cmd, opt->seed, "Seed of the destination sample");
  add_json(cmd, opt->json, "Write JSON to FILE: every partition's PEs, closed flag, offending hops");
  add_quiet(cmd, opt->quiet);
  add_threads(cmd, opt->threads);
  cmd->add_flag("--routers", opt->routers, "With --json: also every partition's nodes and links (link = node*ports+port)");
  cmd->callback([opt] { run_partition(*opt); });
}

}  // namespace rica::cli
