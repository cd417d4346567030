// `rica run` and `rica demo`: run a traffic pattern or an application on an emulated machine (either engine).
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/io.hpp"
#include "run_report.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "app_registry.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {

struct RunOptions {
  std::string topology = defaults::topology;
  std::string traffic = defaults::traffic::pattern;
  double rate = defaults::traffic::rate;
  std::optional<std::uint64_t> packets_opt;  ///< unset: async 200 per PE; cycle: no limit but the window
  std::uint64_t packets = 0;                  ///< resolved
  std::string app;  ///< an application instead of a traffic pattern
  EngineOptions engine;
  bool quiet = false;
  std::string json, csv;
  std::string traffic_canonical;  ///< resolved: the canonical traffic spec, or "app SPEC"
  CLI::Option *traffic_opt = nullptr, *rate_opt = nullptr, *packets_opt_opt = nullptr;  ///< to refuse them with --app
};

nlohmann::json result_json(const RunOptions& o, const Topology& t, const EngineConfig& cfg, const RunStats& st,
                           const App& app, const std::string& traffic) {
  nlohmann::json j = stats_json(t, cfg, st);
  j["engine"] = to_string(cfg.engine);
  j["traffic"] = traffic;
  j["rate"] = o.rate;
  j["packets_per_pe"] = o.packets;
  if (cfg.engine == EngineKind::cycle) {
    j["cycles"] = cfg.cycles;
    j["warmup"] = cfg.warmup;
    j["cycles_run"] = st.cycles_run;
    j["link_cycles"] = link_cycles_text(cfg);
    j["timing"] = to_string(cfg.timing);
    j["arbitration"] = to_string(cfg.arbitration);
    j["throughput"] = st.throughput;  // packets delivered per PE per cycle in [warmup, cycles)
    j["measured"] = st.measured;
  }
  j["app"] = app.summary();
  return j;
}

/// Everything `rica run` does but print the report: checks, the echo (unless quiet), the run,
/// the JSON and CSV files.
RunOutcome execute(RunOptions& o) {
  const Topology t = TopologyRegistry::parse(o.topology);
  if (!o.app.empty())
    for (CLI::Option* opt : {o.traffic_opt, o.rate_opt, o.packets_opt_opt})
      if (opt->count() > 0)
        throw usage_error(fmt::format("{} does not apply to --app runs; drop {} or --app", opt->get_name(),
                                      opt->get_name()));
  EngineConfig cfg = engine_config(o.engine);
  cfg.progress = !o.quiet;
  const bool cycle = cfg.engine == EngineKind::cycle;
  // The async engine has no clock: --rate is a probability per activation of a PE, and a PE is
  // activated continuously while it generates. Below this rate a run spends more than 10,000
  // activations per packet (seconds to hours of spinning): refused, the cycle engine has a clock.
  if (!cycle && o.app.empty() && o.rate < defaults::traffic::async_min_rate)
    throw usage_error(fmt::format("--rate: {:g} is below the async engine's minimum {:g} (a probability per PE "
                                  "activation); use --engine cycle for lower rates",
                                  o.rate, defaults::traffic::async_min_rate));
  o.packets = o.packets_opt ? *o.packets_opt : (cycle ? cfg.cycles : defaults::traffic::packets);
  TrafficOptions to;
  to.rate = o.rate;
  to.packets = o.packets;
  to.seed = cfg.seed;
  const auto app = o.app.empty() ? TrafficRegistry::make(o.traffic, t, to) : AppRegistry::make(o.app, t);
  o.traffic_canonical = o.app.empty() ? TrafficRegistry::canonical(o.traffic) : "app " + o.app;
  // The echo reproduces the run: every option that shapes it, resolved.
  if (!o.quiet)
    fmt::print(stderr, "rica run {} {} {}\n", t.spec(),
               o.app.empty() ? fmt::format("--traffic {} --rate {} --packets {}", o.traffic_canonical, o.rate, o.packets)
                             : fmt::format("--app {}", o.app),
               engine_echo(cfg));
  RunOutcome out{t, cfg, rica::run(t, *app, cfg), {}, 0};
  const RunStats& st = out.stats;
  out.json = result_json(o, t, cfg, st, *app, o.traffic_canonical);
  if (!o.json.empty()) write_text_file(o.json, out.json.dump(2) + "\n", "--json");
  if (!o.csv.empty()) write_pe_csv(o.csv, t, st);
  out.status = st.deadlock ? 3 : st.conservation_ok && st.app_ok ? 0 : 1;
  return out;
}

