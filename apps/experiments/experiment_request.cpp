// rica/request/experiment.hpp: the checks, the runs and the files of `rica experiment NAME` — a
// set-up's sweeps (here) or the faults experiment (faults_experiment.cpp), run the same way.
#include "rica/request/experiment.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <thread>
#include <tuple>

#include "experiment.hpp"
#include "experiment_plan.hpp"
#include "run_statistics.hpp"
#include "rica/faults.hpp"
#include "rica/interrupt.hpp"
#include "rica/progress.hpp"
#include "rica/io.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "rica/suggest.hpp"
#include "rica/version.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica {

namespace experiments {

void resolve_run(EngineConfig& cfg, const request::Experiment& r, std::uint64_t cycles) {
  cfg.cycles = r.cycles ? *r.cycles : cycles;
  cfg.threads = r.threads ? r.threads : std::max(1u, std::thread::hardware_concurrency());
  cfg.seed = r.seed;
}

unsigned runs_at_once(const request::Experiment& r, const EngineConfig& cfg) {
  return r.jobs ? r.jobs : std::max(1u, std::thread::hardware_concurrency() / cfg.threads);
}

namespace {

// ---- A set-up's sweeps ------------------------------------------------------------------------------

/// A pattern's set-up name: "mesh" for "mesh:wrap=0" (a variant of a set-up pattern).
std::string pattern_base(const std::string& p) { return p.substr(0, p.find(':')); }

/// The set-up's networks named in `filter` (labels or specs), in the filter's order; all when empty.
std::vector<Network> pick_networks(const Setup& s, const std::vector<std::string>& filter) {
  if (filter.empty()) return s.networks;
  std::vector<Network> out;
  for (const auto& want : filter) {
    auto it = std::find_if(s.networks.begin(), s.networks.end(),
                           [&](const Network& n) { return n.label == want || n.spec == want; });
    if (it == s.networks.end()) {  // the nearest label or spec suggested, the labels listed
      std::string valid;
      std::vector<std::string> names;
      for (const auto& n : s.networks) {
        valid += (valid.empty() ? "" : ", ") + n.label;
        names.push_back(n.label), names.push_back(n.spec);
      }
      throw usage_error(fmt::format("--networks: unknown network '{}' of experiment '{}'{}", want, s.name,
                                    valid_names_tail(want, names, valid)));
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
    if (!exact && !variant) {  // the nearest set-up pattern suggested, with the parameters given
      std::string valid;
      for (const auto& p : s.patterns) valid += (valid.empty() ? "" : ", ") + p;
      const std::string base = pattern_base(want), near = nearest_name(base, s.patterns);
      const std::string hint = near.empty() ? "" : fmt::format("; did you mean '{}{}'?", near, want.substr(base.size()));
      throw usage_error(fmt::format("--patterns: unknown pattern '{}' of experiment '{}'{} valid: {} (or one with "
                                    "parameters, e.g. mesh:wrap=0)",
                                    want, s.name, hint.empty() ? ";" : hint, valid));
    }
    if (variant) (void)TrafficRegistry::canonical(want);  // a bad parameter: usage_error naming it
    out.push_back(want);
  }
  return out;
}

/// One (pattern, network) sweep: its rates come from the pattern's channel-load bound.
struct Group {
  std::string pattern;
  Network net;
  ChannelLoad load;
  std::size_t first = 0, count = 0;  // its jobs
};

/// What a set-up's files are made from besides the points.
struct SetupRuns {
  const Setup* setup = nullptr;
  std::vector<Network> networks;
  std::vector<std::string> patterns;
  std::vector<Group> groups;
  std::map<std::string, std::vector<double>> grids;
  unsigned seeds_hot = 1, seeds_other = 1;
};

/// What the files say of the run besides the points: the request's choices and the plan's.
struct Shape {
  bool quick = false;
  std::string faults;
  EngineConfig cfg;
  unsigned parallel = 1;
  std::size_t runs = 0;
};

Made make_setup_files(const SetupRuns& s, const Shape& p, const std::vector<SweepPoint>& points, double wall,
                      const std::string& out, const nlohmann::json& provenance) {
  Made m;
  m.points = points_csv_header();
  std::vector<Summary> rows;
  for (const Group& g : s.groups) {
    const std::vector<SweepPoint> pts(points.begin() + static_cast<std::ptrdiff_t>(g.first),
                                      points.begin() + static_cast<std::ptrdiff_t>(g.first + g.count));
    for (const auto& pt : pts) m.points += points_csv_row(pt, g.pattern);
    rows.push_back(summarize(pts, g.load));
  }
  m.table = table_json(rows);
  const std::string md = table_markdown(*s.setup, rows);
  m.config = config_json(*s.setup, p.cfg, p.quick, s.grids);
  for (const auto& pattern : s.patterns)  // variants plot on their set-up pattern's axis
    if (!m.config["x_axis"].contains(pattern))
      m.config["x_axis"][pattern] = m.config["x_axis"].value(pattern_base(pattern), "delivered");
  m.config["faults"] = p.faults.empty() ? "none" : p.faults;
  m.config["networks_run"] = nlohmann::json::array();
  for (const auto& n : s.networks) m.config["networks_run"].push_back(n.label);
  m.config["patterns_run"] = s.patterns;
  m.config["hotspot_seeds"] = s.seeds_hot;
  m.config["seeds"] = s.seeds_other;
  m.config["runs"] = p.runs;
  m.config["jobs"] = p.parallel;
  m.config["threads_per_run"] = p.cfg.threads;
  m.config["wall_s"] = wall;
  m.files = {{"table.csv", table_csv(rows)},
             {"table.json", m.table.dump(2) + "\n"},
             {"table.md", md},
             {"config.json", m.config.dump(2) + "\n"},
             {"provenance.json", provenance.dump(2) + "\n"}};  // every --out directory says how it was made
  m.report = provenance;
  m.report["setup"] = m.config;
  m.report["table"] = m.table;
  m.text = md + fmt::format("\nexperiment written to {} ({} runs in {})\n", out, p.runs, duration_text(wall));
  m.plot_script = "plot_experiment.py";
  m.plot_args = {out + "/points.csv", "--config", out + "/config.json"};
  return m;
}

/// validate()'s checks of a set-up's experiment; with `planned`, its sweeps (the channel-load bound
/// of every pattern on every network) and files.
Plan prepare_setup(const request::Experiment& r, bool planned) {
  auto s = std::make_shared<SetupRuns>();
  s->setup = &setup_by_name(r.name);
  const Setup& setup = *s->setup;
  s->networks = pick_networks(setup, r.networks);
  s->patterns = pick_patterns(setup, r.patterns);
  if (!r.routings.empty()) {  // routings as a dimension: every picked network once per routing
    std::string list;
    for (const auto& x : r.routings) list += (list.empty() ? "" : ",") + x;
    const std::vector<Routing> routings = parse_routings(list, "--routing");
    std::vector<Network> each;
    for (const Network& net : s->networks) {
      if (net.routing != Routing::deterministic)
        throw usage_error(fmt::format("--routing: network '{}' of '{}' has its own routing ({}); pick the networks "
                                      "to run under each routing with --networks",
                                      net.label, setup.name, to_string(net.routing)));
      const Topology t = TopologyRegistry::parse(net.spec);
      for (Routing routing : routings) {
        if (!offers(t, routing))
          throw usage_error(fmt::format("--routing: network '{}' ({}) of '{}' does not offer {} routing; pick the "
                                        "networks that do with --networks",
                                        net.label, net.spec, setup.name, to_string(routing)));
        each.push_back({routing == Routing::deterministic ? net.label : net.label + " " + to_string(routing), net.spec,
                        routing});
      }
    }
    s->networks = std::move(each);
  }
  Plan p;
  p.cfg = engine_config(setup);
  resolve_run(p.cfg, r, r.quick ? 2000 : setup.cycles);
  validate(p.cfg);
  p.parallel = runs_at_once(r, p.cfg);
  // Seeds per point: --seeds K for every pattern; else the set-up's (hot spot: several, others: 1).
  s->seeds_hot = r.seeds ? r.seeds : r.quick ? 1 : setup.hotspot_seeds;
  s->seeds_other = r.seeds ? r.seeds : 1;
  check_seeds(p.cfg.seed, std::max(s->seeds_hot, s->seeds_other));

  // The networks, with the faults of --faults (one fault set per network, drawn from --seed).
  std::optional<FaultSpec> faults;
  if (!r.faults.empty()) faults = parse_fault_spec(r.faults);
  std::map<std::string, Topology> topos;
  for (const auto& net : s->networks) {
    const Topology base = TopologyRegistry::parse(net.spec);
    if (faults && net.routing != Routing::deterministic)
      throw usage_error(fmt::format("--faults: network '{}' of '{}' runs {} routing, which --faults does not support "
                                    "(rerouting is table-driven); pick others with --networks or drop --faults",
                                    net.label, setup.name, to_string(net.routing)));
    const Topology t = faults ? with_faults(base, *faults, p.cfg.seed) : base;
    if (!failed_nodes(t).empty())
      for (const auto& pattern : s->patterns)
        if (TrafficRegistry::paced(pattern))  // its rounds wait on every PE (PacedSchedule)
          throw usage_error(fmt::format("--faults: nodes= / node lines with the {0} pattern: the {0} emulation needs "
                                        "every PE; give failed links only or leave out {0} with --patterns",
                                        pattern_base(pattern)));
    topos.emplace(net.label, t);
  }
  if (!planned) return p;

  // A bound depends on the topology, the pattern and the routing (rica bound --routing: minimal's,
  // Valiant's, the best of both for UGAL and PAR; adaptive routing has none of its own and is
  // placed by the deterministic routes').
  std::map<std::tuple<std::string, std::string, Routing>, ChannelLoad> bounds;
  for (const auto& pattern : s->patterns)
    for (const auto& net : s->networks) {
      if (setup.skip.count(pattern_base(pattern))) {
        const auto& skip = setup.skip.at(pattern_base(pattern));
        if (std::find(skip.begin(), skip.end(), net.label) != skip.end()) continue;
      }
      const Topology& t = topos.at(net.label);
      ChannelLoadOptions bound_opt;  // exact_bounds: all pairs where no symmetry gives them, never sampled
      if (setup.exact_bounds) bound_opt.all_pairs_pes = std::numeric_limits<node_t>::max();
      const Routing bounded = net.routing == Routing::adaptive ? Routing::deterministic : net.routing;
      auto [known, fresh] = bounds.try_emplace({net.spec, pattern, bounded});
      if (fresh)
        known->second = routing_channel_load(t, traffic_matrix(pattern, t, p.cfg.seed), p.cfg, bounded, bound_opt);
      Group g{pattern, net, known->second};
      const PacedSchedule* paced = TrafficRegistry::paced(pattern);
      // Adaptive routing may pass the deterministic routes' bound: its grid reaches twice as far.
      const double reach = grid_reach(pattern) * (net.routing == Routing::adaptive ? 2.0 : 1.0);
      const auto rates = rate_grid(g.load.bound, r.quick, paced, reach, setup.quick_rates);
      s->grids[net.label + " " + pattern] = rates;
      g.first = p.jobs.size();
      const unsigned seeds = pattern.starts_with("hotspot") ? s->seeds_hot : s->seeds_other;
      for (unsigned k = 0; k < seeds; ++k)
        for (double rate : rates)
          p.jobs.push_back({.network = net.label, .topology = t, .traffic = pattern, .rate = rate,
                            .seed = p.cfg.seed + k, .paced = paced != nullptr, .routing = net.routing, .faults = r.faults});
      g.count = p.jobs.size() - g.first;
      s->groups.push_back(std::move(g));
    }
  p.scope = fmt::format("{} networks x {} patterns", s->networks.size(), s->patterns.size());
  p.points_header = points_csv_header();
  const Shape shape{r.quick, r.faults, p.cfg, p.parallel, p.jobs.size()};
  p.make = [s, shape](const std::vector<SweepPoint>& points, double wall, const std::string& out,
                      const nlohmann::json& provenance) {
    return make_setup_files(*s, shape, points, wall, out, provenance);
  };
  return p;
}

/// The experiment's checks and, when planned, its runs: the faults experiment or a set-up's.
Plan prepare(const request::Experiment& r, bool planned) {
  if (r.name.empty()) throw usage_error("experiment: give a name (see rica experiment --list)");
  if (r.name == kernels::name) return kernels::prepare(r, planned);
  return r.name == faults::name ? faults::prepare(r, planned) : prepare_setup(r, planned);
}

// ---- The output directory ------------------------------------------------------------------------------

std::string errno_text(int e) { return std::strerror(e); }

/// What prepare_output_dir(dir, "--out") and write_text_file would refuse, found without creating
/// anything: an empty name, a path that is not a directory, a directory that cannot be created (its
/// nearest existing ancestor not a writable directory) or written, and each file that cannot be.
void check_output_dir(const std::string& dir, const std::vector<std::string>& files) {
  if (dir.empty()) throw usage_error("--out: empty directory name; give a directory to write to");
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw usage_error(fmt::format("--out: '{}' exists and is not a directory", dir));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
      throw usage_error(fmt::format("--out: cannot write in directory '{}': {}", dir, errno_text(errno)));
    for (const auto& f : files) check_output_file(dir + "/" + f, "--out");
    return;
  }
  // Missing: create_directories would create it from its nearest existing ancestor.
  std::filesystem::path up = std::filesystem::path(dir).lexically_normal();
  if (up.is_relative()) up = std::filesystem::path(".") / up;
  for (up = up.parent_path(); !up.empty() && ::stat(up.c_str(), &st) != 0; up = up.parent_path()) {
    if (up == up.root_path()) return;  // no root: prepare_output_dir says why
    if (errno != ENOENT) throw usage_error(fmt::format("--out: cannot create directory '{}': {}", dir, errno_text(errno)));
  }
  if (up.empty()) return;  // nothing of it exists (cannot happen for "./..." or "/...")
  if (!S_ISDIR(st.st_mode))
    throw usage_error(fmt::format("--out: cannot create directory '{}': {}", dir, errno_text(ENOTDIR)));
  if (::access(up.c_str(), W_OK | X_OK) != 0)
    throw usage_error(fmt::format("--out: cannot create directory '{}': {}", dir, errno_text(errno)));
}

/// The request's fields as its recorded configuration (the default provenance's "config").
nlohmann::json request_config(const request::Experiment& r) {
  nlohmann::json j = nlohmann::json::object();
  for (const request::ExperimentOption& o : request::experiment_options()) {
    const std::string key = o.name.starts_with("--") ? o.name.substr(2) : o.name;
    std::visit(
        [&](auto member) {
          const auto& v = r.*member;
          if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::optional<std::uint64_t>>) {
            if (v) j[key] = *v;
          } else {
            j[key] = v;
          }
        },
        o.member);
  }
  if (!r.faults.empty()) j["faults"] = r.faults;
  return j;
}

}  // namespace
}  // namespace experiments

