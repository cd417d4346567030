// `rica experiment`: the papers' dynamic experiments and the faults experiment, a thin presenter
// over the library request rica/request/experiment.hpp (the same for Python): its options
// registered from the request's declarations, its refusals, runs and files the request's; here
// the progress display, the text, the --json report with the invocation's provenance, the figures.
// `rica bound`: the channel-load bound of any topology and pattern (rica/request/bound.hpp).
#include <fmt/format.h>

#include <memory>
#include <optional>
#include <type_traits>
#include <variant>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/request/bound.hpp"
#include "rica/request/experiment.hpp"

namespace rica::cli {
namespace {

struct ExperimentOptions {
  CLI::App* cmd = nullptr;
  request::Experiment request;  ///< every option of experiment_options(); faults from `engine`
  EngineOptions engine;         ///< --faults (the option table's)
  std::string json;
  bool quiet = false, progress = false, no_plot = false, list = false;
};

/// The request of the parsed options; its provenance is the invocation's with the resolved
/// threads and window, as every JSON report of the CLI records it.
request::Experiment experiment_request(const ExperimentOptions& o) {
  request::Experiment r = o.request;
  r.faults = o.engine.faults;
  r.provenance = [cmd = o.cmd](const EngineConfig& cfg) {
    nlohmann::json options = option_config(cmd);
    options["threads"] = cfg.threads;
    options["cycles"] = cfg.cycles;
    return provenance(options, cfg.seed, cfg.threads);
  };
  return r;
}

void experiment(const ExperimentOptions& o) {
  if (o.list) {
    fmt::print("{}", request::experiment_list());
    return;
  }
  const request::Experiment r = experiment_request(o);
  std::vector<Output> outputs = dir_outputs(request::output_dir(r), request::output_files(r));
  outputs.push_back({"--json", o.json});
  check_distinct_outputs(outputs);
  std::optional<Progress> bar;
  const request::ExperimentOutcome out = request::run(
      r, {.start =
              [&](const std::string& plan, std::size_t runs) {
                if (!o.quiet) fmt::print(stderr, "rica experiment {}: {}\n", r.name, plan);
                bar.emplace("runs", runs, o.quiet, o.progress);
              },
          .point = [&](std::size_t done, std::size_t, const std::string& line) { bar->update(done, line); }});
  if (bar) bar->finish();
  if (!o.json.empty()) write_json(o.json, out.report);
  if (show_text(o.quiet, o.json)) fmt::print("{}", out.text);
  if (!o.no_plot) (void)request::plot(out);
}

/// The options of `rica experiment`: the request's, registered from its declarations
/// (request::experiment_options()), then the presentation's and --faults.
void declare_experiment(CLI::App* e, ExperimentOptions& o) {
  for (const request::ExperimentOption& d : request::experiment_options())
    std::visit(
        [&](auto member) {
          auto& target = o.request.*member;
          using T = std::decay_t<decltype(target)>;
          if constexpr (std::is_same_v<T, std::string>) {
            if (d.name.starts_with("--"))
              add_output_dir(e, d.name, target, d.help);
            else
              add_text(e, d.name, target, d.help, d.accepted);
          } else if constexpr (std::is_same_v<T, bool>) {
            e->add_flag(d.name, target, d.help);
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            add_name_list(e, d.name, target, d.help);
          } else {
            add_uint(e, d.name, target, d.lo, d.hi, d.help);
          }
        },
        d.member);
  e->add_flag("--no-plot", o.no_plot, "Write the CSV and tables only");
  e->add_flag("--list", o.list, "List the experiments");
  o.cmd = e;
  add_json(e, o.json, "Write the table, the set-up, configuration and provenance as JSON to FILE");
  add_quiet(e, o.quiet);
  add_progress(e, o.progress);
  add_engine_options(e, o.engine);
}

// ---- rica bound ----------------------------------------------------------------------------------

struct BoundOptions {
  CLI::App* cmd = nullptr;
  bool quiet = false;
  request::Bound request;  ///< topologies, traffic, all_pairs; the engine from `engine`
  EngineOptions engine;
  std::string json;
};

/// A thin presenter over the library request rica/request/bound.hpp (the same for Python).
nlohmann::json bound_report(const BoundOptions& o, const request::BoundOutcome& r) {
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = r.engine.threads;
  nlohmann::json j = provenance(config, r.engine.seed, r.engine.threads);
  j["bounds"] = r.to_json();
  return j;
}

request::Bound bound_request(const BoundOptions& o) {
  BoundOptions b = o;
  b.engine.cfg.engine = EngineKind::cycle;  // the bound is in cycles: the cycle engine's link time
  request::Bound r = o.request;
  r.engine = engine_config(b.engine);
  r.routings = b.engine.values.routings;
  return r;
}

void bound(const BoundOptions& o) {
  const bool text = show_text(o.quiet, o.json);
  const request::Bound req = bound_request(o);
  request::validate(req);
  if (text) fmt::print("{}", request::BoundOutcome::text_header());
  const request::BoundOutcome r = request::run(req, [&](const request::BoundOutcome& out, const auto& row) {
    if (text) fmt::print("{}", out.text_row(row));
  });
  if (text) fmt::print("{}", r.text_footer());
  if (!o.json.empty()) write_json(o.json, bound_report(o, r));
}

void declare_bound(CLI::App* c, BoundOptions& o) {
  BoundOptions* const b = &o;
  add_text(c, "topology", b->request.topologies, "One or more topology specs", "a topology spec (see 'rica list')")->required();
  add_text(c, "--traffic", b->request.traffic, "Traffic pattern (mesh = the mesh-emulation neighbours)",
           "a traffic pattern (see 'rica list')");
  add_engine_options(c, b->engine);
  c->add_flag("--all-pairs", b->request.all_pairs, "Walk every pair even when a symmetry or sampling would do");
  b->cmd = c;
  add_json(c, b->json, "Write the figures, configuration and provenance as JSON to FILE");
  add_quiet(c, b->quiet);
}

}  // namespace

nlohmann::json bound_json(const std::vector<std::string>& args) {
  BoundOptions o;
  std::optional<nlohmann::json> out;
  parse_subcommand("bound", args, [&](CLI::App* c) { declare_bound(c, o); }, [&] {
    if (!o.json.empty() || o.quiet) throw usage_error("bound: --json and --quiet are the CLI's; the result is returned");
    out.emplace(bound_report(o, request::run(bound_request(o))));
  });
  return std::move(*out);
}

nlohmann::json experiment_json(const std::vector<std::string>& args) {
  ExperimentOptions o;
  std::optional<nlohmann::json> out;
  parse_subcommand("experiment", args, [&](CLI::App* c) { declare_experiment(c, o); }, [&] {
    if (!o.json.empty() || o.quiet || o.progress || o.list)
      throw usage_error("experiment: --json, --quiet, --progress and --list are the CLI's; the result is returned");
    const request::ExperimentOutcome r = request::run(experiment_request(o));
    if (!o.no_plot) (void)request::plot(r);
    out.emplace(r.report);
  });
  return std::move(*out);
}

void add_experiment_commands(CLI::App& app) {
  auto o = std::make_shared<ExperimentOptions>();
  auto* e = app.add_subcommand("experiment", "Reproduce a paper's dynamic experiment: sweeps, figures, tables");
  declare_experiment(e, *o);
  e->callback([o] { experiment(*o); });

  auto b = std::make_shared<BoundOptions>();
  declare_bound(app.add_subcommand("bound", "Channel load and saturation bound of a traffic pattern on topologies"), *b);
  b->cmd->callback([b] { bound(*b); });
}

}  // namespace rica::cli
