// `rica sweep`: latency-throughput sweeps on the cycle engine (apps/experiments/sweep.hpp), one CSV
// row per (topology, rate), and plots drawn from that CSV by scripts/plot_sweep.py (matplotlib).
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <memory>
#include <thread>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/io.hpp"
#include "rica/report.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "experiment.hpp"
#include "saturation.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct SweepOptions {
  CLI::App* cmd = nullptr;
  std::vector<std::string> topologies;
  std::string out = "out/sweep";
  std::string json;
  unsigned jobs = 1;
  EngineOptions engine;  ///< the machine, the traffic, the grid, the seeds (the option table)
  bool no_plot = false, quiet = false, progress = false;
};

/// The sweep to run: its jobs (network by network, rate by rate, seed by seed) and per network its
/// channel load (bound 0 and `bound_note` saying why when the pattern has no traffic matrix).
struct Plan {
  std::vector<experiments::SweepJob> jobs;
  std::vector<std::size_t> network_of;  ///< per job: index into `loads`
  std::vector<ChannelLoad> loads;
  std::vector<std::string> bound_note;
};

unsigned parallel_runs(const SweepOptions& o, const EngineConfig& cfg) {
  return o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency() / cfg.threads);
}

/// The sweep's jobs and configuration, every input checked before any run. Every network's channel
/// load (rica bound) is computed: --rate auto places the rates by it (refused when the pattern has
/// no traffic matrix); fixed rates only report it.
Plan jobs_of(SweepOptions& o, EngineConfig& cfg) {
  o.engine.cfg.engine = EngineKind::cycle;  // sweeps run on the cycle engine only
  cfg = engine_config(o.engine);            // the warm-up: the table's sweep default unless given
  const CommandValues& v = o.engine.values;
  check_seeds(cfg.seed, v.seeds);
  std::vector<Output> outputs = dir_outputs(o.out, {"sweep.csv", "sweep_mean.csv", "sweep_summary.csv", "provenance.json"});
  outputs.push_back({"--json", o.json});
  check_distinct_outputs(outputs);
  Plan plan;
  for (const auto& s : o.topologies) check_run_memory("sweep", s, cfg, 0, parallel_runs(o, cfg));
  // Routings are a dimension: one series per (network, routing), each with its own bound, its
  // seeds its own (never averaged across routings).
  const std::vector<Routing> routings = v.routings.empty() ? std::vector<Routing>{cfg.routing} : v.routings;
  std::vector<Topology> topologies;
  for (const auto& s : o.topologies) {
    topologies.push_back(faulty_topology(TopologyRegistry::parse(s), o.engine, cfg));  // one fault set per network
    for (Routing routing : routings) check_routing(topologies.back(), routing);  // every one before any run
  }
  for (std::size_t n = 0; n < topologies.size(); ++n)
  for (Routing routing : routings) {
    const std::string& s = o.topologies[n];
    const Topology& t = topologies[n];
    // A pattern with its own schedule runs it (mesh: paced, rate = round-start probability);
    // refuse early what a network cannot carry.
    experiments::SweepJob job{"", t, v.traffic, v.auto_rates ? 1.0 : v.rates.front(), cfg.seed, true,
                              v.source_queue, routing, o.engine.faults};
    (void)experiments::make_app(job, cfg);
    const PacedSchedule* paced = TrafficRegistry::paced(v.traffic);
    ChannelLoad load;
    std::string note;
    try {
      (void)check_memory_for("sweep", s, bound_footprint);
      // The bound of the series' own routing (rica bound --routing): minimal's, Valiant's, or the
      // best of both for UGAL and PAR; adaptive routing has none (note says why).
      load = routing_channel_load(t, experiments::traffic_matrix(v.traffic, t, cfg.seed), cfg, routing);
    } catch (const std::exception& e) {  // usage_error (no matrix) or logic_error (a route that does not arrive)
      if (v.auto_rates && routing != Routing::adaptive)
        throw usage_error(fmt::format("--rate auto: no channel-load bound for '{}' on '{}' ({}); give the rates",
                                      v.traffic, s, e.what()));
      note = e.what();
      load = ChannelLoad{};
    }
    // Adaptive routing has no bound: its grid is placed by the deterministic routes' and reaches
    // twice as far.
    double place = load.bound;
    if (v.auto_rates && routing == Routing::adaptive)
      place = channel_load(t, experiments::traffic_matrix(v.traffic, t, cfg.seed), cfg).bound;
    const std::vector<double> rates =
        v.auto_rates ? experiments::auto_rates(place, paced,
                                               experiments::grid_reach(v.traffic) *
                                                   (routing == Routing::adaptive ? 2.0 : 1.0))
                     : v.rates;
    for (double r : rates)
      for (unsigned k = 0; k < v.seeds; ++k) {  // seeds seed, seed+1, ... per point
        job.rate = r;
        job.seed = cfg.seed + k;
        plan.jobs.push_back(job);
        plan.network_of.push_back(plan.loads.size());
      }
    plan.loads.push_back(std::move(load));
    plan.bound_note.push_back(std::move(note));
  }
  return plan;
}

