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
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct SweepOptions {
  CLI::App* cmd = nullptr;
  std::vector<std::string> topologies;
  std::string traffic = defaults::traffic::pattern;
  std::vector<double> rates = experiments::parse_rates("0.01:0.1:0.01");
  std::string out = "out/sweep";
  std::string json;
  unsigned jobs = 1;
  unsigned source_queue = defaults::traffic::backlog;
  unsigned seeds = 1;
  EngineOptions engine;
  bool no_plot = false, quiet = false, progress = false;
};

/// Mean and 95% confidence half-width of `field` over the points of one (topology, rate).
template <class Field>
std::pair<double, double> mean_ci(const std::vector<experiments::SweepPoint>& g, Field field) {
  std::vector<double> v;
  for (const auto& p : g) v.push_back(field(p));
  return mean_ci95(v);
}

unsigned parallel_runs(const SweepOptions& o, const EngineConfig& cfg) {
  return o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency() / cfg.threads);
}

/// The sweep's jobs and configuration, every input checked before any run.
std::vector<experiments::SweepJob> jobs_of(SweepOptions& o, EngineConfig& cfg) {
  const auto& rates = o.rates;
  o.engine.cfg.engine = EngineKind::cycle;  // sweeps run on the cycle engine only
  // Warm-up: a tenth of the window unless given (the network fills before it is measured).
  if (!o.engine.given("--warmup")) o.engine.cfg.warmup = o.engine.cfg.cycles / defaults::sweep::warmup_divisor;
  cfg = engine_config(o.engine);
  check_seeds(cfg.seed, o.seeds);
  std::vector<Output> outputs = dir_outputs(o.out, {"sweep.csv", "sweep_mean.csv"});
  outputs.push_back({"--json", o.json});
  check_distinct_outputs(outputs);
  std::vector<experiments::SweepJob> jobs;
  for (const auto& s : o.topologies) check_run_memory("sweep", s, cfg, 0, parallel_runs(o, cfg));
  for (const auto& s : o.topologies) {
    const Topology t = faulty_topology(TopologyRegistry::parse(s), o.engine, cfg);  // one fault set per network
    check_routing(t, cfg.routing);
    // "mesh" is the paced mesh emulation (rate = round-start probability); refuse early what a
    // network cannot carry.
    experiments::SweepJob job{"", t, o.traffic, rates.front(), cfg.seed, true, o.source_queue, cfg.routing,
                              o.engine.faults};
    (void)experiments::make_app(job, cfg);
    for (double r : rates)
      for (unsigned k = 0; k < o.seeds; ++k) {  // seeds seed, seed+1, ... per point
        job.rate = r;
        job.seed = cfg.seed + k;
        jobs.push_back(job);
      }
  }
  return jobs;
}

