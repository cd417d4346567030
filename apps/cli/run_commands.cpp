// `rica run` and `rica demo`: run a traffic pattern on an emulated machine (async engine).
#include <fmt/format.h>
#include <unistd.h>

#include <charconv>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>
#include <nlohmann/json.hpp>

#include "commands.hpp"
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
  unsigned threads = defaults::engine::threads;
  std::uint64_t seed = defaults::engine::seed;
  unsigned buffer_words = defaults::engine::buffer_words;
  std::string packet_words = fmt::format("{}:{}", defaults::engine::packet_words, defaults::engine::packet_spread);
  std::string engine = "async";
  std::string app;  ///< an application instead of a traffic pattern
  std::uint64_t cycles = defaults::engine::cycles, warmup = 0;
  std::string link_cycles = "degree";
  std::string trace;
  bool no_classes = false, quiet = false;
  unsigned batch = defaults::engine::batch, block = defaults::engine::block;
  std::string json, csv;
};

nlohmann::json result_json(const RunOptions& o, const Topology& t, const EngineConfig& cfg, const RunStats& st,
                           const App& app, const std::string& traffic) {
  nlohmann::json j = stats_json(t, cfg, st);
  j["engine"] = o.engine;
  j["traffic"] = traffic;
  j["rate"] = o.rate;
  j["packets_per_pe"] = o.packets;
  if (o.engine == "cycle") {
    j["cycles"] = o.cycles;
    j["warmup"] = o.warmup;
    j["cycles_run"] = st.cycles_run;
    j["link_cycles"] = o.link_cycles;
    j["throughput"] = st.throughput;  // packets delivered per PE per cycle in [warmup, cycles)
    j["measured"] = st.measured;
  }
  j["app"] = app.summary();
  return j;
}

int run(RunOptions o) {
  const Topology t = TopologyRegistry::parse(o.topology);
  if (o.engine != "async" && o.engine != "cycle")
    throw usage_error(fmt::format("--engine '{}' is not available; accepted: async, cycle", o.engine));
  if (!(o.rate > 0.0 && o.rate <= 1.0))
    throw usage_error(fmt::format("--rate {} is out of range (0, 1] (packets per PE per injection opportunity)", o.rate));
  o.packets = o.packets_opt ? *o.packets_opt : (o.engine == "cycle" ? o.cycles : defaults::traffic::packets);
  if (o.packets < 1) throw usage_error("--packets must be at least 1");
  EngineConfig cfg;
  cfg.threads = o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  cfg.seed = o.seed;
  cfg.buffer_words = o.buffer_words;
  std::tie(cfg.packet_words, cfg.packet_spread) = parse_packet_words(o.packet_words);
  cfg.classes = !o.no_classes;
  cfg.batch = o.batch;
  cfg.block = o.block;
  cfg.progress = !o.quiet;
  cfg.cycles = o.cycles;
  cfg.warmup = o.warmup;
  cfg.trace = o.trace;
  apply_link_cycles(o.link_cycles, cfg);
  validate(cfg);
  TrafficOptions to;
  to.rate = o.rate;
  to.packets = o.packets;
  to.seed = o.seed;
  const auto app = o.app.empty() ? TrafficRegistry::make(o.traffic, t, to) : AppRegistry::make(o.app, t);
  const std::string traffic = o.app.empty() ? TrafficRegistry::canonical(o.traffic) : "app " + o.app;
  if (!o.quiet)
    fmt::print(stderr, "rica run {} --traffic {} --rate {} --packets {} --threads {} --seed {} --buffer-words {} "
               "--packet-words {}:{}{}\n", t.spec(), traffic, o.rate, o.packets, cfg.threads, cfg.seed,
               cfg.buffer_words, cfg.packet_words, cfg.packet_spread, cfg.classes ? "" : " --no-classes");
  const RunStats st = o.engine == "cycle" ? run_cycles(t, *app, cfg) : run_async(t, *app, cfg);
  const nlohmann::json j = result_json(o, t, cfg, st, *app, traffic);
  if (!o.json.empty()) {
    std::ofstream f(o.json);
    if (!f) throw usage_error(fmt::format("--json: cannot write '{}'", o.json));
    f << j.dump(2) << "\n";
  }
  if (!o.csv.empty()) write_pe_csv(o.csv, t, st);
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
    fmt::print("latency ({})  mean {:.2f}, p50 {:.0f}, p99 {:.0f}, max {:.0f}\n", st.latency_unit, st.latency_mean,
               st.latency_p50, st.latency_p99, st.latency_max);
    if (o.engine == "cycle")
      fmt::print("virtual time  {} cycles run ({} injecting); accepted {:.4f} packets/PE/cycle\n", st.cycles_run,
                 o.cycles, st.throughput);
    fmt::print("throughput    {:.3f} M packets/s, {:.3f} M packet-hops/s in {:.3f} s\n", st.packets_per_s / 1e6,
               st.packet_hops_per_s / 1e6, st.wall_s);
    fmt::print("links         max load {} packets, mean {:.1f}\n", st.link_load_max, st.link_load_mean);
    fmt::print("memory        peak RSS {:.1f} MB ({:.0f} bytes/PE)\n", static_cast<double>(st.peak_rss_kb) / 1024,
               static_cast<double>(st.peak_rss_kb) * 1024.0 / t.pes());
    fmt::print("result        {}\n", st.app_ok ? "verified" : "NOT verified: " + st.app_message);
  }
  if (st.deadlock) {
    std::fprintf(stderr, "rica: %s", st.deadlock_report.c_str());
    return 3;
  }
  return st.conservation_ok && st.app_ok ? 0 : 1;
}

