// `rica experiment`: the papers' dynamic experiments (apps/experiments) — every network under
// every pattern as a latency-throughput sweep on the cycle engine, with figures in the papers'
// form, a table of zero-load latency and saturation throughput, and the channel-load bound.
// `rica bound`: the channel-load bound of any topology and pattern.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <thread>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/io.hpp"
#include "experiment.hpp"
#include "faults_experiment.hpp"
#include "rica/channel_load.hpp"
#include "rica/faults.hpp"
#include "rica/interrupt.hpp"
#include "rica/registry.hpp"
#include "rica/request/bound.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

using namespace rica::experiments;

struct ExperimentOptions {
  CLI::App* cmd = nullptr;
  std::string name;
  std::string json;
  bool quiet = false, progress = false;
  std::string out;  ///< default out/experiments/<name>
  bool quick = false, no_plot = false, list = false;
  std::vector<std::string> networks, patterns;  ///< empty = all of the set-up (an empty option value is refused)
  std::optional<std::uint64_t> cycles;          ///< unset = the set-up's (quick: 2,000)
  unsigned jobs = 0;                            ///< runs at once; 0 = one per core
  unsigned threads = 1;                         ///< threads per run (0 = all cores)
  std::uint64_t seed = defaults::engine::seed;
  unsigned seeds = 0;                           ///< --seeds K per point; 0 = the set-up's
  EngineOptions engine;                         ///< --faults only (engine.faults)
};

/// A pattern's set-up name: "mesh" for "mesh:wrap=0" (a variant of a set-up pattern).
std::string pattern_base(const std::string& p) { return p.substr(0, p.find(':')); }

/// The set-up's networks (or patterns) named in `filter` (labels or specs), in set-up order.
std::vector<Network> pick_networks(const Setup& s, const std::vector<std::string>& filter) {
  if (filter.empty()) return s.networks;
  std::vector<Network> out;
  for (const auto& want : filter) {
    auto it = std::find_if(s.networks.begin(), s.networks.end(),
                           [&](const Network& n) { return n.label == want || n.spec == want; });
    if (it == s.networks.end()) {
      std::string valid;
      for (const auto& n : s.networks) valid += (valid.empty() ? "" : ", ") + n.label;
      throw usage_error(fmt::format("--networks: '{}' is not a network of '{}'; valid: {}", want, s.name, valid));
    }
    out.push_back(*it);
  }
  return out;
}

std::vector<std::string> pick_patterns(const Setup& s, const std::vector<std::string>& filter) {
  if (filter.empty()) return s.patterns;
  std::vector<std::string> out;
  for (const auto& want : filter) {
    // A set-up pattern, or a variant of one with its own parameters (e.g. mesh:wrap=0).
    const bool exact = std::find(s.patterns.begin(), s.patterns.end(), want) != s.patterns.end();
    const bool variant = !exact && want.find(':') != std::string::npos &&
                         std::find(s.patterns.begin(), s.patterns.end(), pattern_base(want)) != s.patterns.end();
    if (!exact && !variant) {
      std::string valid;
      for (const auto& p : s.patterns) valid += (valid.empty() ? "" : ", ") + p;
      throw usage_error(fmt::format("--patterns: '{}' is not a pattern of '{}'; valid: {} (or one with parameters, "
                                    "e.g. mesh:wrap=0)",
                                    want, s.name, valid));
    }
    if (variant) (void)TrafficRegistry::canonical(want);  // a bad parameter: usage_error naming it
    out.push_back(want);
  }
  return out;
}

std::string duration(double s) {
  const auto t = static_cast<long>(s + 0.5);
  return t >= 60 ? fmt::format("{}m{:02d}s", t / 60, t % 60) : fmt::format("{}s", t);
}

void write_file(const std::string& path, const std::string& text) { write_text_file(path, text, "--out"); }

void list_experiments() {
  for (const Setup& s : setups()) {
    fmt::print("{:<11} {}\n            source: {}\n            networks:", s.name, s.title, s.source);
    for (const auto& n : s.networks) fmt::print(" {}={}", n.label, n.spec);
    fmt::print("\n            patterns:");
    for (const auto& p : s.patterns) fmt::print(" {}", p);
    fmt::print("\n");
  }
  fmt::print("{:<11} {}\n            source: {}\n", "faults",
             "throughput and latency against failed links (0..16) on 1,024-PE networks; de Bruijn spares",
             "docs/faults.md (M_{x+x} §4 table rerouting, de Bruijn §3 spare per necklace)");
}

