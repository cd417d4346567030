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
#include "rica/faults.hpp"
#include "rica/io.hpp"
#include "rica/report.hpp"
#include "rica/version.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "rica/telemetry.hpp"
#include "rica/trace_events.hpp"
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
  unsigned source_queue = defaults::traffic::backlog;
  unsigned seeds = 1;
  double burst_on = 0, burst_off = 0;
  std::string app;  ///< an application instead of a traffic pattern
  EngineOptions engine;
  bool quiet = false;
  std::string json, csv;
  std::optional<std::uint64_t> telemetry;  ///< --telemetry W: window in cycles
  bool telemetry_links = false;            ///< --telemetry-links: the per-link table too
  std::string trace_events;                ///< --trace-events FILE
  std::uint64_t trace_events_packets = defaults::trace_events::packets;
  CLI::App* cmd = nullptr;  ///< the subcommand (run or demo), for its configuration
  /// Traffic-only options, refused with --app.
  std::vector<CLI::Option*> traffic_only;
};

/// The resolved configuration of a run: every option that shapes it, defaults filled in, the
/// values the run used (threads, packets, the window of a trace); options the run ignores left out.
nlohmann::json run_config(const RunOptions& o, const EngineConfig& cfg) {
  nlohmann::json c = option_config(o.cmd);
  c["threads"] = cfg.threads;
  const EngineTraits& traits = engine_traits(cfg.engine);  // options the engine does not read are left out
  if (traits.virtual_clock) {
    c["cycles"] = cfg.cycles;
    c["warmup"] = cfg.warmup;
  }
  for (const OptionDef* d : option_table())  // options outside this engine's scope do not shape the run
    if (!d->engines(cfg.engine)) c.erase(d->name);
  if (!o.app.empty()) {
    for (const CLI::Option* opt : o.traffic_only) c.erase(opt->get_lnames().front());
  } else {
    c.erase("app");
    c["packets"] = o.packets;
  }
  return c;
}

/// Where --telemetry's CSVs go: beside --csv FILE ("r.csv" -> "r.telemetry_NAME.csv"), else
/// beside --json FILE ("r.json" -> the same); "" when neither names a file (no CSV written).
std::string telemetry_prefix(const RunOptions& o) {
  auto stem = [](const std::string& p, const char* ext) {
    const std::string e = ext;
    return p.size() > e.size() && p.ends_with(e) ? p.substr(0, p.size() - e.size()) : p;
  };
  if (!o.csv.empty()) return stem(o.csv, ".csv") + ".telemetry_";
  if (!o.json.empty() && o.json != "-") return stem(o.json, ".json") + ".telemetry_";
  return "";
}

/// What `rica run` computed, for the report it prints.
struct Executed {
  RunOutcome out;
  std::vector<RunStats> more;     ///< the runs of seeds seed+1 .. seed+K-1
  nlohmann::json seeds_json;      ///< their figures as mean and 95% CI (empty with one seed)
  std::string traffic;            ///< the canonical traffic spec ("" for --app)
  std::optional<std::uint64_t> trace_end;  ///< a replayed trace's last injection
  std::uint64_t replayed = 0;     ///< packets of a replayed trace
  nlohmann::json app_summary;     ///< the application's summary() (--app)
};

