// `rica os`: time sharing of one partition by two or more jobs under the drain and flush
// policies (rica/os.hpp), over loads and slice lengths. Writes a table (stdout, os.csv), the
// per-switch records (switches.csv), a JSON summary (per policy: switches, lost, duplicates,
// misdelivered and the switch-cost figures) and plots (scripts/plot_os.py).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "rica/distributed.hpp"
#include "rica/faults.hpp"
#include "app_registry.hpp"
#include "commands.hpp"
#include "rica/os.hpp"
#include "rica/partition.hpp"
#include "rica/report.hpp"
#include "rica/registry.hpp"
#include "rica/suggest.hpp"
#include "rica/routing.hpp"
#include "rica/telemetry.hpp"
#include "rica/trace_events.hpp"
#include "options.hpp"
#include "rica/io.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {


struct OsOptions {
  CLI::App* cmd = nullptr;  ///< the subcommand, for its configuration
  std::string topology;
  std::vector<std::string> jobs{"uniform", "hotspot"};
  std::vector<std::string> policies{"drain", "flush"};
  std::vector<double> rates{0.002, 0.05};  // low and saturated (degree link time)
  std::vector<std::uint64_t> slices{500, 2000};
  std::uint64_t packets = 200;
  std::uint32_t parts = 1;
  std::string dims;
  std::uint32_t partition = 0;
  EngineOptions engine;
  unsigned io_hop_cycles = defaults::os::io_hop_cycles;
  unsigned save_rate = defaults::os::save_words_per_cycle;
  std::string out, json;
  std::optional<std::uint64_t> telemetry;  ///< --telemetry W: window in cycles
  bool telemetry_links = false;            ///< --telemetry-links: the per-link table too
  std::string trace_events;                ///< --trace-events FILE: every run in one file
  std::uint64_t trace_events_packets = defaults::trace_events::packets;
  bool no_plot = false, quiet = false, progress = false;
};

/// A job's application on k PEs with local shape `shape`: a traffic pattern, or a named app.
std::unique_ptr<App> make_job(const std::string& spec, const Topology& topo, const Shape& shape, double rate,
                              std::uint64_t packets, std::uint64_t seed) {
  const std::string name = spec.substr(0, spec.find(':'));
  for (const TrafficEntry& e : TrafficRegistry::available())
    if (e.name == name) {
      TrafficOptions opt;
      opt.rate = rate;
      opt.packets = packets;
      opt.seed = seed;
      return TrafficRegistry::make(spec, traffic::PeSpace::of_shape(shape), opt);
    }
  return AppRegistry::make(spec, topo);
}

struct Point {
  std::string policy;
  double rate;
  std::uint64_t slice;  // 0 = the baseline (back to back)
  OsStats stats;
  std::uint64_t completion = 0;
  std::shared_ptr<Telemetry> telemetry;  ///< --telemetry: this run over time
  std::shared_ptr<TraceEvents> trace_events;  ///< --trace-events: this run's packets, halts and switches
};

