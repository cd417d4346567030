// `rica sweep`: latency-throughput sweeps on the cycle engine (apps/experiments/sweep.hpp), one CSV
// row per (topology, rate), and plots drawn from that CSV by scripts/plot_sweep.py (matplotlib).
#include <fmt/format.h>
#include <unistd.h>

#include <memory>
#include <thread>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/io.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct SweepOptions {
  std::vector<std::string> topologies;
  std::string traffic = defaults::traffic::pattern;
  std::vector<double> rates = experiments::parse_rates("0.01:0.1:0.01");
  std::string out = "out/sweep";
  unsigned jobs = 1;
  EngineOptions engine;
  bool no_plot = false;
};

/// The sweep's jobs and configuration, every input checked before any run.
std::vector<experiments::SweepJob> jobs_of(SweepOptions& o, EngineConfig& cfg) {
  const auto& rates = o.rates;
  o.engine.cfg.engine = EngineKind::cycle;  // sweeps run on the cycle engine only
  cfg = engine_config(o.engine);
  std::vector<experiments::SweepJob> jobs;
  for (const auto& s : o.topologies) {
    const Topology t = TopologyRegistry::parse(s);
    // "mesh" is the paced mesh emulation (rate = round-start probability); refuse early what a
    // network cannot carry.
    experiments::SweepJob job{"", t, o.traffic, rates.front(), cfg.seed, true};
    (void)experiments::make_app(job, cfg);
    for (double r : rates) {
      job.rate = r;
      jobs.push_back(job);
    }
  }
  return jobs;
}

unsigned parallel_runs(const SweepOptions& o, const EngineConfig& cfg) {
  return o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency() / cfg.threads);
}

void sweep(SweepOptions o) {
  EngineConfig cfg;
  const auto jobs = jobs_of(o, cfg);
  prepare_output_dir(o.out, "--out");
  const std::string csv = o.out + "/sweep.csv";
  check_output_file(csv, "--out");  // fail now, not after the sweep
  const bool tty = isatty(STDERR_FILENO);
  const unsigned parallel = parallel_runs(o, cfg);
  const auto points = experiments::run_sweep(jobs, cfg, parallel, [&](std::size_t done, std::size_t total,
                                                                      const experiments::SweepPoint& p) {
    if (tty)
      std::fprintf(stderr, "\r  [%zu/%zu] %s rate %.4g: accepted %.4f, latency %.1f      ", done, total,
                   p.topology.c_str(), p.rate, p.accepted, p.latency_mean);
  });
  std::string text = "topology,traffic,offered,accepted,delivered,latency_mean,latency_p99,hops_mean,cycles,seed\n";
  for (const auto& p : points)
    text += fmt::format("{},{},{:.6g},{:.6g},{},{:.4f},{:.1f},{:.4f},{},{}\n", experiments::csv_field(p.topology),
                        experiments::csv_field(o.traffic), p.offered, p.accepted, p.delivered, p.latency_mean,
                        p.latency_p99, p.hops_mean, p.cycles, p.seed);
  write_text_file(csv, text, "--out");
  if (tty) std::fprintf(stderr, "\n");
  fmt::print("sweep written to {}\n", csv);
  if (!o.no_plot) experiments::run_plot_script("plot_sweep.py", {csv, "--out", o.out, "--title", o.traffic});
}

void declare_sweep(CLI::App* s, SweepOptions& o, bool files) {
  add_text(s, "topology", o.topologies, "One or more topology specs", "a topology spec (see 'rica list')")->required();
  add_text(s, "--traffic", o.traffic, "Traffic pattern (mesh: paced mesh emulation, rate = round-start probability)",
           "a traffic pattern (see 'rica list')");
  add_rates(s, "--rates", o.rates, "Offered loads");
  if (files) add_output_dir(s, "--out", o.out, "Output directory");
  add_jobs(s, o.jobs, "Runs at once, 0 = one per core (results do not depend on it)");
  add_engine_options(s, o.engine, opt_window | opt_link_cycles | opt_timing | opt_threads | opt_seed | opt_buffers |
                                      opt_packet_words);
  if (files) s->add_flag("--no-plot", o.no_plot, "Write the CSV only");
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* s = app.add_subcommand("sweep", "Latency-throughput sweep on the cycle engine: CSV and plots");
  declare_sweep(s, *o, true);
  s->callback([o] { sweep(*o); });
}

std::vector<experiments::SweepPoint> sweep_points(const std::vector<std::string>& args) {
  SweepOptions o;
  parse_subcommand("sweep", args, [&](CLI::App* s) { declare_sweep(s, o, false); });
  EngineConfig cfg;
  const auto jobs = jobs_of(o, cfg);
  return experiments::run_sweep(jobs, cfg, parallel_runs(o, cfg));
}

}  // namespace rica::cli