int run(RunOptions o) {
  const RunOutcome out = execute(o);
  const Topology& t = out.topology;
  const EngineConfig& cfg = out.config;
  const RunStats& st = out.stats;
  const std::string& traffic = o.traffic_canonical;
  const bool cycle = cfg.engine == EngineKind::cycle;
  if (!o.quiet || o.json.empty()) {
    fmt::print("topology      {} ({} PEs, {} nodes), {} thread{}, seed {}\n", t.spec(), t.pes(), t.nodes(),
               cfg.threads, cfg.threads == 1 ? "" : "s", cfg.seed);
    if (o.app.empty())
      fmt::print("traffic       {}, rate {}, {} packets/PE\n", traffic, o.rate, o.packets);
    else
      fmt::print("application   {}\n", o.app);
    fmt::print("packets       injected {}, delivered {}, in network {}, duplicates {}, lost {} -> {}\n",
               st.injected, st.delivered, st.in_network, st.duplicates, st.lost,
               st.conservation_ok ? "conservation ok (" + st.verify_method + ")" : "CONSERVATION FAILED");
    fmt::print("hops          mean {:.3f}, max {}; relayed {}, blocked {}\n", st.hops_mean, st.hops_max,
               st.forwarded, st.blocked);
    // Latencies in a readable unit: cycles as they are; ns scaled to us or ms when large.
    const double scale = st.latency_unit != "ns" ? 1.0 : st.latency_p50 >= 1e6 ? 1e6 : st.latency_p50 >= 1e3 ? 1e3 : 1.0;
    const std::string unit = st.latency_unit != "ns" ? st.latency_unit : scale == 1e6 ? "ms" : scale == 1e3 ? "us" : "ns";
    const int digits = st.latency_unit != "ns" ? 1 : 2;
    fmt::print("latency       mean {:.{}f}, p50 {:.{}f}, p99 {:.{}f}, p99.9 {:.{}f}, max {:.{}f} {} (generation to delivery)\n",
               st.latency_mean / scale, digits, st.latency_p50 / scale, digits, st.latency_p99 / scale, digits,
               st.latency_p999 / scale, digits, st.latency_max / scale, digits, unit);
    fmt::print("  network     mean {:.{}f}, p50 {:.{}f}, p99 {:.{}f}, max {:.{}f} {} (entering the network to delivery)\n",
               st.net_latency_mean / scale, digits, st.net_latency_p50 / scale, digits, st.net_latency_p99 / scale,
               digits, st.net_latency_max / scale, digits, unit);
    if (cycle)
      fmt::print("virtual time  {} cycles run ({} injecting); accepted {:.4f} packets/PE/cycle\n", st.cycles_run,
                 cfg.cycles, st.throughput);
    fmt::print("throughput    {:.3f} M packets/s, {:.3f} M packet-hops/s in {:.3f} s\n", st.packets_per_s / 1e6,
               st.packet_hops_per_s / 1e6, st.wall_s);
    fmt::print("links         max load {} packets, mean {:.1f}\n", st.link_load_max, st.link_load_mean);
    fmt::print("memory        peak RSS {:.1f} MB ({:.0f} bytes/PE)\n", static_cast<double>(st.peak_rss_kb) / 1024,
               static_cast<double>(st.peak_rss_kb) * 1024.0 / t.pes());
    fmt::print("result        {}\n", st.app_ok ? "verified" : "NOT verified: " + st.app_message);
  }
  if (st.deadlock) std::fprintf(stderr, "rica: %s", st.deadlock_report.c_str());
  return out.status;
}

void add_run_options(CLI::App* c, RunOptions& o, bool quiet_flag = true) {
  o.traffic_opt = add_text(c, "--traffic", o.traffic, "Traffic pattern (see 'rica list')",
                           "a traffic pattern (see 'rica list')");
  add_text(c, "--app", o.app, "Run an application instead of traffic, e.g. reduce:rounds=5",
           "an application spec such as reduce:rounds=5 (see 'rica list')");
  o.rate_opt = add_rate(c, o.rate);
  o.packets_opt_opt = add_packets(c, o.packets_opt,
                                  fmt::format("Packets per PE (mesh: 4 per iteration) [default: {} async; the window, "
                                              "cycle]", defaults::traffic::packets));
  add_engine_options(c, o.engine, opt_engine | opt_window | opt_link_cycles | opt_timing | opt_threads | opt_seed |
                                      opt_buffers | opt_packet_words | opt_classes | opt_schedule | opt_trace);
  add_output_file(c, "--json", o.json, "Write the JSON summary to FILE");
  add_output_file(c, "--csv", o.csv, "Write per-PE CSV to FILE and per-link CSV to FILE's .links.csv");
  if (quiet_flag) c->add_flag("--quiet", o.quiet, "No progress line or configuration echo");
}

}  // namespace

void add_run_commands(CLI::App& app, int& status) {
  auto ro = std::make_shared<RunOptions>();
  auto* r = app.add_subcommand("run", "Run a traffic pattern on an emulated machine");
  r->add_option("topology", ro->topology, "Topology spec")->required();
  add_run_options(r, *ro);
  r->callback([ro, &status] { status = run(*ro); });

  auto d = std::make_shared<RunOptions>();
  auto* demo = app.add_subcommand("demo", "The embedded default: CCCB 4x16x16 (1,024 PEs), uniform traffic");
  add_run_options(demo, *d);
  demo->callback([d, &status] { status = run(*d); });
}

RunOutcome run_outcome(const std::vector<std::string>& args) {
  RunOptions o;
  o.quiet = true;
  parse_subcommand("run", args, [&](CLI::App* r) {
    r->add_option("topology", o.topology, "Topology spec")->required();
    add_run_options(r, o, false);
  });
  return execute(o);
}

}  // namespace rica::cli
