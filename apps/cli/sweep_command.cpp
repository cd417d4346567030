// `rica sweep`: latency-throughput sweeps on the cycle engine (apps/experiments/sweep.hpp), one CSV
// row per (topology, rate), and plots drawn from that CSV by scripts/plot_sweep.py (matplotlib).
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "commands.hpp"
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
  std::string rates = "0.01:0.1:0.01";
  std::uint64_t cycles = defaults::engine::cycles, warmup = 0;
  std::string out = "out/sweep";
  unsigned threads = defaults::engine::threads;
  unsigned jobs = 1;
  std::uint64_t seed = defaults::engine::seed;
  unsigned buffer_words = defaults::engine::buffer_words;
  std::string link_cycles = "degree";
  bool no_plot = false;
};

void sweep(const SweepOptions& o) {
  const auto rates = experiments::parse_rates(o.rates);
  EngineConfig cfg;
  cfg.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  cfg.seed = o.seed;
  cfg.buffer_words = o.buffer_words;
  cfg.cycles = o.cycles;
  cfg.warmup = o.warmup;
  experiments::set_link_cycles(cfg, o.link_cycles);
  validate(cfg);
  std::vector<experiments::SweepJob> jobs;
  for (const auto& s : o.topologies) {
    const Topology t = TopologyRegistry::parse(s);
    // "mesh" is the paced mesh emulation (rate = round-start probability); refuse early what a
    // network cannot carry.
    experiments::SweepJob job{"", t, o.traffic, rates.front(), o.seed, true};
    (void)experiments::make_app(job, cfg);
    for (double r : rates) {
      job.rate = r;
      jobs.push_back(job);
    }
  }
  std::filesystem::create_directories(o.out);
  const std::string csv = o.out + "/sweep.csv";
  std::ofstream f(csv);
  if (!f) throw usage_error(fmt::format("--out: cannot write '{}'", csv));
  f << "topology,traffic,offered,accepted,delivered,latency_mean,latency_p99,hops_mean,cycles,seed\n";
  const bool tty = isatty(STDERR_FILENO);
  const auto points = experiments::run_sweep(jobs, cfg, o.jobs, [&](std::size_t done, std::size_t total,
                                                                      const experiments::SweepPoint& p) {
    if (tty)
      std::fprintf(stderr, "\r  [%zu/%zu] %s rate %.4g: accepted %.4f, latency %.1f      ", done, total,
                   p.topology.c_str(), p.rate, p.accepted, p.latency_mean);
  });
  for (const auto& p : points)
    f << fmt::format("{},{},{:.6g},{:.6g},{},{:.4f},{:.1f},{:.4f},{},{}\n", experiments::csv_field(p.topology),
                     experiments::csv_field(o.traffic), p.offered,
                     p.accepted, p.delivered, p.latency_mean, p.latency_p99, p.hops_mean, p.cycles, p.seed);
  f.close();
  if (tty) std::fprintf(stderr, "\n");
  fmt::print("sweep written to {}\n", csv);
  if (!o.no_plot) experiments::run_plot_script("plot_sweep.py", {csv, "--out", o.out, "--title", o.traffic});
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* s = app.add_subcommand("sweep", "Latency-throughput sweep on the cycle engine: CSV and plots");
  s->add_option("topology", o->topologies, "One or more topology specs")->required();
  s->add_option("--traffic", o->traffic, "Traffic pattern (mesh: paced mesh emulation, rate = round-start probability)")
      ->capture_default_str();
  s->add_option("--rates", o->rates, "Offered loads: FROM:TO:STEP or a comma list")->capture_default_str();
  s->add_option("--cycles", o->cycles, "Injection window in cycles")->capture_default_str();
  s->add_option("--warmup", o->warmup, "Cycles left out of the statistics")->capture_default_str();
  s->add_option("--out", o->out, "Output directory")->capture_default_str();
  s->add_option("--threads", o->threads, "Worker threads per run (results do not depend on it)")->capture_default_str();
  s->add_option("--jobs", o->jobs, "Runs at once (results do not depend on it)")->capture_default_str();
  s->add_option("--seed", o->seed, "Seed")->capture_default_str();
  s->add_option("--buffer-words", o->buffer_words, "Words per input port and class")->capture_default_str();
  s->add_option("--link-cycles", o->link_cycles, "Cycles per packet per link: degree (in+out), words, or N (0 = degree)")
      ->capture_default_str();
  s->add_flag("--no-plot", o->no_plot, "Write the CSV only");
  s->callback([o] { sweep(*o); });
}

}  // namespace rica::cli
