// `rica embed GUEST HOST`: a ring, linear array, complete binary tree, double tree,
// shuffle-exchange graph, mesh or torus placed on a host topology (intact or with --faults) and
// routed by the host's routing (the de Bruijn paper §4).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "options.hpp"
#include "rica/embed.hpp"
#include "rica/registry.hpp"

namespace rica::cli {
namespace {

struct EmbedOptions {
  CLI::App* cmd = nullptr;
  std::string guest, host, map = "auto";
  std::string json;
  bool oriented = false, quiet = false;
  unsigned threads = 0;
  EngineOptions engine;  ///< --faults and --seed only
};

void run_embed(const EmbedOptions& o) {
  (void)check_memory_for("embed", o.host, embed_footprint);
  const Topology host = TopologyRegistry::parse(o.host);
  const Guest g = parse_guest(o.guest, host.pes(), o.oriented);
  const ThreadLimit limit(o.threads);
  const EmbedResult r = embed(g, host, parse_embed_map(o.map), o.engine.faults, o.engine.cfg.seed);
  if (!o.json.empty()) {
    nlohmann::json config = option_config(o.cmd);
    config["threads"] = limit.threads;
    nlohmann::json j = provenance(config, 0, limit.threads);
    j.update(to_json(r));
    write_json(o.json, j);
  }
  if (!show_text(o.quiet, o.json)) return;
  fmt::print("guest           {} ({} nodes, {} arcs routed)\n", r.guest, r.guest_nodes, r.arcs);
  fmt::print("host            {} ({} PEs)\n", r.host, r.host_pes);
  fmt::print("map             {}\n", r.map);
  if (!r.faults.empty())
    fmt::print("faults          {}: {} PEs failed, {} guest nodes moved to the next live PE{}; arcs rerouted "
               "around the failures\n", r.faults, r.failed_pes, r.moved,
               r.rotation ? fmt::format(" (starting at position {} of the host cycle)", r.rotation) : "");
  fmt::print("dilation        {}   (mean {:.4f} host links per guest arc)\n", r.dilation, r.mean_dilation);
  fmt::print("congestion      {}   (guest arcs over the busiest host link)\n", r.congestion);
  fmt::print("load            {}   (guest nodes on the fullest PE)\n", r.load);
  fmt::print("expansion       {:.4f}   (host PEs / guest nodes)\n", r.expansion);
}

}  // namespace

void add_embed_command(CLI::App& app) {
  auto o = std::make_shared<EmbedOptions>();
  auto* cmd = app.add_subcommand(
      "embed", "Embed a ring, array, binary tree, double tree, shuffle-exchange graph, mesh or torus in a topology, "
               "intact or with faults: dilation, congestion, load");
  o->cmd = cmd;
  add_text(cmd, "guest", o->guest,
           "ring[:N] | array[:N] | tree[:H] | double-tree[:H] | shuffle-exchange[:n] | mesh[:RxC] | torus[:RxC] (default "
           "size: fills the host)",
           "ring[:N], array[:N], tree[:H], double-tree[:H], shuffle-exchange[:n], mesh[:RxC] or torus[:RxC]")->required();
  add_text(cmd, "host", o->host, "Host topology spec (see 'rica list')", "a topology spec (see 'rica list')")->required();
  cmd->add_option("--map", o->map, "auto | identity | debruijn (de Bruijn sequence / heap order / shifts) | gray")
      ->capture_default_str();
  cmd->add_flag("--oriented", o->oriented, "Route each guest edge one way only (i -> i+1, parent -> child)");
  add_engine_options(cmd, o->engine);
  add_json(cmd, o->json, "Write the figures as JSON to FILE");
  add_quiet(cmd, o->quiet);
  add_threads(cmd, o->threads);
  cmd->callback([o] { run_embed(*o); });
}

}  // namespace rica::cli