/// Runs the sweep `o` describes (its subcommand alive: the configuration is read from it); with
/// `files`, writes what `rica sweep` writes (--out, --json, plots). Returns the points.
std::vector<experiments::SweepPoint> sweep(SweepOptions& o, bool files) {
  EngineConfig cfg;
  const auto jobs = jobs_of(o, cfg);
  const std::string csv = o.out + "/sweep.csv";
  if (files) {
    prepare_output_dir(o.out, "--out");
    check_output_file(csv, "--out");  // fail now, not after the sweep
    check_output_file(o.out + "/sweep_mean.csv", "--out");
  }
  Progress progress("runs", jobs.size(), o.quiet, o.progress);
  const unsigned parallel = parallel_runs(o, cfg);
  const auto points = experiments::run_sweep(jobs, cfg, parallel, [&](std::size_t done, std::size_t,
                                                                      const experiments::SweepPoint& p) {
    progress.update(done, fmt::format("{} rate {:.4g}: accepted {:.4f}, latency {:.1f}", p.topology, p.rate,
                                      p.accepted, p.latency_mean));
  });
  progress.finish();
  if (!files) return points;
  const std::string link = link_cycles_text(cfg);
  const std::string pw = fmt::format("{}:{}", cfg.packet_words, cfg.packet_spread);
  std::string text = report::csv_row({"topology", "traffic", "offered", "generated", "accepted", "delivered",
                                      "latency_mean", "latency_p99", "hops_mean", "cycles", "warmup", "link_cycles",
                                      "timing", "arbitration", "buffer_words", "packet_words", "source_queue", "seed",
                                      "routing", "faults"});
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : points) {
    text += report::csv_row({p.topology, o.traffic, fmt::format("{:.6g}", p.offered), fmt::format("{:.6g}", p.generated),
                             fmt::format("{:.6g}", p.accepted), std::to_string(p.delivered),
                             fmt::format("{:.4f}", p.latency_mean), fmt::format("{:.1f}", p.latency_p99),
                             fmt::format("{:.4f}", p.hops_mean), std::to_string(p.cycles), std::to_string(p.warmup),
                             link, to_string(cfg.timing), to_string(cfg.arbitration), std::to_string(cfg.buffer_words),
                             pw, std::to_string(o.source_queue), std::to_string(p.seed), p.routing, p.faults});
    rows.push_back({{"topology", p.topology}, {"offered", p.offered}, {"generated", p.generated},
                    {"accepted", p.accepted}, {"delivered", p.delivered}, {"latency_mean", p.latency_mean},
                    {"latency_p99", p.latency_p99}, {"hops_mean", p.hops_mean}, {"cycles_run", p.cycles_run},
                    {"seed", p.seed}});
  }
  write_text_file(csv, text, "--out");
  // Per point over its seeds: mean and 95% confidence half-width (Student t, K-1 degrees of freedom).
  std::string mean_text = report::csv_row({"topology", "traffic", "offered", "seeds", "generated_mean", "accepted_mean",
                                           "accepted_ci95", "latency_mean", "latency_ci95", "latency_p99_mean",
                                           "latency_p99_ci95", "hops_mean", "routing", "faults"});
  nlohmann::json means = nlohmann::json::array();
  for (std::size_t i = 0; i < points.size(); i += o.seeds) {
    const std::vector<experiments::SweepPoint> g(points.begin() + static_cast<std::ptrdiff_t>(i),
                                                 points.begin() + static_cast<std::ptrdiff_t>(i + o.seeds));
    auto stat = [&](auto field) { return mean_ci(g, field); };
    const auto acc = stat([](const auto& p) { return p.accepted; });
    const auto gen = stat([](const auto& p) { return p.generated; });
    const auto lat = stat([](const auto& p) { return p.latency_mean; });
    const auto p99 = stat([](const auto& p) { return p.latency_p99; });
    const auto hops = stat([](const auto& p) { return p.hops_mean; });
    mean_text += report::csv_row({g[0].topology, o.traffic, fmt::format("{:.6g}", g[0].offered), std::to_string(o.seeds),
                                  fmt::format("{:.6g}", gen.first), fmt::format("{:.6g}", acc.first),
                                  fmt::format("{:.6g}", acc.second), fmt::format("{:.4f}", lat.first),
                                  fmt::format("{:.4f}", lat.second), fmt::format("{:.2f}", p99.first),
                                  fmt::format("{:.2f}", p99.second), fmt::format("{:.4f}", hops.first), g[0].routing,
                                  g[0].faults});
    means.push_back({{"topology", g[0].topology}, {"offered", g[0].offered}, {"seeds", o.seeds},
                     {"generated", gen.first}, {"accepted", acc.first}, {"accepted_ci95", acc.second},
                     {"latency_mean", lat.first}, {"latency_ci95", lat.second}, {"latency_p99", p99.first},
                     {"latency_p99_ci95", p99.second}});
  }
  write_text_file(o.out + "/sweep_mean.csv", mean_text, "--out");
  if (!o.json.empty()) {
    nlohmann::json config = option_config(o.cmd);
    config["threads"] = cfg.threads;
    config["warmup"] = cfg.warmup;
    nlohmann::json j = provenance(config, cfg.seed, cfg.threads);
    j["model"] = {{"engine", "cycle"}, {"timing", to_string(cfg.timing)}, {"arbitration", to_string(cfg.arbitration)},
                  {"routing", to_string(cfg.routing)},
                  {"link_cycles", link}, {"buffer_words", cfg.buffer_words}, {"packet_words", pw},
                  {"cycles", cfg.cycles}, {"warmup", cfg.warmup}, {"source_queue", o.source_queue}};
    j["traffic"] = o.traffic;
    j["points"] = rows;
    j["means"] = means;
    write_json(o.json, j);
  }
  if (!o.quiet) fmt::print("sweep written to {}\n", csv);
  if (!o.no_plot) experiments::run_plot_script("plot_sweep.py", {csv, "--out", o.out, "--title", o.traffic});
  return points;
}

void declare_sweep(CLI::App* s, SweepOptions& o, bool files) {
  o.cmd = s;
  add_text(s, "topology", o.topologies, "One or more topology specs", "a topology spec (see 'rica list')")->required();
  add_text(s, "--traffic", o.traffic, "Traffic pattern (mesh, mesh:wrap=0: paced mesh emulation, rate = round-start probability)",
           "a traffic pattern (see 'rica list')");
  add_rates(s, "--rate,--rates", o.rates, "Offered loads");
  add_source_queue(s, o.source_queue);
  add_seeds(s, o.seeds);
  if (files) {
    add_output_dir(s, "--out", o.out, "Output directory");
    add_json(s, o.json, "Write every point, the configuration and provenance as JSON to FILE");
  }
  add_jobs(s, o.jobs, "Runs at once, 0 = one per core (results do not depend on it)");
  // The warm-up a sweep uses without --warmup (a tenth of the window: jobs_of) is the default
  // --help shows and the configuration records.
  o.engine.cfg.warmup = o.engine.cfg.cycles / defaults::sweep::warmup_divisor;
  add_engine_options(s, o.engine, opt_routing | opt_window | opt_link_cycles | opt_timing | opt_threads | opt_seed |
                                      opt_buffers | opt_packet_words | opt_faults);
  o.engine.declared.at("--warmup")->description(
      fmt::format("Cycle engine: packets generated before this cycle are not measured (below --cycles; default: "
                  "--cycles / {}) [0..{}]", defaults::sweep::warmup_divisor, defaults::limits::cycles - 1));
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
