// `rica embed GUEST HOST`: a ring, linear array, complete binary tree, double tree,
// shuffle-exchange graph, mesh or torus placed on a host topology (intact or with --faults) and
// routed by the host's routing (the de Bruijn paper §4). A thin presenter over the library request
// rica/request/embed.hpp: options -> request::Embed; run; text or JSON (the same for Python).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/request/embed.hpp"

namespace rica::cli {
namespace {

struct EmbedOptions {
  CLI::App* cmd = nullptr;
  request::Embed request;  ///< guest, host, map, oriented, threads; faults and seed from `engine`
  std::string json;
  bool quiet = false;
  EngineOptions engine;  ///< --faults and --seed only
  request::Embed typed() const {
    request::Embed r = request;
    r.faults = engine.faults;
    r.seed = engine.cfg.seed;
    return r;
  }
};

void declare(CLI::App* cmd, EmbedOptions& o) {
  o.cmd = cmd;
  add_text(cmd, "guest", o.request.guest,
           "ring[:N] | array[:N] | tree[:H] | double-tree[:H] | shuffle-exchange[:n] | mesh[:RxC] | torus[:RxC] (default "
           "size: fills the host)",
           "ring[:N], array[:N], tree[:H], double-tree[:H], shuffle-exchange[:n], mesh[:RxC] or torus[:RxC]")->required();
  add_text(cmd, "host", o.request.host, "Host topology spec (see 'rica list')", "a topology spec (see 'rica list')")->required();
  cmd->add_option("--map", o.request.map,
                  "auto | identity | debruijn (de Bruijn sequence / heap order / shifts) | gray | product (a mesh or torus "
                  "as the product of its factors' arrays or rings) | search (an exact, "
                  "bounded search for a placement with every guest arc on a live host link, one guest node per PE)")
      ->capture_default_str();
  cmd->add_option("--search-budget", o.request.search_budget,
                  fmt::format("--map search: guest nodes placed before the search gives up (per fault with "
                              "--every-fault), 1..{}", defaults::embed::search_budget_max))
      ->capture_default_str();
  cmd->add_flag("--every-fault", o.request.every_fault,
                "--map search once per single fault of --faults links=1 (every link) or nodes=1 (every PE): how many "
                "have a placement, how many provably none, how many the budget left open");
  cmd->add_flag("--oriented", o.request.oriented, "Route each guest edge one way only (i -> i+1, parent -> child)");
  add_engine_options(cmd, o.engine);
  add_json(cmd, o.json, "Write the figures as JSON to FILE");
  add_quiet(cmd, o.quiet);
  add_threads(cmd, o.request.threads);
}

/// What `--json` writes: provenance (the options as configuration) and the figures.
nlohmann::json report(const EmbedOptions& o, const request::EmbedOutcome& r) {
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = r.threads;
  nlohmann::json j = provenance(config, 0, r.threads);
  j.update(r.to_json());
  return j;
}

}  // namespace

nlohmann::json embed_json(const std::vector<std::string>& args) {
  EmbedOptions o;
  std::optional<nlohmann::json> out;
  parse_subcommand("embed", args, [&](CLI::App* c) { declare(c, o); }, [&] {
    if (!o.json.empty() || o.quiet) throw usage_error("embed: --json and --quiet are the CLI's; the result is returned");
    out.emplace(report(o, request::run(o.typed())));
  });
  return std::move(*out);
}

void add_embed_command(CLI::App& app) {
  auto o = std::make_shared<EmbedOptions>();
  auto* cmd = app.add_subcommand(
      "embed", "Embed a ring, array, binary tree, double tree, shuffle-exchange graph, mesh or torus in a topology, "
               "intact or with faults: dilation, congestion, load");
  declare(cmd, *o);
  cmd->callback([o] {
    const request::EmbedOutcome r = request::run(o->typed());
    if (!o->json.empty()) write_json(o->json, report(*o, r));
    if (show_text(o->quiet, o->json)) fmt::print("{}", r.text());
  });
}

}  // namespace rica::cli