void experiment(const ExperimentOptions& o) {
  if (o.list) {
    list_experiments();
    return;
  }
  if (o.name.empty()) throw usage_error("experiment: give a name (see rica experiment --list)");
  if (o.name == "faults") {  // its own shape: failed links on the x axis (apps/cli/faults_experiment.cpp)
    if (!o.networks.empty() || !o.patterns.empty() || o.seeds)
      throw usage_error("experiment faults: --networks, --patterns and --seeds do not apply");
    if (!o.engine.faults.empty())
      throw usage_error("experiment faults: --faults does not apply (the experiment fails 0, 1, 2, 4 ... links itself)");
    FaultsExperimentOptions f;
    f.cmd = o.cmd;
    f.out = o.out;
    f.json = o.json;
    f.quick = o.quick;
    f.no_plot = o.no_plot;
    f.quiet = o.quiet;
    f.progress = o.progress;
    f.cycles = o.cycles;
    f.jobs = o.jobs;
    f.threads = o.threads;
    f.seed = o.seed;
    faults_experiment(f);
    return;
  }
  const Setup& setup = setup_by_name(o.name);
  const auto networks = pick_networks(setup, o.networks);
  const auto patterns = pick_patterns(setup, o.patterns);
  EngineConfig cfg = engine_config(setup);
  cfg.cycles = o.cycles ? *o.cycles : o.quick ? 2000 : setup.cycles;
  cfg.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  cfg.seed = o.seed;
  validate(cfg);
  const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency() / cfg.threads);
  // Seeds per point: --seeds K for every pattern; else the set-up's (hot spot: several, others: 1).
  const unsigned seeds_hot = o.seeds ? o.seeds : o.quick ? 1 : setup.hotspot_seeds;
  const unsigned seeds_other = o.seeds ? o.seeds : 1;
  check_seeds(cfg.seed, std::max(seeds_hot, seeds_other));

  const std::string out = o.out.empty() ? "out/experiments/" + setup.name : o.out;
  std::vector<Output> outputs = dir_outputs(out, {"points.csv", "table.csv", "table.json", "table.md", "config.json"});
  outputs.push_back({"--json", o.json});
  check_distinct_outputs(outputs);
  prepare_output_dir(out, "--out");
  write_file(out + "/points.csv", points_csv_header());  // fail now, not after the sweep
  for (const char* f : {"table.csv", "table.json", "table.md", "config.json"}) check_output_file(out + "/" + f, "--out");

  // Every sweep's rates come from its pattern's channel-load bound.
  struct Group {
    std::string pattern;
    Network net;
    ChannelLoad load;
    std::size_t first = 0, count = 0;  // its jobs
  };
  std::vector<Group> groups;
  std::vector<SweepJob> sweep_jobs;
  std::map<std::string, std::vector<double>> grids;
  // The networks, with the faults of --faults (one fault set per network, drawn from --seed);
  // every refusal before the first run.
  std::map<std::string, Topology> topos;
  for (const auto& net : networks) {
    const Topology base = TopologyRegistry::parse(net.spec);
    if (!o.engine.faults.empty() && net.routing != Routing::deterministic)
      throw usage_error(fmt::format("--faults: network '{}' of '{}' runs {} routing, which --faults does not support "
                                    "(rerouting is table-driven); pick others with --networks or drop --faults",
                                    net.label, setup.name, to_string(net.routing)));
    const Topology t = faulty_topology(base, o.engine, cfg);
    if (!failed_nodes(t).empty())
      for (const auto& pattern : patterns)
        if (pattern_base(pattern) == "mesh")
          throw usage_error("--faults: nodes= / node lines with the mesh pattern: the mesh emulation needs every PE; "
                            "give failed links only or leave out mesh with --patterns");
    topos.emplace(net.label, t);
  }
  for (const auto& pattern : patterns)
    for (const auto& net : networks) {
      if (setup.skip.count(pattern_base(pattern))) {
        const auto& skip = setup.skip.at(pattern_base(pattern));
        if (std::find(skip.begin(), skip.end(), net.label) != skip.end()) continue;
      }
      const Topology& t = topos.at(net.label);
      ChannelLoadOptions bound_opt;  // exact_bounds: all pairs where no symmetry gives them, never sampled
      if (setup.exact_bounds) bound_opt.all_pairs_pes = std::numeric_limits<node_t>::max();
      Group g{pattern, net, channel_load(t, traffic_matrix(pattern, t, cfg.seed), cfg, bound_opt)};
      const bool paced = pattern_base(pattern) == "mesh";
      // The bound is the deterministic routes'; adaptive routing may pass it: its grid reaches twice as far.
      const double reach = grid_reach(pattern) * (net.routing == Routing::adaptive ? 2.0 : 1.0);
      const auto rates = rate_grid(g.load.bound, o.quick, paced, reach);
      grids[net.label + " " + pattern] = rates;
      g.first = sweep_jobs.size();
      const unsigned seeds = pattern.starts_with("hotspot") ? seeds_hot : seeds_other;
      for (unsigned k = 0; k < seeds; ++k)
        for (double r : rates) {
          sweep_jobs.push_back({.network = net.label, .topology = t, .traffic = pattern, .rate = r,
                                .seed = cfg.seed + k, .paced_mesh = paced, .routing = net.routing,
                                .faults = o.engine.faults});
        }
      g.count = sweep_jobs.size() - g.first;
      groups.push_back(std::move(g));
    }
  if (!o.quiet)
    fmt::print(stderr, "rica experiment {}: {} networks x {} patterns, {} runs of {} cycles, {} at a time\n",
               setup.name, networks.size(), patterns.size(), sweep_jobs.size(), cfg.cycles, jobs);

  const auto t0 = std::chrono::steady_clock::now();
  Progress bar("runs", sweep_jobs.size(), o.quiet, o.progress);
  const auto progress = [&](std::size_t done, std::size_t, const SweepPoint& p) {
    bar.update(done, fmt::format("{} {} rate {:.4g}: accepted {:.4f}, latency {:.1f}", p.network, p.traffic, p.rate,
                                 p.accepted, p.latency_mean));
  };
  const auto points = [&] {
    try {
      return run_sweep(sweep_jobs, cfg, jobs, progress);
    } catch (const interrupted&) {  // Ctrl-C: no points.csv with its header alone
      std::filesystem::remove(out + "/points.csv");
      throw;
    }
  }();
  bar.finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::string csv = points_csv_header();
  std::vector<Summary> rows;
  for (const Group& g : groups) {
    const std::vector<SweepPoint> pts(points.begin() + static_cast<std::ptrdiff_t>(g.first),
                                      points.begin() + static_cast<std::ptrdiff_t>(g.first + g.count));
    for (const auto& p : pts) csv += points_csv_row(p, g.pattern);
    rows.push_back(summarize(pts, g.load));
  }
  write_file(out + "/points.csv", csv);
  write_file(out + "/table.csv", table_csv(rows));
  write_file(out + "/table.json", table_json(rows).dump(2) + "\n");
  write_file(out + "/table.md", table_markdown(setup, rows));
  nlohmann::json config = config_json(setup, cfg, o.quick, grids);
  for (const auto& p : patterns)  // variants plot on their set-up pattern's axis
    if (!config["x_axis"].contains(p)) config["x_axis"][p] = config["x_axis"].value(pattern_base(p), "delivered");
  config["faults"] = o.engine.faults.empty() ? "none" : o.engine.faults;
  config["networks_run"] = nlohmann::json::array();
  for (const auto& n : networks) config["networks_run"].push_back(n.label);
  config["patterns_run"] = patterns;
  config["hotspot_seeds"] = seeds_hot;
  config["seeds"] = seeds_other;
  config["runs"] = sweep_jobs.size();
  config["jobs"] = jobs;
  config["threads_per_run"] = cfg.threads;
  config["wall_s"] = wall;
  write_file(out + "/config.json", config.dump(2) + "\n");
  if (!o.json.empty()) {
    nlohmann::json options = option_config(o.cmd);
    options["threads"] = cfg.threads;
    options["cycles"] = cfg.cycles;
    nlohmann::json j = provenance(options, cfg.seed, cfg.threads);
    j["setup"] = config;
    j["table"] = table_json(rows);
    write_json(o.json, j);
  }
  if (show_text(o.quiet, o.json)) {
    fmt::print("{}", table_markdown(setup, rows));
    fmt::print("\nexperiment written to {} ({} runs in {})\n", out, sweep_jobs.size(), duration(wall));
  }
  if (!o.no_plot) run_plot_script("plot_experiment.py", {out + "/points.csv", "--config", out + "/config.json"});
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

