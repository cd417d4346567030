// `rica run` and `rica demo`: run a traffic pattern or an application on an emulated machine (either
// engine). A thin presenter over the library request rica/request/run.hpp: the option table's
// values -> request::Run; prepare (checks, the resolved plan the echo shows); run; JSON, CSV,
// telemetry and trace files; the text report.
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
#include "rica/request/run.hpp"
#include "rica/trace_events.hpp"

namespace rica::cli {
namespace {

struct RunOptions {
  std::string topology = defaults::topology;
  EngineOptions engine;  ///< the machine and the run's own options (the option table)
  bool quiet = false;
  std::string json, csv;
  CLI::App* cmd = nullptr;  ///< the subcommand (run or demo), for its configuration
};

/// The library request of the parsed options (rica/request/run.hpp).
request::Run request_of(const RunOptions& o, const EngineConfig& cfg) {
  const CommandValues& v = o.engine.values;
  request::Run r;
  r.topology = o.topology;
  r.traffic = v.traffic;
  r.app = v.app;
  r.rate = v.rate;
  r.packets = v.packets;
  r.source_queue = v.source_queue;
  r.burst_on = v.burst_on;
  r.burst_off = v.burst_off;
  r.seeds = v.seeds;
  r.engine = cfg;
  r.engine.progress = !o.quiet;
  r.faults = o.engine.fault_spec;
  r.cycles_given = o.engine.given("--cycles");
  r.telemetry = v.telemetry;
  r.telemetry_links = v.telemetry_links;
  r.trace_events = v.trace_events;
  r.trace_events_packets = v.trace_events_packets;
  return r;
}

/// The resolved configuration of a run: every option that shapes it, defaults filled in, the
/// values the run used (threads, packets, the window of a trace); options the run ignores left out.
nlohmann::json run_config(const RunOptions& o, const request::RunPlan& p) {
  const EngineConfig& cfg = p.engine;
  nlohmann::json c = option_config(o.cmd);
  c["threads"] = cfg.threads;
  if (engine_traits(cfg.engine).virtual_clock) {  // options the engine does not read are left out
    c["cycles"] = cfg.cycles;
    c["warmup"] = cfg.warmup;
  }
  for (const OptionDef* d : option_table())  // options outside this engine's scope do not shape the run
    if (!d->engines(cfg.engine)) c.erase(d->name);
  for (const OptionDef* d : not_applying(o.engine)) c.erase(d->name);  // the traffic options of an --app run
  if (o.engine.values.app.empty()) {
    c.erase("app");
    c["packets"] = p.packets;
  }
  return c;
}

/// Where --telemetry's CSVs go: beside --csv FILE ("r.csv" -> "r.telemetry_NAME.csv"), else
/// beside --json FILE ("r.json" -> the same); "" when neither names a file (no CSV written).
std::string telemetry_prefix(const RunOptions& o) {
  if (!o.engine.values.telemetry) return "";
  auto stem = [](const std::string& p, const char* ext) {
    const std::string e = ext;
    return p.size() > e.size() && p.ends_with(e) ? p.substr(0, p.size() - e.size()) : p;
  };
  if (!o.csv.empty()) return stem(o.csv, ".csv") + ".telemetry_";
  if (!o.json.empty() && o.json != "-") return stem(o.json, ".json") + ".telemetry_";
  return "";
}

/// Every file the run writes, checked before it: writable, and no two the same.
void check_outputs(const RunOptions& o, const request::Run& r, const std::string& tprefix) {
  std::vector<Output> outputs = {{"--json", o.json},
                                 {"--csv", o.csv},
                                 {"--csv (its .links.csv)", o.csv.empty() ? "" : report::link_csv_path(o.csv)},
                                 {"--trace", r.engine.trace},
                                 {"--trace-events", r.trace_events}};
  if (!tprefix.empty())
    for (const std::string& f : Telemetry(*r.telemetry).csv_paths(tprefix)) {
      outputs.push_back({fmt::format("--telemetry ({})", f), f});
      check_output_file(f, "--telemetry");
    }
  check_distinct_outputs(outputs);
}

/// The JSON report (provenance, the figures, the outputs), and the files beside it written.
nlohmann::json write_reports(const RunOptions& o, const request::Run& r, const request::RunOutcome& out,
                             const nlohmann::json& config, const std::string& tprefix) {
  const request::RunPlan& p = out.plan;
  nlohmann::json j = provenance(config, p.engine.seed, p.engine.threads);
  j.update(out.to_json(r));
  if (out.stats.ranks > 1) j["distributed"] = distributed_json(out.stats, p.engine);
  j["outputs"] = {{"json", o.json}, {"csv", o.csv}, {"links_csv", o.csv.empty() ? "" : report::link_csv_path(o.csv)},
                  {"trace", p.engine.trace}};
  if (p.telemetry)
    j["telemetry"] = p.telemetry->summary(tprefix.empty() ? std::vector<std::string>{} : p.telemetry->csv_paths(tprefix));
  if (!tprefix.empty()) (void)p.telemetry->write_csv(tprefix, "--telemetry");
  if (p.trace_events) {
    TraceEvents::write(r.trace_events,
                       {{fmt::format("rica {} {}", o.cmd->get_name(), p.topology.spec()), p.trace_events.get()}},
                       "--trace-events");
    j["trace_events"] = p.trace_events->summary();
    j["trace_events"]["file"] = r.trace_events;
  }
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.csv.empty()) report::write_run_csv(o.csv, p.topology, out.stats);
  return j;
}

/// What `rica run` computed, for the report it prints.
struct Executed {
  request::Run request;
  request::RunOutcome outcome;
  RunOutcome out;  ///< what Python's rica.run returns
};

/// Everything `rica run` does but print the report: the request of the options, its checks, the
/// echo and header (unless quiet), the runs, the JSON and CSV files.
Executed execute(RunOptions& o) {
  check_not_with(o.engine);  // the traffic options with --app
  const request::Run r = request_of(o, engine_config(o.engine));
  request::validate(r);
  const std::string tprefix = telemetry_prefix(o);
  check_outputs(o, r, tprefix);
  request::RunPlan plan = request::prepare(r);
  const nlohmann::json config = run_config(o, plan);
  // The echo reproduces the run: every option that shapes it, resolved; pasted, it runs again.
  if (!o.quiet) fmt::print(stderr, "{}\n", echo_command(o.cmd, config));
  if (!o.quiet && show_text(o.quiet, o.json, r.engine.trace)) {
    fmt::print("rica          {}\n", version_string());
    fmt::print("model         {}\n", model_line(plan.engine, &plan.topology));
  }
  request::RunOutcome outcome = request::run(r, std::move(plan));
  nlohmann::json j = write_reports(o, r, outcome, config, tprefix);
  const request::RunPlan& p = outcome.plan;
  RunOutcome out{p.topology, p.engine, outcome.stats, std::move(j), outcome.status(), p.telemetry};
  return Executed{r, std::move(outcome), std::move(out)};
}

/// The workload's lines of the text report: topology, traffic or application, faults.
void print_workload(const request::Run& r, const request::RunOutcome& out) {
  const Topology& t = out.plan.topology;
  const EngineConfig& cfg = out.plan.engine;
  const RunStats& st = out.stats;
  fmt::print("topology      {} ({} PEs, {} nodes), {} thread{}, seed {}\n", t.spec(), t.pes(), t.nodes(),
             cfg.threads, cfg.threads == 1 ? "" : "s", cfg.seed);
  if (st.ranks > 1) print_distributed(st, cfg);
  if (out.trace_end)
    fmt::print("traffic       {}: {} packets replayed at their times (last {}); --rate, --packets and "
               "--source-queue do not apply\n",
               out.plan.traffic, out.replayed, *out.trace_end);
  else if (r.app.empty())
    fmt::print("traffic       {}, rate {}, {} packets/PE, source queue {}{}\n", out.plan.traffic, r.rate,
               out.plan.packets, r.source_queue == 0 ? std::string("unbounded") : std::to_string(r.source_queue),
               r.burst_on > 0 ? fmt::format(", bursts on {:g} / off {:g}", r.burst_on, r.burst_off) : std::string());
  else
    fmt::print("application   {}\n", r.app);
  if (const auto* f = std::get_if<FaultyTopology>(&t.variant()))
    fmt::print("faults        {}{}; rerouting in {} buffer classes; {} packets dropped by the faults\n",
               f->faults_text(),
               f->dynamic() ? (st.fault_cycle ? fmt::format(" (at cycle {})", st.fault_cycle)
                                              : std::string(" (the run ended before they happened)"))
                            : std::string(),
               f->buffer_classes() - f->class_offset(), st.dropped_by_faults);
}

/// The figures' lines: packets, hops, latency, virtual time, throughput, links, memory.
void print_figures(const request::RunOutcome& out) {
  const RunStats& st = out.stats;
  const EngineConfig& cfg = out.plan.engine;
  fmt::print("packets       injected {}, delivered {}, in network {}, duplicates {}, lost {} -> {}\n", st.injected,
             st.delivered, st.in_network, st.duplicates, st.lost,
             st.conservation_ok ? "conservation ok (" + st.verify_method + ")" : "CONSERVATION FAILED");
  fmt::print("hops          mean {:.3f}, max {}; relayed {}, blocked {}\n", st.hops_mean, st.hops_max, st.forwarded,
             st.blocked);
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
  if (engine_traits(cfg.engine).virtual_clock)
    fmt::print("virtual time  {} cycles run ({} injecting{}); accepted {:.4f} packets/PE/cycle\n", st.cycles_run,
               cfg.cycles, st.cycles_skipped ? fmt::format("; {} idle, jumped over", st.cycles_skipped) : "",
               st.throughput);
  fmt::print("throughput    {:.3f} M packets/s, {:.3f} M packet-hops/s in {:.3f} s\n", st.packets_per_s / 1e6,
             st.packet_hops_per_s / 1e6, st.wall_s);
  fmt::print("links         max load {} packets, mean {:.1f}\n", st.link_load_max, st.link_load_mean);
  fmt::print("memory        peak RSS {:.1f} MB ({:.0f} bytes/PE)\n", static_cast<double>(st.peak_rss_kb) / 1024,
             static_cast<double>(st.peak_rss_kb) * 1024.0 / out.plan.topology.pes());
}

/// The lines of the files beside the report: telemetry windows, trace events.
void print_files(const nlohmann::json& j) {
  if (j.contains("telemetry")) {
    const nlohmann::json& tj = j["telemetry"];
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
  if (j.contains("trace_events")) {
    const nlohmann::json& te = j["trace_events"];
    fmt::print("trace events  {} packets followed hop by hop ({} delivered, {} hops), written to {} (open it in "
               "Perfetto or chrome://tracing)\n",
               te["packets"].get<std::uint64_t>(), te["delivered"].get<std::uint64_t>(),
               te["hops"].get<std::uint64_t>(), te["file"].get<std::string>());
  }
}

/// A replayed MPI program's lines (rica replay; docs/replay.md): the JSON's "replay" in short.
void print_replay(const nlohmann::json& a) {
  const auto u = [&](const char* k) { return a.value(k, std::uint64_t{0}); };
  std::string colls;
  for (const auto& [k, v] : a["collective_calls"].items()) colls += fmt::format("{}{} {}", colls.empty() ? "" : ", ", k, v.get<std::uint64_t>());
  fmt::print("replay        {} ranks ({}), {} messages, {} bytes, {} packets{}\n", u("ranks"), a.value("map", ""),
             u("p2p_messages"), u("bytes"), u("packets"), colls.empty() ? "" : "; collective calls " + colls);
  fmt::print("makespan      {} cycles (recorded run {:.6f} s{}); communication {:.1f} %, compute {:.1f} % of rank time\n",
             u("makespan"), a.value("recorded_wall_s", 0.0),
             a["emulated_s"].is_null() ? std::string()
                                       : fmt::format(", emulated {:.6f} s at {:g} cycles/s", a["emulated_s"].get<double>(),
                                                     a.value("compute_scale", 0.0)),
             100 * a.value("communication_share", 0.0), 100 * a.value("compute_share", 0.0));
  const auto& l = a["message_latency"];
  fmt::print("messages      latency mean {:.1f}, p50 {}, p99 {}, max {} cycles (send to last packet)\n",
             l.value("mean", 0.0), l.value("p50", std::uint64_t{0}), l.value("p99", std::uint64_t{0}),
             l.value("max", std::uint64_t{0}));
  const auto& c = a["critical_path"];
  fmt::print("critical path {} cycles: {} local, {} communication ({} steps)\n", c.value("length", std::uint64_t{0}),
             c.value("local", std::uint64_t{0}), c.value("communication", std::uint64_t{0}),
             c.value("steps_total", std::uint64_t{0}));
  if (a.contains("deadlock") && a["deadlock"].is_array())
    for (const auto& w : a["deadlock"]) fmt::print("waiting       {}\n", w.get<std::string>());
}

/// The result's lines: verified, the application's own figures, the seeds' means.
void print_result(const request::Run& r, const request::RunOutcome& out) {
  const RunStats& st = out.stats;
  fmt::print("result        {}\n", st.app_ok ? "verified" : "NOT verified: " + st.app_message);
  if (out.app.is_object() && out.app.value("app", "") == "replay") {  // a replayed MPI program (apps/replay)
    print_replay(out.app);
  } else if (!r.app.empty() && out.app.is_object()) {  // the application's own figures, as in the JSON's "app"
    std::string line;
    for (const auto& [k, v] : out.app.items())
      if (k != "app") line += fmt::format("{}{} {}", line.empty() ? "" : ", ", k, v.dump());
    fmt::print("app figures   {}\n", line);
  }
  if (r.seeds > 1) {
    const auto& f = out.seeds["figures"];
    const std::uint64_t seed = out.plan.engine.seed;
    fmt::print("{} seeds       latency mean {:.4g} +- {:.3g}, p99 {:.4g} +- {:.3g}; hops {:.4g} +- {:.3g}{} "
               "(mean +- 95% CI half-width, seeds {}..{})\n",
               r.seeds, f["latency_mean"]["mean"].get<double>(), f["latency_mean"]["ci95"].get<double>(),
               f["latency_p99"]["mean"].get<double>(), f["latency_p99"]["ci95"].get<double>(),
               f["hops_mean"]["mean"].get<double>(), f["hops_mean"]["ci95"].get<double>(),
               engine_traits(out.plan.engine.engine).virtual_clock
                   ? fmt::format("; accepted {:.4g} +- {:.3g}", f["throughput"]["mean"].get<double>(),
                                 f["throughput"]["ci95"].get<double>())
                   : std::string(),
               seed, seed + r.seeds - 1);
  }
}

int run(RunOptions o) {
  const Executed e = execute(o);
  if (show_text(o.quiet, o.json, e.out.config.trace)) {
    print_workload(e.request, e.outcome);
    print_figures(e.outcome);
    print_files(e.out.json);
    print_result(e.request, e.outcome);
  }
  if (const std::string failed = e.outcome.seeds_failure(); !failed.empty())
    std::fprintf(stderr, "rica: a run of --seeds failed: %s\n", failed.c_str());
  else if (e.outcome.stats.deadlock)
    std::fprintf(stderr, "rica: %s", e.outcome.stats.deadlock_report.c_str());
  return e.outcome.status();
}

void add_run_options(CLI::App* c, RunOptions& o, bool quiet_flag = true) {
  o.cmd = c;
  add_engine_options(c, o.engine, OptionGroup::workload);
  add_engine_options(c, o.engine, OptionGroup::machine);
  add_json(c, o.json, "Write the JSON summary (figures, configuration, provenance) to FILE");
  add_output_file(c, "--csv", o.csv, "Write per-PE CSV to FILE and per-link CSV to FILE's .links.csv");
  add_engine_options(c, o.engine, OptionGroup::outputs);
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