/// Runs the sweep; returns the exit status: 0, 1 (a run lost, duplicated or misdelivered packets,
/// or broke the drain bound), 3 (a run deadlocked or livelocked: its report on stderr).
int run(const OsOptions& o) {
  if (o.jobs.size() < 2) throw usage_error("--job: give at least 2 jobs to time-share (repeat --job)");
  for (const std::string& job : o.jobs) {  // refuse an unknown job before the first run
    const std::string name = job.substr(0, job.find(':'));
    std::string patterns, apps;
    std::vector<std::string> names;
    bool known = false;
    for (const TrafficEntry& e : TrafficRegistry::available()) {
      known = known || e.name == name;
      patterns += (patterns.empty() ? "" : ", ") + e.name;
      names.push_back(e.name);
    }
    for (const AppEntry& e : AppRegistry::available()) {
      known = known || e.name == name;
      apps += (apps.empty() ? "" : ", ") + e.name;
      names.push_back(e.name);
    }
    if (!known)
      throw usage_error(fmt::format("--job: '{}' is neither a traffic pattern ({}) nor an application ({}){}", job,
                                    patterns, apps, did_you_mean(name, names)));
  }
  std::vector<SwitchPolicy> policies;
  for (const auto& p : o.policies) policies.push_back(policy_by_name(p));
  OsOptions eo = o;
  eo.engine.cfg.engine = EngineKind::cycle;  // time sharing runs on the cycle engine
  EngineConfig cfg = engine_config(eo.engine);
  if (o.telemetry && o.out.empty())
    throw usage_error("--telemetry: rica os writes the telemetry CSVs into --out DIR; give --out DIR");
  Telemetry::Options topt;
  topt.jobs = true;
  topt.links = o.telemetry_links;
  const std::vector<std::string> tfiles =
      o.telemetry ? Telemetry(*o.telemetry, topt).csv_paths("telemetry_") : std::vector<std::string>{};
  std::vector<std::string> files = {"os.csv", "switches.csv", "os.json"};
  files.insert(files.end(), tfiles.begin(), tfiles.end());
  std::vector<Output> outputs = dir_outputs(o.out, files);
  outputs.push_back({"--json", o.json});
  outputs.push_back({"--trace-events", o.trace_events});
  check_distinct_outputs(outputs);
  check_run_memory("os", o.topology, cfg, static_cast<double>(o.packets));
  if (o.parts > 1 || !o.dims.empty()) (void)check_memory_for("os", o.topology, partition_footprint);
  const Topology base = TopologyRegistry::parse(o.topology);
  check_routing(base, cfg.routing);
  // --faults: failed links only, before the run. The jobs need every PE and every packet (their
  // checks and the switch accounting), so failed PEs and failures during the run are refused;
  // partitions are computed on the intact network, so they are refused too.
  if (o.engine.fault_spec) {
    if (o.engine.fault_spec->at)
      throw usage_error("--faults: at=CYCLE does not apply to rica os (time-shared jobs need every packet); give "
                        "static faults");
    if (o.parts > 1 || !o.dims.empty())
      throw usage_error("--faults: rica os time-shares the whole machine only with faults; drop --parts/--dims or "
                        "--faults");
  }
  // --partition picks a part of the cut --parts/--dims make; without a cut the whole machine is the
  // one partition, 0 (the same range check as with a cut, below).
  if (o.partition > 0 && o.parts <= 1 && o.dims.empty())
    throw usage_error(fmt::format("--partition: {} is out of range [0, 0] (without --parts K or --dims the whole "
                                  "machine is partition 0)",
                                  o.partition));
  const Topology topo = faulty_topology(base, eo.engine, cfg);
  if (!failed_nodes(topo).empty())
    throw usage_error("--faults: nodes= / node lines do not apply to rica os (its jobs need every PE); give failed "
                      "links only");
  cfg.cycles = std::uint64_t{1} << 31;  // the jobs' own ends close the run
  validate(cfg);
  if (!o.out.empty()) {
    prepare_output_dir(o.out, "--out");
    for (const std::string& f : files) check_output_file(o.out + "/" + f, "--out");
  }
  // The partition to time-share.
  std::vector<node_t> pes;
  Shape shape;
  std::string where = "the whole machine";
  if (o.parts > 1 || !o.dims.empty()) {
    PartitionRequest req;
    req.parts = o.parts;
    if (!o.dims.empty()) req.dims = parse_dim_cuts(o.dims);
    const PartitionPlan plan = partition(topo, req);
    if (o.partition >= plan.parts.size())
      throw usage_error(fmt::format("--partition: {} is out of range [0, {}] (the cut makes {} partitions)",
                                    o.partition, plan.parts.size() - 1, plan.parts.size()));
    const Partition& p = plan.parts[o.partition];
    if (!p.closed)
      throw usage_error(fmt::format("os: partition {} ({}) is open; time sharing needs a closed partition",
                                    o.partition, p.description));
    pes = p.pes;
    shape = p.shape;
    where = fmt::format("partition {} of {} ({}, {} PEs, closed)", o.partition, plan.parts.size(), p.description,
                        pes.size());
  } else {
    pes.resize(topo.pes());
    for (node_t v = 0; v < topo.pes(); ++v) pes[v] = v;
    shape = topo.shape();
  }
  if (shape.empty() || shape_size(shape) != pes.size()) shape = {static_cast<node_t>(pes.size())};
  if (!o.quiet)
    std::printf("rica os %s: %zu jobs on %s; seed %llu, buffers %u words, packets %u:%u, link %s, I/O %u cycles/level, "
                "save %u words/cycle\n",
                topo.spec().c_str(), o.jobs.size(), where.c_str(), static_cast<unsigned long long>(cfg.seed),
                cfg.buffer_words, cfg.packet_words, cfg.packet_spread, link_cycles_text(cfg).c_str(), o.io_hop_cycles,
                o.save_rate);
  std::vector<Point> points;
  const std::size_t total = o.rates.size() * (1 + policies.size() * o.slices.size());
  Progress progress("runs", total, o.quiet, o.progress);
  auto one = [&](SwitchPolicy policy, double rate, std::uint64_t slice) {
    progress.update(points.size(), fmt::format("{} rate {:g} slice {}", policy_name(policy), rate, slice));
    std::vector<std::unique_ptr<App>> apps;
    std::vector<JobSpec> jobs;
    OsConfig os;
    for (std::size_t j = 0; j < o.jobs.size(); ++j) {
      apps.push_back(make_job(o.jobs[j], topo, shape, rate, o.packets, cfg.seed + j));
      jobs.push_back({o.jobs[j], apps.back().get(), pes});
      os.slots.push_back({static_cast<unsigned>(j)});
    }
    os.policy = policy;
    os.slice = slice ? slice : std::uint64_t{1} << 30;
    os.io_hop_cycles = o.io_hop_cycles;
    os.save_words_per_cycle = o.save_rate;
    auto tel = o.telemetry ? std::make_shared<Telemetry>(*o.telemetry, topt) : nullptr;
    std::vector<Observer*> observers;
    if (tel) observers.push_back(tel.get());
    auto te = o.trace_events.empty()
                  ? nullptr
                  : std::make_shared<TraceEvents>(TraceEvents::Options{o.trace_events_packets, 0, true});
    if (te) observers.push_back(te.get());
    Point pt{policy_name(policy), rate, slice, run_jobs(topo, jobs, cfg, os, observers), 0, tel, te};
    if (te) te->add_switches(pt.stats.switches);
    for (const JobResult& r : pt.stats.jobs) pt.completion = std::max(pt.completion, r.completion_cycle);
    points.push_back(std::move(pt));
  };
  for (double rate : o.rates) {
    one(policies.front(), rate, 0);  // baseline: the jobs back to back, one switch between them
    points.back().policy = "baseline";
    for (SwitchPolicy policy : policies)
      for (std::uint64_t slice : o.slices) one(policy, rate, slice);
  }
  progress.update(points.size());
  progress.finish();
  // The table.
  std::map<double, std::uint64_t> baseline;
  for (const Point& p : points)
    if (p.slice == 0) baseline[p.rate] = p.completion;
  const std::string header =
      "policy,rate,slice,switches,switch_mean,switch_max,freeze_max,detect_mean,waves_max,saved_mean,saved_words_mean,"
      "peak_node_packets,save_peak_packets,bound,bound_ok,completion,vs_baseline,lost,duplicates,misdelivered,"
      "conservation_ok,jobs_ok";
  std::vector<std::string> rows;
  std::printf("%-8s %5s %6s %8s %9s %7s %7s %7s %6s %9s %7s %9s %11s %7s %s\n", "policy", "rate", "slice",
              "switches", "mean cyc", "max", "freeze", "detect", "saved", "peak/node", "bound", "complete",
              "vs baseline", "lost/dup", "ok");
  for (const Point& p : points) {
    const auto& sw = p.stats.switches;
    double mean = 0, detect = 0, saved = 0, words = 0;
    std::uint64_t mx = 0, freeze = 0, waves = 0, peak = 0, bound = 0;
    for (const SwitchRecord& r : sw) {
      mean += static_cast<double>(r.cycles);
      detect += static_cast<double>(r.detect_cycles);
      saved += static_cast<double>(r.packets_saved);
      words += static_cast<double>(r.words_saved);
      mx = std::max(mx, r.cycles);
      freeze = std::max(freeze, r.freeze_cycles);
      waves = std::max(waves, r.waves);
      peak = std::max(peak, r.peak_node_packets);
      bound = std::max(bound, r.bound_cycles);
    }
    const double n = sw.empty() ? 1.0 : static_cast<double>(sw.size());
    mean /= n, detect /= n, saved /= n, words /= n;
    bool jobs_ok = true;
    for (const JobResult& r : p.stats.jobs) jobs_ok = jobs_ok && r.ok;
    const double vs = baseline[p.rate] ? static_cast<double>(p.completion) / static_cast<double>(baseline[p.rate]) : 0;
    const bool ok = jobs_ok && p.stats.machine.conservation_ok && p.stats.misdelivered == 0 && p.stats.bound_ok;
    std::printf("%-8s %5.3g %6s %8zu %9.1f %7llu %7llu %7.1f %6.1f %9llu %7llu %9llu %10.3fx %3llu/%-3llu %s\n",
                p.policy.c_str(), p.rate, p.slice ? std::to_string(p.slice).c_str() : "-", sw.size(), mean,
                static_cast<unsigned long long>(mx), static_cast<unsigned long long>(freeze), detect, saved,
                static_cast<unsigned long long>(peak), static_cast<unsigned long long>(bound),
                static_cast<unsigned long long>(p.completion), vs,
                static_cast<unsigned long long>(p.stats.machine.lost),
                static_cast<unsigned long long>(p.stats.machine.duplicates), ok ? "yes" : "NO");
    rows.push_back(fmt::format("{},{},{},{},{:.3f},{},{},{:.3f},{},{:.3f},{:.3f},{},{},{},{},{},{:.4f},{},{},{},{},{}",
                               p.policy, p.rate, p.slice, sw.size(), mean, mx, freeze, detect, waves, saved, words,
                               peak, p.stats.save_peak_packets, bound, p.stats.bound_ok, p.completion, vs,
                               p.stats.machine.lost, p.stats.machine.duplicates, p.stats.misdelivered,
                               p.stats.machine.conservation_ok, jobs_ok));
  }
  // JSON: per policy, summed over its runs; every run in full.
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = cfg.threads;
  config["job"] = o.jobs;  // the list (the default's text is one word per job, not re-runnable)
  nlohmann::json j = provenance(config, cfg.seed, cfg.threads);
  j["topology"] = base.spec();
  j["faults"] = nlohmann::json{{"spec", o.engine.faults.empty() ? "none" : o.engine.faults}};
  if (const auto* f = std::get_if<FaultyTopology>(&topo.variant()))
    j["faults"].update({{"failed", f->faults_text()}, {"failed_links", f->failed_links().size()},
                        {"rerouting_classes", f->buffer_classes() - f->class_offset()}});
  j["partition"] = where;
  j["jobs"] = o.jobs;
  j["model"] = {{"seed", cfg.seed},
                 {"threads", cfg.threads},
                 {"buffer_words", cfg.buffer_words},
                 {"packet_words", fmt::format("{}:{}", cfg.packet_words, cfg.packet_spread)},
                 {"link_cycles", link_cycles_text(cfg)},
                 {"packets", o.packets},
                 {"io_hop_cycles", o.io_hop_cycles}, {"save_words_per_cycle", o.save_rate}, {"rates", o.rates},
                 {"slices", o.slices}};
  j["policies"] = nlohmann::json::object();
  for (const std::string& name : o.policies) {
    std::uint64_t switches = 0, lost = 0, dup = 0, mis = 0, cyc = 0, cmax = 0, saved = 0, detect = 0, peak = 0;
    bool bound_ok = true;
    for (const Point& p : points) {
      if (p.policy != name) continue;
      switches += p.stats.switches.size();
      lost += p.stats.machine.lost;
      dup += p.stats.machine.duplicates;
      mis += p.stats.misdelivered;
      bound_ok = bound_ok && p.stats.bound_ok;
      peak = std::max(peak, p.stats.save_peak_packets);
      for (const SwitchRecord& r : p.stats.switches) {
        cyc += r.cycles;
        cmax = std::max(cmax, r.cycles);
        saved += r.packets_saved;
        detect += r.detect_cycles;
      }
    }
    const double n = switches ? static_cast<double>(switches) : 1.0;
    j["policies"][name] = {{"switches", switches},
                           {"lost", lost},
                           {"duplicates", dup},
                           {"misdelivered", mis},
                           {"switch_cycles_mean", static_cast<double>(cyc) / n},
                           {"switch_cycles_max", cmax},
                           {"packets_saved_mean", static_cast<double>(saved) / n},
                           {"detect_cycles_mean", static_cast<double>(detect) / n},
                           {"save_peak_packets", peak},
                           {"bound_ok", bound_ok}};
  }
  j["runs"] = nlohmann::json::array();
  for (const Point& p : points) {
    nlohmann::json r = p.stats.to_json();
    r["policy"] = p.policy;
    r["rate"] = p.rate;
    r["slice"] = p.slice;
    r["completion"] = p.completion;
    if (!p.stats.machine.latency_histogram.empty())
      r["latency_distribution"] = report::latency_distributions(p.stats.machine);
    if (p.telemetry) r["telemetry"] = p.telemetry->summary();
    if (p.trace_events) r["trace_events"] = p.trace_events->summary();
    j["runs"].push_back(r);
  }
  auto write = [](const std::string& path, const std::string& text, const char* what) {
    write_text_file(path, text, what);
  };
  if (!o.trace_events.empty()) {
    std::vector<std::pair<std::string, const TraceEvents*>> runs;
    for (const Point& p : points)
      runs.push_back({p.slice ? fmt::format("{} rate {} slice {}", p.policy, p.rate, p.slice)
                              : fmt::format("baseline (back to back) rate {}", p.rate),
                      p.trace_events.get()});
    TraceEvents::write(o.trace_events, runs, "--trace-events");
    j["trace_events"] = {{"file", o.trace_events}, {"runs", runs.size()}};
    if (!o.quiet) std::printf("wrote %s (trace events: %zu runs)\n", o.trace_events.c_str(), runs.size());
  }
  if (!o.json.empty()) write_json(o.json, j);
  if (!o.out.empty()) {
    std::string csv = header + "\n";
    for (const auto& r : rows) csv += r + "\n";
    write(o.out + "/os.csv", csv, "--out");
    std::string sw = "policy,rate,slice,at,cycles,freeze,detect,waves,packets_saved,words_saved,peak_node_packets,bound\n";
    for (const Point& p : points)
      for (const SwitchRecord& r : p.stats.switches)
        sw += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", p.policy, p.rate, p.slice, r.at, r.cycles,
                          r.freeze_cycles, r.detect_cycles, r.waves, r.packets_saved, r.words_saved,
                          r.peak_node_packets, r.bound_cycles);
    write(o.out + "/switches.csv", sw, "--out");
    write(o.out + "/os.json", j.dump(2) + "\n", "--out");
    // --telemetry: one file per table, the runs one after another, each row led by its run's
    // policy, rate and slice (0: the baseline).
    for (std::size_t k = 0; k < tfiles.size(); ++k) {
      std::string text;
      for (const Point& p : points) {
        const auto tables = p.telemetry->tables();
        text += tables[k].second->csv({{"policy", p.policy}, {"rate", fmt::format("{}", p.rate)},
                                       {"slice", std::to_string(p.slice)}},
                                      text.empty());
      }
      write(o.out + "/" + tfiles[k], text, "--out");
    }
    if (!o.no_plot) experiments::run_plot_script(
          "plot_os.py", {o.out + "/os.csv", "--out", o.out, "--title",
                         fmt::format("rica os {} ({}), {} jobs; {}-word buffers, {} +- {}-word packets, link time {}", topo.spec(), where,
                                     o.jobs.size(), cfg.buffer_words, cfg.packet_words, cfg.packet_spread,
                                     link_cycles_text(cfg))});
    if (!o.no_plot && !tfiles.empty())
      experiments::run_plot_script("rica_plot.py", {"telemetry", o.out + "/" + tfiles[0], "--out", o.out});
    if (!o.quiet)
      std::printf("wrote %s/os.csv, switches.csv, os.json%s%s\n", o.out.c_str(), tfiles.empty() ? "" : ", telemetry_*.csv",
                  o.no_plot ? "" : ", plots");
  }
  // A stuck run is what it is (deadlock or livelock, with its evidence), not an internal error;
  // packets lost, duplicated or misdelivered, or a broken drain bound, are.
  for (const Point& p : points) {
    const bool stuck = p.stats.machine.deadlock;
    if (stuck || p.stats.machine.conservation_ok) continue;
    throw std::runtime_error(fmt::format("os: {} at rate {}, slice {}: packets lost or duplicated",
                                         p.policy, p.rate, p.slice));
  }
  for (const Point& p : points)
    if (p.stats.misdelivered != 0 || !p.stats.bound_ok)
      throw std::runtime_error(fmt::format("os: {} at rate {}, slice {}: {}", p.policy, p.rate, p.slice,
                                           p.stats.misdelivered ? "packets misdelivered" : "a switch broke the drain bound"));
  for (const Point& p : points)
    if (p.stats.machine.deadlock) {
      std::fprintf(stderr, "rica: os: %s at rate %g, slice %s: %s", p.policy.c_str(), p.rate,
                   p.slice ? std::to_string(p.slice).c_str() : "- (baseline)", p.stats.machine.deadlock_report.c_str());
      return 3;
    }
  return 0;
}

}  // namespace