/// Everything `rica run` does but print the report: checks, the echo (unless quiet), the runs,
/// the JSON and CSV files.
Executed execute(RunOptions& o) {
  if (!o.app.empty())
    for (CLI::Option* opt : o.traffic_only)
      if (opt->count() > 0)
        throw usage_error(fmt::format("{} does not apply to --app runs; drop {} or --app", opt->get_name(),
                                      opt->get_name()));
  EngineConfig cfg = engine_config(o.engine);
  check_seeds(cfg.seed, o.seeds);
  check_telemetry(o.telemetry, cfg.engine);
  check_trace_events(o.trace_events, cfg.engine);
  auto telemetry = o.telemetry ? std::make_shared<Telemetry>(*o.telemetry, Telemetry::Options{.links = o.telemetry_links})
                               : nullptr;
  const std::string tprefix = telemetry ? telemetry_prefix(o) : "";
  std::vector<Output> outputs = {{"--json", o.json},
                                 {"--csv", o.csv},
                                 {"--csv (its .links.csv)", o.csv.empty() ? "" : report::link_csv_path(o.csv)},
                                 {"--trace", cfg.trace},
                                 {"--trace-events", o.trace_events}};
  if (!tprefix.empty())
    for (const std::string& f : telemetry->csv_paths(tprefix)) {
      outputs.push_back({fmt::format("--telemetry ({})", f), f});
      check_output_file(f, "--telemetry");
    }
  check_distinct_outputs(outputs);
  check_run_memory("run", o.topology, cfg, static_cast<double>(o.packets_opt.value_or(0)));
  const Topology base = TopologyRegistry::parse(o.topology);
  cfg.progress = !o.quiet;
  const Topology t = faulty_topology(base, o.engine, cfg);
  check_routing(t, cfg.routing);  // before the echo: one line
  if (!o.app.empty() && !failed_nodes(t).empty())
    throw usage_error("--faults: nodes= / node lines need traffic; an application (--app) needs every PE (give failed "
                      "links only)");
  const bool cycle = engine_traits(cfg.engine).virtual_clock;
  // The async engine has no clock: --rate is a probability per activation of a PE, and a PE is
  // activated continuously while it generates. Below this rate a run spends more than 10,000
  // activations per packet (seconds to hours of spinning): refused, the cycle engine has a clock.
  if (!cycle && o.app.empty() && o.rate < defaults::traffic::async_min_rate)
    throw usage_error(fmt::format("--rate: {:g} is below the async engine's minimum {:g} (a probability per PE "
                                  "activation); use --engine cycle for lower rates",
                                  o.rate, defaults::traffic::async_min_rate));
  if (!cycle && o.source_queue == 0)
    throw usage_error("--source-queue: 0 (unbounded) needs --engine cycle; the async engine has no clock to pace "
                      "sources, give 1 or more");
  o.packets = o.packets_opt ? *o.packets_opt : (cycle ? cfg.cycles : defaults::traffic::packets);
  TrafficOptions to;
  to.rate = o.rate;
  to.packets = o.packets;
  to.seed = cfg.seed;
  to.source_queue = o.source_queue;
  to.burst_on = o.burst_on;
  to.burst_off = o.burst_off;
  to.min_words = cfg.packet_words - cfg.packet_spread;
  to.max_words = cfg.packet_words + cfg.packet_spread;
  auto make_app = [&](std::uint64_t seed) {
    TrafficOptions ts = to;
    ts.seed = seed;
    return o.app.empty() ? TrafficRegistry::make(o.traffic, t, ts) : AppRegistry::make(o.app, t);
  };
  const auto app = make_app(cfg.seed);
  // A replayed trace runs to its last injection unless --cycles says otherwise.
  if (cycle && o.app.empty() && !o.engine.given("--cycles"))
    if (const auto end = traffic_end(*app)) {
      cfg.cycles = std::max<std::uint64_t>(*end + 1, 1);
      if (!o.packets_opt) o.packets = cfg.cycles;
    }
  const std::string traffic = o.app.empty() ? TrafficRegistry::canonical(o.traffic) : "";
  const nlohmann::json config = run_config(o, cfg);
  // The echo reproduces the run: every option that shapes it, resolved; pasted, it runs again.
  if (!o.quiet) fmt::print(stderr, "{}\n", echo_command(o.cmd, config));
  if (!o.quiet && show_text(o.quiet, o.json, cfg.trace)) {
    fmt::print("rica          {}\n", version_string());
    fmt::print("model         {}\n", model_line(cfg, &t));
  }
  std::vector<Observer*> observers;
  if (telemetry) observers.push_back(telemetry.get());
  std::optional<TraceEvents> trace_events;
  if (!o.trace_events.empty()) {
    trace_events.emplace(TraceEvents::Options{o.trace_events_packets, cfg.warmup, false});
    observers.push_back(&*trace_events);
  }
  Executed e{RunOutcome{t, cfg, rica::run(t, *app, cfg, observers), {}, 0, telemetry}, {}, {}, traffic, std::nullopt, 0,
             {}};
  const RunStats& st = e.out.stats;
  std::vector<RunStats>& more = e.more;
  // --seeds K: the same run with seeds seed+1 .. seed+K-1 (no trace); figures as mean and 95% CI.
  for (unsigned k = 1; k < o.seeds && !st.deadlock; ++k) {
    EngineConfig c = cfg;
    c.seed = cfg.seed + k;
    c.trace.clear();
    c.progress = false;
    auto a = make_app(c.seed);
    more.push_back(rica::run(t, *a, c));
  }
  nlohmann::json j = provenance(config, cfg.seed, cfg.threads);
  j.update(report::run_summary(t, cfg, st));
  j["traffic"] = o.app.empty() ? nlohmann::json(traffic) : nlohmann::json();
  j["app_spec"] = o.app.empty() ? nlohmann::json() : nlohmann::json(o.app);
  j["rate"] = o.rate;
  j["packets_per_pe"] = o.packets;
  j["source_queue"] = o.app.empty() ? nlohmann::json(o.source_queue) : nlohmann::json();
  j["app"] = app->summary();
  if (!o.app.empty()) e.app_summary = j["app"];
  nlohmann::json& seeds_json = e.seeds_json;
  if (o.seeds > 1) {
    using Field = double (*)(const RunStats&);
    const std::pair<const char*, Field> figures[] = {
        {"latency_mean", [](const RunStats& r) { return r.latency_mean; }},
        {"latency_p99", [](const RunStats& r) { return r.latency_p99; }},
        {"net_latency_mean", [](const RunStats& r) { return r.net_latency_mean; }},
        {"hops_mean", [](const RunStats& r) { return r.hops_mean; }},
        {"throughput", [](const RunStats& r) { return r.throughput; }},
        {"delivered", [](const RunStats& r) { return static_cast<double>(r.delivered); }}};
    seeds_json = {{"count", o.seeds}, {"first", cfg.seed}};
    for (const auto& [name, f] : figures) {
      std::vector<double> v = {f(st)};
      for (const auto& r : more) v.push_back(f(r));
      const auto [mean, ci] = mean_ci95(v);
      seeds_json["figures"][name] = {{"mean", mean}, {"ci95", ci}, {"values", v}};
    }
    for (const auto& r : more)
      if (!r.conservation_ok || !r.app_ok || r.deadlock) seeds_json["all_verified"] = false;
  }
  j["seeds"] = seeds_json;
  if (st.ranks > 1) j["distributed"] = distributed_json(st, cfg);
  j["outputs"] = {{"json", o.json}, {"csv", o.csv}, {"links_csv", o.csv.empty() ? "" : report::link_csv_path(o.csv)},
                  {"trace", cfg.trace}};
  if (telemetry) j["telemetry"] = telemetry->summary(tprefix.empty() ? std::vector<std::string>{}
                                                                      : telemetry->csv_paths(tprefix));
  if (!tprefix.empty()) (void)telemetry->write_csv(tprefix, "--telemetry");
  if (trace_events) {
    TraceEvents::write(o.trace_events, {{fmt::format("rica {} {}", o.cmd->get_name(), t.spec()), &*trace_events}},
                       "--trace-events");
    j["trace_events"] = trace_events->summary();
    j["trace_events"]["file"] = o.trace_events;
  }
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.csv.empty()) report::write_run_csv(o.csv, t, st);
  e.trace_end = o.app.empty() ? traffic_end(*app) : std::nullopt;
  if (e.trace_end) e.replayed = app->summary().value("packets", std::uint64_t{0});
  e.out.json = std::move(j);
  e.out.status = st.deadlock ? 3 : st.conservation_ok && st.app_ok ? 0 : 1;
  for (const auto& r : more)
    if (r.deadlock || !r.conservation_ok || !r.app_ok) e.out.status = r.deadlock ? 3 : 1;
  return e;
}