/// Runs the plan; with --rate auto a second pass adds experiments::refine_points rates between
/// each network's last unsaturated and first saturated rate. Points come back network by network,
/// rate by rate (ascending), seed by seed.
std::vector<experiments::SweepPoint> run_plan(const SweepOptions& o, const EngineConfig& cfg, Plan& plan,
                                              bool show) {
  const unsigned parallel = parallel_runs(o, cfg);
  auto pass = [&](const std::vector<experiments::SweepJob>& jobs, const char* what) {
    Progress progress(what, jobs.size(), !show || o.quiet, o.progress);
    auto points = experiments::run_sweep(jobs, cfg, parallel, [&](std::size_t done, std::size_t,
                                                                   const experiments::SweepPoint& p) {
      progress.update(done, fmt::format("{} rate {:.4g}: accepted {:.4f}, latency {:.1f}", p.topology, p.rate,
                                        p.accepted, p.latency_mean));
    });
    progress.finish();
    return points;
  };
  const std::size_t networks = plan.loads.size();
  std::vector<std::vector<experiments::SweepPoint>> by(networks);
  const auto first = pass(plan.jobs, "runs");
  for (std::size_t i = 0; i < first.size(); ++i) by[plan.network_of[i]].push_back(first[i]);
  if (o.engine.values.auto_rates) {
    std::vector<experiments::SweepJob> more;
    std::vector<std::size_t> more_of;
    for (std::size_t n = 0; n < networks; ++n) {
      const auto job0 = std::find(plan.network_of.begin(), plan.network_of.end(), n) - plan.network_of.begin();
      for (double r : experiments::refine_rates(by[n]))
        for (unsigned k = 0; k < o.engine.values.seeds; ++k) {
          experiments::SweepJob job = plan.jobs[static_cast<std::size_t>(job0)];
          job.rate = r;
          job.seed = cfg.seed + k;
          more.push_back(job);
          more_of.push_back(n);
        }
    }
    if (!more.empty()) {
      const auto second = pass(more, "runs near the knee");
      for (std::size_t i = 0; i < second.size(); ++i) by[more_of[i]].push_back(second[i]);
      plan.jobs.insert(plan.jobs.end(), more.begin(), more.end());
      plan.network_of.insert(plan.network_of.end(), more_of.begin(), more_of.end());
    }
  }
  std::vector<experiments::SweepPoint> points;
  for (auto& g : by) {
    std::stable_sort(g.begin(), g.end(), [](const auto& a, const auto& b) {
      return a.rate != b.rate ? a.rate < b.rate : a.seed < b.seed;
    });
    points.insert(points.end(), g.begin(), g.end());
  }
  return points;
}

/// Per network: zero-load latency, where it saturates, saturation throughput, knee, bound.
std::vector<experiments::SweepSummary> summaries_of(const Plan& plan, const std::vector<experiments::SweepPoint>& points) {
  std::vector<experiments::SweepSummary> summaries;
  std::size_t i = 0;
  for (std::size_t n = 0; n < plan.loads.size(); ++n) {
    const auto count = static_cast<std::size_t>(std::count(plan.network_of.begin(), plan.network_of.end(), n));
    const std::vector<experiments::SweepPoint> g(points.begin() + static_cast<std::ptrdiff_t>(i),
                                                 points.begin() + static_cast<std::ptrdiff_t>(i + count));
    summaries.push_back(experiments::summarize_sweep(g, plan.loads[n].bound > 0 ? &plan.loads[n] : nullptr));
    i += count;
  }
  return summaries;
}