void add_os_command(CLI::App& app, int& status) {
  auto o = std::make_shared<OsOptions>();
  auto* c = app.add_subcommand("os", "Time sharing of a partition: drain vs flush over loads and slice lengths");
  o->cmd = c;
  add_text(c, "topology", o->topology, "Topology spec", "a topology spec (see 'rica list')")->required();
  add_text(c, "--job", o->jobs, "A job: traffic pattern or application spec (repeat; >= 2)",
           "a traffic pattern (uniform, hotspot, ...) or an application spec (reduce, sort, stencil; see 'rica list')");
  add_name_list(c, "--policy", o->policies, fmt::format("Switch policies: {} (comma list; docs/os.md)", registered(switch_policies())));
  add_rates(c, "--rate", o->rates, "Injection rates of traffic jobs");
  add_uint_list(c, "--slice", o->slices, 1, defaults::limits::slice, "Slice lengths in cycles (comma list)");
  add_packets(c, o->packets, "Packets per PE of traffic jobs");
  add_uint(c, "--parts", o->parts, 1, defaults::limits::parts, "Cut the machine into K partitions (rica partition) and time-share one");
  add_text(c, "--dims", o->dims, "Dimensions to cut, as for rica partition", "D or D:B, comma separated, e.g. 2:1,1:1");
  add_uint(c, "--partition", o->partition, 0, defaults::limits::parts - 1,
           "Which partition of the --parts/--dims cut to time-share (0 without a cut: the whole machine)");
  add_engine_options(c, o->engine);
  add_uint(c, "--io-hop-cycles", o->io_hop_cycles, 1, 1024, "I/O network: cycles per broadcast-tree level");
  add_uint(c, "--save-rate", o->save_rate, 1, 1024, "Words per cycle a PE saves or restores");
  add_output_dir(c, "--out", o->out, "Directory for os.csv, switches.csv, os.json and the plots");
  add_telemetry(c, o->telemetry, o->telemetry_links);
  add_trace_events(c, o->trace_events, o->trace_events_packets);
  add_json(c, o->json, "Write the JSON summary (with configuration and provenance) to FILE");
  c->add_flag("--no-plot", o->no_plot, "Write the CSV and JSON only");
  add_quiet(c, o->quiet);
  add_progress(c, o->progress);
  c->callback([o, &status] {
    dist::require_one_process("rica os");  // the OS layer across ranks may come later (docs/distributed.md)
    status = run(*o);
  });
}

}  // namespace rica::cli