int run(RunOptions o) {
  const Executed e = execute(o);
  const Topology& t = e.out.topology;
  const EngineConfig& cfg = e.out.config;
  const RunStats& st = e.out.stats;
  const std::vector<RunStats>& more = e.more;
  const nlohmann::json& seeds_json = e.seeds_json;
  const std::string& traffic = e.traffic;
  const bool cycle = engine_traits(cfg.engine).virtual_clock;

  if (show_text(o.quiet, o.json, cfg.trace)) {
    fmt::print("topology      {} ({} PEs, {} nodes), {} thread{}, seed {}\n", t.spec(), t.pes(), t.nodes(),
               cfg.threads, cfg.threads == 1 ? "" : "s", cfg.seed);
    if (st.ranks > 1) print_distributed(st, cfg);
    if (e.trace_end)
      fmt::print("traffic       {}: {} packets replayed at their times (last {}); --rate, --packets and "
                 "--source-queue do not apply\n",
                 traffic, e.replayed, *e.trace_end);
    else if (o.app.empty())
      fmt::print("traffic       {}, rate {}, {} packets/PE, source queue {}{}\n", traffic, o.rate, o.packets,
                 o.source_queue == 0 ? std::string("unbounded") : std::to_string(o.source_queue),
                 o.burst_on > 0 ? fmt::format(", bursts on {:g} / off {:g}", o.burst_on, o.burst_off) : std::string());
    else
      fmt::print("application   {}\n", o.app);
    if (const auto* f = std::get_if<FaultyTopology>(&t.variant()))
      fmt::print("faults        {}{}; rerouting in {} buffer classes; {} packets dropped by the faults\n",
                 f->faults_text(),
                 f->dynamic() ? (st.fault_cycle ? fmt::format(" (at cycle {})", st.fault_cycle)
                                                : std::string(" (the run ended before they happened)"))
                              : std::string(),
                 f->buffer_classes() - f->class_offset(), st.dropped_by_faults);
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
      fmt::print("virtual time  {} cycles run ({} injecting{}); accepted {:.4f} packets/PE/cycle\n", st.cycles_run,
                 cfg.cycles, st.cycles_skipped ? fmt::format("; {} idle, jumped over", st.cycles_skipped) : "",
                 st.throughput);
    fmt::print("throughput    {:.3f} M packets/s, {:.3f} M packet-hops/s in {:.3f} s\n", st.packets_per_s / 1e6,
               st.packet_hops_per_s / 1e6, st.wall_s);
    fmt::print("links         max load {} packets, mean {:.1f}\n", st.link_load_max, st.link_load_mean);
    fmt::print("memory        peak RSS {:.1f} MB ({:.0f} bytes/PE)\n", static_cast<double>(st.peak_rss_kb) / 1024,
               static_cast<double>(st.peak_rss_kb) * 1024.0 / t.pes());
    if (e.out.telemetry) {
      const nlohmann::json& tj = e.out.json["telemetry"];
      fmt::print("telemetry     {} windows of {} {}", tj["windows"].get<std::uint64_t>(),
                 tj["window"].get<std::uint64_t>(), tj["time_unit"] == "ns" ? "us" : "cycles");
      if (tj.contains("peak_delivered"))
        fmt::print("; peak {} delivered in the window ending at {}, peak {} words held at {}",
                   tj["peak_delivered"]["packets"].get<std::uint64_t>(),
                   tj["peak_delivered"]["window_end"].get<std::uint64_t>(),
                   tj["peak_occupancy_words"]["words"].get<std::uint64_t>(),
                   tj["peak_occupancy_words"]["window_end"].get<std::uint64_t>());
      if (tj.contains("files"))
        fmt::print("; wrote {} and {} more\n", tj["files"][0].get<std::string>(), tj["files"].size() - 1);
      else
        fmt::print(" (give --csv or --json FILE to write the CSVs)\n");
    }
    if (e.out.json.contains("trace_events")) {
      const nlohmann::json& te = e.out.json["trace_events"];
      fmt::print("trace events  {} packets followed hop by hop ({} delivered, {} hops), written to {} (open it in "
                 "Perfetto or chrome://tracing)\n",
                 te["packets"].get<std::uint64_t>(), te["delivered"].get<std::uint64_t>(),
                 te["hops"].get<std::uint64_t>(), te["file"].get<std::string>());
    }
    fmt::print("result        {}\n", st.app_ok ? "verified" : "NOT verified: " + st.app_message);
    if (e.app_summary.is_object()) {  // the application's own figures, as in the JSON's "app"
      std::string line;
      for (const auto& [k, v] : e.app_summary.items())
        if (k != "app") line += fmt::format("{}{} {}", line.empty() ? "" : ", ", k, v.dump());
      fmt::print("app figures   {}\n", line);
    }
    if (o.seeds > 1) {
      const auto& f = seeds_json["figures"];
      fmt::print("{} seeds       latency mean {:.4g} +- {:.3g}, p99 {:.4g} +- {:.3g}; hops {:.4g} +- {:.3g}{} "
                 "(mean +- 95% CI half-width, seeds {}..{})\n",
                 o.seeds, f["latency_mean"]["mean"].get<double>(), f["latency_mean"]["ci95"].get<double>(),
                 f["latency_p99"]["mean"].get<double>(), f["latency_p99"]["ci95"].get<double>(),
                 f["hops_mean"]["mean"].get<double>(), f["hops_mean"]["ci95"].get<double>(),
                 cycle ? fmt::format("; accepted {:.4g} +- {:.3g}", f["throughput"]["mean"].get<double>(),
                                     f["throughput"]["ci95"].get<double>())
                       : std::string(),
                 cfg.seed, cfg.seed + o.seeds - 1);
    }
  }
  for (const auto& r : more)
    if (r.deadlock || !r.conservation_ok || !r.app_ok) {
      std::fprintf(stderr, "rica: a run of --seeds failed: %s\n",
                   r.deadlock ? "deadlock" : r.conservation_ok ? r.app_message.c_str() : "packets not accounted for");
      return r.deadlock ? 3 : 1;
    }
  if (st.deadlock) {
    std::fprintf(stderr, "rica: %s", st.deadlock_report.c_str());
    return 3;
  }
  return st.conservation_ok && st.app_ok ? 0 : 1;
}