namespace request {

using namespace rica::experiments;

const std::vector<ExperimentOption>& experiment_options() {
  static const std::vector<ExperimentOption> v = [] {
    std::string names;  // from the set-ups, so a new one is listed without an edit here
    for (const Setup& s : setups()) names += s.name + ", ";
    names += faults::name;
    names += std::string(", ") + kernels::name;
    return std::vector<ExperimentOption>{
        {"name", &Experiment::name, 0, 0, fmt::format("Experiment: {} (see --list)", names), names + " (see --list)"},
        {"--out", &Experiment::out, 0, 0, "Output directory [default: out/experiments/<name>]", ""},
        {"--quick", &Experiment::quick, 0, 0, "4 rates per sweep, 2,000 cycles, one hot-spot seed", ""},
        {"--networks", &Experiment::networks, 0, 0, "Only these networks (labels or specs, comma separated)", ""},
        {"--patterns", &Experiment::patterns, 0, 0, "Only these patterns (comma separated)", ""},
        {"--cycles", &Experiment::cycles, 1, defaults::limits::cycles,
         "Injection window in cycles [default: the paper's; quick 2,000]", ""},
        {"--jobs", &Experiment::jobs, 0, defaults::limits::jobs,
         "Runs at once, 0 = cores / threads (results do not depend on it)", ""},
        {"--threads", &Experiment::threads, 0, defaults::limits::threads, "Threads per run (0 = all cores)", ""},
        {"--seed", &Experiment::seed, 0, std::numeric_limits<std::uint64_t>::max(), "Seed of the first trial", ""},
        {"--routing", &Experiment::routings, 0, 0,
         "Run every picked network under each of these routings (comma separated: deterministic, adaptive, valiant, "
         "ugal-l, ugal-g, par), one series each with its own routing's bound [default: the set-up's]",
         ""},
        {"--seeds", &Experiment::seeds, 0, 1000,
         "Runs per point, seeds --seed..--seed+K-1, for every pattern (0 = the set-up's: hot spot several, "
         "others 1); plots draw the mean with 95% CI error bars",
         ""},
    };
  }();
  return v;
}

std::string experiment_list() {
  std::string text;
  for (const Setup& s : setups()) {
    text += fmt::format("{:<11} {}\n            source: {}\n            networks:", s.name, s.title, s.source);
    for (const auto& n : s.networks) text += fmt::format(" {}={}", n.label, n.spec);
    text += "\n            patterns:";
    for (const auto& p : s.patterns) text += " " + p;
    text += "\n";
  }
  return text + faults::list_entry() + kernels::list_entry();
}

std::string output_dir(const Experiment& r) { return r.out.empty() ? "out/experiments/" + r.name : r.out; }

std::vector<std::string> output_files(const Experiment& r) {
  if (r.name == faults::name) return faults::files();
  if (r.name == kernels::name) return kernels::files();
  return {"points.csv", "table.csv", "table.json", "table.md", "config.json", "provenance.json"};
}

void validate(const Experiment& r) {
  // The options' own ranges (the CLI's parsers check them as they read them).
  for (const ExperimentOption& o : experiment_options())
    std::visit(
        [&](auto member) {
          const auto& v = r.*member;
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::optional<std::uint64_t>>) {
            if (v) (void)parse_uint(std::to_string(*v), o.name, o.lo, o.hi);
          } else if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
            (void)parse_uint(std::to_string(v), o.name, o.lo, o.hi);
          }
        },
        o.member);
  (void)prepare(r, false);
  check_output_dir(output_dir(r), output_files(r));
}