/// sweep.csv, sweep_mean.csv, sweep_summary.csv in --out, and --json's report.
void write_files(const SweepOptions& o, const EngineConfig& cfg, const Plan& plan,
                 const std::vector<experiments::SweepPoint>& points,
                 const std::vector<experiments::SweepSummary>& summaries) {
  const CommandValues& v = o.engine.values;
  write_text_file(o.out + "/sweep.csv", experiments::points_csv(points, v.traffic, cfg, v.source_queue), "--out");
  const experiments::SeedMeans means = experiments::seed_means(points, v.traffic, v.seeds);
  write_text_file(o.out + "/sweep_mean.csv", means.csv, "--out");
  write_text_file(o.out + "/sweep_summary.csv", experiments::summary_csv(summaries), "--out");
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = cfg.threads;
  config["warmup"] = cfg.warmup;  // the warm-up used (the sweep default follows --cycles)
  nlohmann::json j = provenance(config, cfg.seed, cfg.threads);
  j["model"] = experiments::sweep_model(cfg, v.source_queue);
  j["traffic"] = v.traffic;
  j["points"] = experiments::points_json(points);
  j["means"] = means.json;
  j["rates"] = v.auto_rates ? "auto" : "given";
  j["summary"] = nlohmann::json::array();
  for (std::size_t n = 0; n < summaries.size(); ++n) {
    j["summary"].push_back(experiments::summary_json(summaries[n]));
    if (!plan.bound_note[n].empty()) j["summary"].back()["bound_note"] = plan.bound_note[n];
  }
  // Every --out directory says how it was made: the same report as --json, the sweep's own JSON
  // (rica report finds it there when --json was not given or written elsewhere).
  write_text_file(o.out + "/provenance.json", j.dump(2) + "\n", "--out");
  if (!o.json.empty()) write_json(o.json, j);
}

/// Runs the sweep `o` describes (its subcommand alive: the configuration is read from it); with
/// `files`, writes what `rica sweep` writes (--out, --json, plots). Returns the points.
std::vector<experiments::SweepPoint> sweep(SweepOptions& o, bool files) {
  EngineConfig cfg;
  Plan plan = jobs_of(o, cfg);
  const std::string csv = o.out + "/sweep.csv";
  if (files) {
    prepare_output_dir(o.out, "--out");
    for (const char* f : {"/sweep.csv", "/sweep_mean.csv", "/sweep_summary.csv", "/provenance.json"})
      check_output_file(o.out + f, "--out");  // fail now, not after the sweep
  }
  const auto points = run_plan(o, cfg, plan, true);
  if (!files) return points;
  const std::vector<experiments::SweepSummary> summaries = summaries_of(plan, points);
  write_files(o, cfg, plan, points, summaries);
  if (!o.quiet && o.json != "-") {  // the results are in --out's files: --quiet prints nothing
    const CommandValues& v = o.engine.values;
    EngineConfig shown = cfg;  // several routings: each series names its own
    if (v.routings.size() > 1) shown.routing = Routing::deterministic;
    fmt::print("model: {}{}\n", model_line(shown, plan.loads.size() == 1 ? &plan.jobs.front().topology : nullptr),
               v.routings.size() > 1 ? ", routings " + experiments::routings_text(v.routings) : std::string());
    for (std::size_t n = 0; n < summaries.size(); ++n)
      fmt::print("{}{}\n", experiments::summary_text(summaries[n]),
                 plan.bound_note[n].empty() ? "" : fmt::format(" (no channel-load bound: {})", plan.bound_note[n]));
  }
  if (!o.quiet) fmt::print("sweep written to {} (summary: sweep_summary.csv)\n", csv);
  if (!o.no_plot)
    experiments::run_plot_script("plot_sweep.py", {csv, "--out", o.out, "--title", o.engine.values.traffic});
  return points;
}

void declare_sweep(CLI::App* s, SweepOptions& o, bool files) {
  o.cmd = s;
  add_text(s, "topology", o.topologies, "One or more topology specs", "a topology spec (see 'rica list')")->required();
  add_engine_options(s, o.engine, OptionGroup::workload);  // --traffic, --rate/--rates, --source-queue, --seeds
  if (files) {
    add_output_dir(s, "--out", o.out, "Output directory");
    add_json(s, o.json, "Write every point, the configuration and provenance as JSON to FILE");
  }
  add_jobs(s, o.jobs, "Runs at once, 0 = one per core (results do not depend on it)");
  add_engine_options(s, o.engine, OptionGroup::machine);  // --warmup's sweep default: the table's
  if (files) {
    s->add_flag("--no-plot", o.no_plot, "Write the CSV only");
    add_quiet(s, o.quiet);
    add_progress(s, o.progress);
  }
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* s = app.add_subcommand("sweep", "Latency-throughput sweep on the cycle engine: CSV and plots");
  declare_sweep(s, *o, true);
  s->callback([o] { (void)sweep(*o, true); });
}

std::vector<experiments::SweepPoint> sweep_points(const std::vector<std::string>& args) {
  SweepOptions o;
  std::vector<experiments::SweepPoint> points;
  // sweep() reads the options' CLI11 handles: while the subcommand is alive. Files only when
  // --out or --json is given (the CLI's default directory is the CLI's).
  parse_subcommand("sweep", args, [&](CLI::App* s) { declare_sweep(s, o, true); }, [&] {
    o.quiet = true;
    const bool files = o.cmd->get_option("--out")->count() > 0 || !o.json.empty();
    points = sweep(o, files);
  });
  return points;
}

}  // namespace rica::cli
