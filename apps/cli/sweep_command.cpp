// `rica sweep`: latency-throughput sweeps on the cycle engine, one CSV row per (topology, rate),
// and plots drawn from that CSV by scripts/plot_sweep.py (matplotlib).
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "commands.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

#ifndef RICA_SCRIPTS_DIR
#define RICA_SCRIPTS_DIR "scripts"
#endif

namespace rica::cli {
namespace {

struct SweepOptions {
  std::vector<std::string> topologies;
  std::string traffic = defaults::traffic::pattern;
  std::string rates = "0.01:0.1:0.01";
  std::uint64_t cycles = defaults::engine::cycles, warmup = 0;
  std::string out = "out/sweep";
  unsigned threads = defaults::engine::threads;
  std::uint64_t seed = defaults::engine::seed;
  unsigned buffer_words = defaults::engine::buffer_words;
  unsigned link_cycles = 0;
  bool no_plot = false;
};

double parse_rate(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v > 0.0 && v <= 1.0))
    throw usage_error(fmt::format("--rates: '{}' is not a rate in (0, 1]", s));
  return v;
}

/// "a:b:step" (inclusive) or "r1,r2,...".
std::vector<double> parse_rates(const std::string& s) {
  std::vector<double> r;
  if (s.find(':') != std::string::npos) {
    const auto c1 = s.find(':'), c2 = s.find(':', c1 + 1);
    if (c2 == std::string::npos) throw usage_error(fmt::format("--rates '{}' must be FROM:TO:STEP or a list", s));
    const double a = parse_rate(s.substr(0, c1)), b = parse_rate(s.substr(c1 + 1, c2 - c1 - 1)),
                 step = parse_rate(s.substr(c2 + 1));
    if (b < a) throw usage_error(fmt::format("--rates '{}': TO is below FROM", s));
    for (double x = a; x <= b + 1e-9 && r.size() < 1000; x += step) r.push_back(x);
  } else {
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto comma = s.find(',', start);
      r.push_back(parse_rate(s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
  }
  return r;
}

void sweep(const SweepOptions& o) {
  const auto rates = parse_rates(o.rates);
  std::vector<Topology> topos;
  for (const auto& s : o.topologies) topos.push_back(TopologyRegistry::parse(s));
  for (const auto& t : topos) (void)TrafficRegistry::pattern(o.traffic, t, o.seed);  // refuse early
  EngineConfig cfg;
  cfg.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  cfg.seed = o.seed;
  cfg.buffer_words = o.buffer_words;
  cfg.cycles = o.cycles;
  cfg.warmup = o.warmup;
  cfg.link_cycles = o.link_cycles;
  validate(cfg);
  std::filesystem::create_directories(o.out);
  const std::string csv = o.out + "/sweep.csv";
  std::ofstream f(csv);
  if (!f) throw usage_error(fmt::format("--out: cannot write '{}'", csv));
  f << "topology,traffic,offered,accepted,delivered,latency_mean,latency_p99,hops_mean,cycles,seed\n";
  const bool tty = isatty(STDERR_FILENO);
  std::size_t done = 0;
  for (const auto& t : topos) {
    for (double r : rates) {
      TrafficOptions to;
      to.rate = r;
      to.packets = o.cycles;
      to.seed = o.seed;
      auto app = TrafficRegistry::make(o.traffic, t, to);
      const RunStats st = run_cycles(t, *app, cfg);
      if (st.deadlock) throw std::runtime_error(st.deadlock_report);
      const double window = static_cast<double>(o.cycles - o.warmup);
      const auto delivered = static_cast<std::uint64_t>(st.throughput * window * t.pes() + 0.5);
      f << fmt::format("{},{},{:.6g},{:.6g},{},{:.4f},{:.1f},{:.4f},{},{}\n", t.spec(), o.traffic, r, st.throughput,
                       delivered, st.latency_mean, st.latency_p99, st.hops_mean, o.cycles, o.seed);
      f.flush();
      ++done;
      if (tty)
        std::fprintf(stderr, "\r  [%zu/%zu] %s rate %.4g: accepted %.4f, latency %.1f      ", done,
                     topos.size() * rates.size(), t.spec().c_str(), r, st.throughput, st.latency_mean);
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  fmt::print("sweep written to {}\n", csv);
  std::fflush(stdout);
  if (o.no_plot) return;
  const std::string py = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string cmd = fmt::format("{} {}/plot_sweep.py '{}' --out '{}' --title '{}'", py, RICA_SCRIPTS_DIR, csv,
                                      o.out, o.traffic);
  if (std::system(cmd.c_str()) != 0)
    fmt::print(stderr, "rica: plots skipped ({} failed; install python3-matplotlib)\n", cmd);
}

}  // namespace

void add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  auto* s = app.add_subcommand("sweep", "Latency-throughput sweep on the cycle engine: CSV and plots");
  s->add_option("topology", o->topologies, "One or more topology specs")->required();
  s->add_option("--traffic", o->traffic, "Traffic pattern")->capture_default_str();
  s->add_option("--rates", o->rates, "Offered loads: FROM:TO:STEP or a comma list")->capture_default_str();
  s->add_option("--cycles", o->cycles, "Injection window in cycles")->capture_default_str();
  s->add_option("--warmup", o->warmup, "Cycles left out of the statistics")->capture_default_str();
  s->add_option("--out", o->out, "Output directory")->capture_default_str();
  s->add_option("--threads", o->threads, "Worker threads (results do not depend on it)")->capture_default_str();
  s->add_option("--seed", o->seed, "Seed")->capture_default_str();
  s->add_option("--buffer-words", o->buffer_words, "Words per input port and class")->capture_default_str();
  s->add_option("--link-cycles", o->link_cycles, "Cycles per packet per link (0 = in+out degree)")
      ->capture_default_str();
  s->add_flag("--no-plot", o->no_plot, "Write the CSV only");
  s->callback([o] { sweep(*o); });
}

}  // namespace rica::cli