void add_experiment_commands(CLI::App& app) {
  auto o = std::make_shared<ExperimentOptions>();
  auto* e = app.add_subcommand("experiment", "Reproduce a paper's dynamic experiment: sweeps, figures, tables");
  std::string names;  // from the set-ups, so a new one is listed without an edit here
  for (const Setup& s : setups()) names += s.name + ", ";
  names += "faults";
  add_text(e, "name", o->name, fmt::format("Experiment: {} (see --list)", names), names + " (see --list)");
  add_output_dir(e, "--out", o->out, "Output directory [default: out/experiments/<name>]");
  e->add_flag("--quick", o->quick, "4 rates per sweep, 2,000 cycles, one hot-spot seed");
  add_name_list(e, "--networks", o->networks, "Only these networks (labels or specs, comma separated)");
  add_name_list(e, "--patterns", o->patterns, "Only these patterns (comma separated)");
  add_cycles(e, o->cycles, "Injection window in cycles [default: the paper's; quick 2,000]");
  add_jobs(e, o->jobs, "Runs at once, 0 = cores / threads (results do not depend on it)");
  add_threads(e, o->threads, "Threads per run (0 = all cores)");
  add_seed(e, o->seed, "Seed of the first trial");
  add_uint(e, "--seeds", o->seeds, 0, 1000,
           "Runs per point, seeds --seed..--seed+K-1, for every pattern (0 = the set-up's: hot spot several, "
           "others 1); plots draw the mean with 95% CI error bars");
  e->add_flag("--no-plot", o->no_plot, "Write the CSV and tables only");
  e->add_flag("--list", o->list, "List the experiments");
  o->cmd = e;
  add_json(e, o->json, "Write the table, the set-up, configuration and provenance as JSON to FILE");
  add_quiet(e, o->quiet);
  add_progress(e, o->progress);
  add_engine_options(e, o->engine);
  e->callback([o] { experiment(*o); });

  auto b = std::make_shared<BoundOptions>();
  declare_bound(app.add_subcommand("bound", "Channel load and saturation bound of a traffic pattern on topologies"), *b);
  b->cmd->callback([b] { bound(*b); });
}

}  // namespace rica::cli