void add_run_options(CLI::App* c, RunOptions& o) {
  c->add_option("--traffic", o.traffic, "Traffic pattern (see 'rica list')")->capture_default_str();
  c->add_option("--app", o.app, "Run an application instead of traffic, e.g. reduce:rounds=5");
  c->add_option("--rate", o.rate, "Injection probability per PE per opportunity, (0, 1]")->capture_default_str();
  c->add_option("--packets", o.packets_opt,
                fmt::format("Packets per PE (mesh: 4 per iteration) [default: {} async; the window, cycle]",
                            defaults::traffic::packets));
  c->add_option("--threads", o.threads, "Worker threads (0 = all cores)")->capture_default_str();
  c->add_option("--seed", o.seed, "Seed of every random choice")->capture_default_str();
  c->add_option("--buffer-words", o.buffer_words, "Words per input port and buffer class")->capture_default_str();
  c->add_option("--packet-words", o.packet_words, "Packet length MEAN:SPREAD in words (uniform)")->capture_default_str();
  c->add_option("--engine", o.engine, "Engine: async (real threads, ns) or cycle (deterministic, cycles)")
      ->capture_default_str();
  c->add_option("--cycles", o.cycles, "Cycle engine: injection window in cycles")->capture_default_str();
  c->add_option("--warmup", o.warmup, "Packets generated before this cycle are not measured")->capture_default_str();
  c->add_option("--link-cycles", o.link_cycles, "Cycles per packet per link: degree (in+out), words, or N")
      ->capture_default_str();
  c->add_option("--trace", o.trace, "CSV: one row per delivered packet (src,dst,seq,inject,deliver,hops)");
  c->add_flag("--no-classes", o.no_classes, "Disable buffer classes (deadlock demonstration)");
  c->add_option("--batch", o.batch, "Packet moves per PE activation")->capture_default_str();
  c->add_option("--block", o.block, "PEs per scheduling block (1..64)")->capture_default_str();
  c->add_option("--json", o.json, "Write the JSON summary to FILE");
  c->add_option("--csv", o.csv, "Write per-PE CSV to FILE and per-link CSV to FILE's .links.csv");
  c->add_flag("--quiet", o.quiet, "No progress line or configuration echo");
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

}  // namespace rica::cli