void add_run_options(CLI::App* c, RunOptions& o, bool quiet_flag = true) {
  o.cmd = c;
  o.traffic_only.push_back(add_text(c, "--traffic", o.traffic,
                                    "Traffic: a pattern (see 'rica list'), matrix:FILE or trace:FILE (docs/traffic.md)",
                                    "a traffic pattern (see 'rica list'), matrix:FILE or trace:FILE"));
  add_text(c, "--app", o.app, "Run an application instead of traffic, e.g. reduce:rounds=5",
           "an application spec such as reduce:rounds=5 (see 'rica list')");
  o.traffic_only.push_back(add_rate(c, o.rate));
  o.traffic_only.push_back(add_packets(c, o.packets_opt,
                                       fmt::format("Packets per PE (mesh: 4 per iteration) [default: {} async; the "
                                                   "window, cycle]", defaults::traffic::packets)));
  o.traffic_only.push_back(add_source_queue(c, o.source_queue));
  o.traffic_only.push_back(add_burst(c, o.burst_on, o.burst_off));
  add_seeds(c, o.seeds);
  add_engine_options(c, o.engine);
  add_json(c, o.json, "Write the JSON summary (figures, configuration, provenance) to FILE");
  add_output_file(c, "--csv", o.csv, "Write per-PE CSV to FILE and per-link CSV to FILE's .links.csv");
  add_telemetry(c, o.telemetry, o.telemetry_links);
  add_trace_events(c, o.trace_events, o.trace_events_packets);
  if (quiet_flag) add_quiet(c, o.quiet);
}

}  // namespace

void add_run_commands(CLI::App& app, int& status) {
  auto ro = std::make_shared<RunOptions>();
  auto* r = app.add_subcommand("run", "Run a traffic pattern on an emulated machine");
  add_text(r, "topology", ro->topology, "Topology spec", "a topology spec (see 'rica list')")->required();
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
  std::optional<RunOutcome> out;
  parse_subcommand(
      "run", args,
      [&](CLI::App* r) {
        add_text(r, "topology", o.topology, "Topology spec", "a topology spec (see 'rica list')")->required();
        add_run_options(r, o, false);
      },
      [&] { out.emplace(execute(o).out); });  // o.cmd and the options' CLI11 handles are alive here
  return std::move(*out);
}

}  // namespace rica::cli