ExperimentOutcome run(const Experiment& r, const ExperimentProgress& progress) {
  validate(r);
  const std::string out = output_dir(r);
  prepare_output_dir(out, "--out");
  const std::string points_csv = out + "/points.csv";
  Plan plan = prepare(r, true);
  write_text_file(points_csv, plan.points_header, "--out");  // fail now, not after the runs

  ExperimentOutcome o;
  o.name = r.name;
  o.out = out;
  o.files = output_files(r);
  o.engine = plan.cfg;
  o.jobs = plan.parallel;
  o.runs = plan.jobs.size();
  if (progress.start)
    progress.start(fmt::format("{}, {} runs of {} cycles, {} at a time", plan.scope, plan.jobs.size(),
                               plan.cfg.cycles, plan.parallel),
                   plan.jobs.size());
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<SweepPoint> points;
  try {
    points = run_sweep(plan.jobs, plan.cfg, plan.parallel, [&](std::size_t done, std::size_t total, const SweepPoint& p) {
      if (progress.point)
        progress.point(done, total, fmt::format("{} {} rate {:.4g}: accepted {:.4f}, latency {:.1f}", p.network,
                                                p.traffic, p.rate, p.accepted, p.latency_mean));
    });
  } catch (const interrupted&) {  // Ctrl-C: no points.csv with its header alone
    std::error_code ec;
    std::filesystem::remove(points_csv, ec);
    throw;
  }
  o.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  const nlohmann::json provenance =
      r.provenance ? r.provenance(plan.cfg)
                   : nlohmann::json{{"rica_version", version_string()}, {"seed", plan.cfg.seed},
                                    {"threads", plan.cfg.threads}, {"config", request_config(r)}};
  Made m = plan.make(points, o.wall_s, out, provenance);
  std::vector<std::string> written;  // Ctrl-C among the writes (write_text_file then throws): none kept
  try {
    write_text_file(points_csv, m.points, "--out");
    written.push_back(points_csv);
    for (const auto& [name, text] : m.files) {
      write_text_file(out + "/" + name, text, "--out");
      written.push_back(out + "/" + name);
    }
  } catch (const interrupted&) {
    std::error_code ec;
    std::filesystem::remove(points_csv, ec);
    for (const std::string& f : written) std::filesystem::remove(f, ec);
    throw;
  }
  o.config = std::move(m.config);
  o.table = std::move(m.table);
  o.report = std::move(m.report);
  o.text = std::move(m.text);
  o.plot_script = std::move(m.plot_script);
  o.plot_args = std::move(m.plot_args);
  return o;
}

bool plot(const ExperimentOutcome& outcome) {
  if (outcome.plot_script.empty()) return true;  // tables only (the kernels experiment)
  return run_plot_script(outcome.plot_script, outcome.plot_args);
}

}  // namespace request
}  // namespace rica
