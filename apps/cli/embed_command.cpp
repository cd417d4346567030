// `rica embed GUEST HOST`: a ring, linear array or complete binary tree placed on a host
// topology and routed by the host's routing (the de Bruijn paper §4).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "rica/embed.hpp"
#include "rica/registry.hpp"

namespace rica::cli {
namespace {

struct EmbedOptions {
  std::string guest, host, map = "auto";
  bool oriented = false, json = false;
};

void run_embed(const EmbedOptions& o) {
  const Topology host = TopologyRegistry::parse(o.host);
  const Guest g = parse_guest(o.guest, host.pes(), o.oriented);
  const EmbedResult r = embed(g, host, parse_embed_map(o.map));
  if (o.json) {
    std::cout << to_json(r).dump(2) << "\n";
    return;
  }
  fmt::print("guest           {} ({} nodes, {} arcs routed)\n", r.guest, r.guest_nodes, r.arcs);
  fmt::print("host            {} ({} PEs)\n", r.host, r.host_pes);
  fmt::print("map             {}\n", r.map);
  fmt::print("dilation        {}   (mean {:.4f} host links per guest arc)\n", r.dilation, r.mean_dilation);
  fmt::print("congestion      {}   (guest arcs over the busiest host link)\n", r.congestion);
  fmt::print("load            {}   (guest nodes on the fullest PE)\n", r.load);
  fmt::print("expansion       {:.4f}   (host PEs / guest nodes)\n", r.expansion);
}

}  // namespace

void add_embed_command(CLI::App& app) {
  auto o = std::make_shared<EmbedOptions>();
  auto* cmd = app.add_subcommand(
      "embed", "Embed a ring, linear array or binary tree in a topology: dilation, congestion, load");
  cmd->add_option("guest", o->guest, "ring[:N] | array[:N] | tree[:H] (default size: fills the host)")->required();
  cmd->add_option("host", o->host, "Host topology spec (see 'rica list')")->required();
  cmd->add_option("--map", o->map, "auto | identity | debruijn (de Bruijn sequence / heap order) | gray")
      ->capture_default_str();
  cmd->add_flag("--oriented", o->oriented, "Route each guest edge one way only (i -> i+1, parent -> child)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o] { run_embed(*o); });
}

}  // namespace rica::cli
