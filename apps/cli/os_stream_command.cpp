// `rica os-stream`: the OS-policy workbench (rica/os_stream.hpp; docs/os.md "Job streams"). A job
// stream (SWF file or poisson:...) runs on the machine under every combination of the allocators,
// schedulers and (time sharing) switch policies given; each job runs real traffic, packet by
// packet. A thin presenter over run_stream: the same request from the CLI (text, CSV, JSON,
// plots) and from Python (os_stream_json).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "api.hpp"
#include "app_registry.hpp"
#include "commands.hpp"
#include "options.hpp"
#include "rica/distributed.hpp"
#include "rica/io.hpp"
#include "rica/os_stream.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "rica/routing.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::cli {
namespace {


struct StreamOptions {
  CLI::App* cmd = nullptr;
  std::string topology;
  std::string jobs;
  std::vector<std::string> allocs{"buddy"}, scheds{"fcfs"}, policies{"drain"};
  std::string job = "uniform";  ///< the jobs' traffic pattern or application, or a weighted mix (JobMix)
  std::string job_map;          ///< SWF executable number -> application (JobMix)
  double rate = defaults::os_stream::rate;
  std::string cps = fmt::format("{:g}", defaults::os_stream::cycles_per_second);  ///< --cycles-per-second (parse_real)
  std::uint64_t slice = defaults::os::slice;
  unsigned rows = defaults::os_stream::rows;
  EngineOptions engine;
  unsigned io_hop_cycles = defaults::os::io_hop_cycles;
  unsigned save_rate = defaults::os::save_words_per_cycle;
  std::string out, json;
  bool no_plot = false, quiet = false, progress = false, alone = false;
};

void declare(CLI::App* c, StreamOptions& o) {
  o.cmd = c;
  add_text(c, "topology", o.topology, "Topology spec", "a topology spec (see 'rica list')")->required();
  add_text(c, "--jobs", o.jobs, "The job stream: an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S]",
           "an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S]")
      ->required();
  add_name_list(c, "--alloc", o.allocs, fmt::format("Allocators: {} (comma list; docs/os.md)", registered(allocators())));
  add_name_list(c, "--sched", o.scheds, fmt::format("Schedulers: {} (comma list)", registered(schedulers())));
  add_name_list(c, "--policy", o.policies, fmt::format("Switch policies at gang slot boundaries: {} (comma list)", registered(switch_policies())));
  add_text(c, "--job", o.job,
           "The jobs' traffic pattern or application (sized to its PEs), or a weighted mix 'SPEC@W;SPEC@W;...' "
           "drawn per job",
           "a traffic pattern (uniform, hotspot, ...) or an application spec (see 'rica list'), or SPEC@W;SPEC@W;...");
  add_text(c, "--job-map", o.job_map, "SWF streams: 'N=SPEC;N=SPEC;...' runs jobs of executable number N (field 14) "
           "as SPEC; the others draw from --job",
           "N=SPEC;N=SPEC;... (N an SWF executable number, SPEC as for --job)");
  add_rate(c, o.rate);
  add_text(c, "--cycles-per-second", o.cps, "Emulated cycles per second of trace time (a job's work)",
           "a number in (0, 1e9]");
  add_uint(c, "--slice", o.slice, 1, defaults::limits::slice, "Gang: cycles per time slot");
  add_uint(c, "--rows", o.rows, 1, 64, "Gang: rows (time slots) of the Ousterhout matrix at most");
  add_engine_options(c, o.engine);
  add_uint(c, "--io-hop-cycles", o.io_hop_cycles, 1, 1024, "I/O network: cycles per broadcast-tree level");
  add_uint(c, "--save-rate", o.save_rate, 1, 1024, "Words per cycle a PE saves or restores");
  add_output_dir(c, "--out", o.out, "Directory for stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json, plots");
  add_json(c, o.json, "Write the JSON summary (with configuration and provenance) to FILE");
  c->add_flag("--alone", o.alone, "Interference: run every job again alone on its placement and report its latency there");
  c->add_flag("--no-plot", o.no_plot, "Write the CSV and JSON only");
  add_quiet(c, o.quiet);
  add_progress(c, o.progress);
}

struct Outcome {
  nlohmann::json json;
  std::string summary_csv, jobs_csv, switches_csv, util_csv;
  std::vector<std::string> text;  ///< one line per run
  int status = 0;
};

std::unique_ptr<App> make_job_app(const std::string& spec, const Topology& topo, const StreamJob& job,
                                  std::uint64_t packets, double rate, std::uint64_t seed) {
  const std::string name = spec.substr(0, spec.find(':'));
  for (const TrafficEntry& e : TrafficRegistry::available())
    if (e.name == name) {
      TrafficOptions opt;
      opt.rate = rate;
      opt.packets = packets;
      opt.seed = seed + job.id;
      return TrafficRegistry::make(spec, traffic::PeSpace::of_shape({job.pes}), opt);
    }
  return AppRegistry::make(spec, topo);
}

Outcome execute(const StreamOptions& o) {
  std::vector<std::string> known;  // what a job may run: traffic patterns and applications
  for (const TrafficEntry& e : TrafficRegistry::available()) known.push_back(e.name);
  for (const AppEntry& e : AppRegistry::available()) known.push_back(e.name);
  const bool swf = o.jobs.rfind("poisson:", 0) != 0;
  const JobMix mix = parse_job_mix(o.job, o.job_map, known, swf);  // refused before any run
  StreamOptions eo = o;
  eo.engine.cfg.engine = EngineKind::cycle;
  EngineConfig cfg = engine_config(eo.engine);
  cfg.cycles = std::uint64_t{1} << 31;  // the jobs' own ends close the run
  validate(cfg);
  StreamConfig base;
  base.cycles_per_second = parse_real(o.cps, "--cycles-per-second", 0, 1e9, true);
  base.rate = o.rate;
  base.rows = o.rows;
  base.alone = o.alone;
  base.os.slice = o.slice;
  base.os.io_hop_cycles = o.io_hop_cycles;
  base.os.save_words_per_cycle = o.save_rate;
  std::vector<SwitchPolicy> policies;
  for (const std::string& p : o.policies) policies.push_back(policy_by_name(p));
  for (const std::string& s : o.scheds) (void)make_scheduler(s);  // names checked before any run
  std::vector<Output> outputs = dir_outputs(o.out, {"stream.csv", "jobs.csv", "switches.csv", "utilisation.csv", "stream.json"});
  outputs.push_back({"--json", o.json});
  check_distinct_outputs(outputs);
  check_run_memory("os-stream", o.topology, cfg, 0);
  const Topology topo = TopologyRegistry::parse(o.topology);
  check_routing(topo, cfg.routing);
  JobStream stream = job_stream(o.jobs, "--jobs");
  assign_apps(stream, mix, cfg.seed);
  for (const std::string& a : o.allocs) (void)make_allocator(a, topo, cfg.seed);  // names and structure checked first
  if (!o.json.empty() && o.json != "-") check_output_file(o.json, "--json");
  if (!o.out.empty()) {
    prepare_output_dir(o.out, "--out");
    for (const char* f : {"stream.csv", "jobs.csv", "switches.csv", "utilisation.csv", "stream.json"})
      check_output_file(o.out + "/" + f, "--out");
  }
  struct Point {
    std::string alloc, sched, policy;
  };
  std::vector<Point> points;
  for (const std::string& a : o.allocs)
    for (const std::string& s : o.scheds) {
      if (make_scheduler(s)->time_sharing())
        for (SwitchPolicy p : policies) points.push_back({a, s, policy_name(p)});
      else
        points.push_back({a, s, "none"});  // space sharing: no switch
    }
  Outcome out;
  nlohmann::json config = option_config(o.cmd);
  config["threads"] = cfg.threads;
  out.json = provenance(config, cfg.seed, cfg.threads);
  out.json["topology"] = topo.spec();
  out.json["stream"] = {{"source", stream.source}, {"jobs", stream.jobs.size()}};
  out.json["model"] = {{"seed", cfg.seed}, {"buffer_words", cfg.buffer_words},
                       {"packet_words", fmt::format("{}:{}", cfg.packet_words, cfg.packet_spread)},
                       {"link_cycles", link_cycles_text(cfg)}, {"job", o.job}, {"job_map", o.job_map}, {"rate", o.rate},
                       {"cycles_per_second", base.cycles_per_second}, {"slice", o.slice}, {"rows", o.rows},
                       {"io_hop_cycles", o.io_hop_cycles}, {"save_words_per_cycle", o.save_rate},
                       {"bounded_slowdown_tau_cycles", defaults::os_stream::bounded_slowdown_seconds * base.cycles_per_second}};
  out.json["runs"] = nlohmann::json::array();
  using report::csv_row;
  out.summary_csv = csv_row({"alloc", "sched", "policy", "jobs", "makespan", "utilisation", "wait_mean", "response_mean",
                             "slowdown_mean", "bounded_slowdown_mean", "latency_mean", "latency_alone_mean",
                             "foreign_link_packets", "fragmentation_internal", "fragmentation_external",
                             "switches", "switch_cycles_total", "switch_cycles_mean", "packets_saved", "packets_restored",
                             "packet_hops", "lost", "duplicates", "misdelivered", "ok"});
  out.jobs_csv = csv_row({"alloc", "sched", "policy", "job", "pes", "held", "row", "arrival", "start", "end", "work",
                          "wait", "response", "slowdown", "bounded_slowdown", "slices", "delivered", "latency_mean",
                          "latency_alone", "foreign_link_packets", "first_pe", "ok", "app"});
  out.switches_csv = csv_row({"alloc", "sched", "policy", "at", "from_row", "to_row", "cycles", "freeze", "detect",
                              "packets_saved", "words_saved", "packets_restored", "bound"});
  out.util_csv = csv_row({"alloc", "sched", "policy", "cycle", "busy", "held", "placed", "waiting", "blocked"});
  // Progress over every job of every run (a run of a long stream takes minutes): jobs finished,
  // with the rate and ETA, and the run under way.
  const std::size_t J = stream.jobs.size();
  Progress progress("jobs", points.size() * J, o.quiet, o.progress);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& pt = points[i];
    const std::string note = fmt::format("run {}/{}: {} {} {}", i + 1, points.size(), pt.alloc, pt.sched, pt.policy);
    progress.update(i * J, note);
    StreamConfig sc = base;
    sc.on_job_done = [&progress, &note, i, J](std::size_t done, std::size_t) { progress.update(i * J + done, note); };
    sc.allocator = pt.alloc;
    sc.scheduler = pt.sched;
    if (pt.policy != "none") sc.os.policy = policy_by_name(pt.policy);
    const JobAppFactory make = [&](const StreamJob& job, std::uint64_t packets) {
      return make_job_app(job.app.empty() ? o.job : job.app, topo, job, packets, o.rate, cfg.seed);
    };
    const StreamStats st = run_stream(topo, stream, make, cfg, sc);
    nlohmann::json r = st.to_json();
    r["alloc"] = pt.alloc;
    r["sched"] = pt.sched;
    r["policy"] = pt.policy;
    out.json["runs"].push_back(r);
    const auto& sw = r["switches"];
    auto g = [](double x) { return fmt::format("{:.6g}", x); };
    out.summary_csv += csv_row({pt.alloc, pt.sched, pt.policy, std::to_string(st.jobs.size()), std::to_string(st.makespan),
                                g(st.utilisation_mean), g(r["wait_mean"]), g(r["response_mean"]), g(r["slowdown_mean"]),
                                g(r["bounded_slowdown_mean"]), g(r["latency_mean"]), g(r["latency_alone_mean"]),
                                g(r["foreign_link_packets"]), g(st.fragmentation_internal), g(st.fragmentation_external),
                                sw["count"].dump(), sw["cycles_total"].dump(), g(sw["cycles_mean"]),
                                sw["packets_saved"].dump(), sw["packets_restored"].dump(),
                                std::to_string(st.machine.hops), std::to_string(st.machine.lost),
                                std::to_string(st.machine.duplicates), std::to_string(st.misdelivered),
                                st.ok ? "true" : "false"});
    for (const StreamJobResult& j : st.jobs)
      out.jobs_csv += csv_row({pt.alloc, pt.sched, pt.policy, std::to_string(j.job.id), std::to_string(j.job.pes),
                               std::to_string(j.held), std::to_string(j.row), std::to_string(j.arrival),
                               std::to_string(j.start), std::to_string(j.end), std::to_string(j.work), g(j.wait),
                               g(j.response), g(j.slowdown), g(j.bounded_slowdown), std::to_string(j.figures.slices),
                               std::to_string(j.figures.delivered), g(j.figures.latency_mean), g(j.latency_alone),
                               std::to_string(j.figures.foreign_link_packets),
                               j.pes.empty() ? "" : std::to_string(j.pes.front()), j.figures.ok ? "true" : "false",
                               j.job.app});
    for (const SwitchRecord& s : st.switches)
      out.switches_csv += csv_row({pt.alloc, pt.sched, pt.policy, std::to_string(s.at), std::to_string(s.from_slot),
                                   std::to_string(s.to_slot), std::to_string(s.cycles), std::to_string(s.freeze_cycles),
                                   std::to_string(s.detect_cycles), std::to_string(s.packets_saved),
                                   std::to_string(s.words_saved), std::to_string(s.packets_restored),
                                   std::to_string(s.bound_cycles)});
    for (const UtilisationPoint& u : st.utilisation)
      out.util_csv += csv_row({pt.alloc, pt.sched, pt.policy, std::to_string(u.cycle), std::to_string(u.busy),
                               std::to_string(u.held), std::to_string(u.placed), std::to_string(u.waiting),
                               u.blocked ? "1" : "0"});
    out.text.push_back(fmt::format(
        "{:<10} {:<5} {:<8} {:>10} {:>6.3f} {:>10.0f} {:>9.2f} {:>9.2f} {:>6.3f} {:>6.3f} {:>8} {:>9} {:>4}/{:<4} {}",
        pt.alloc, pt.sched, pt.policy, st.makespan, st.utilisation_mean, r["wait_mean"].get<double>(),
        r["slowdown_mean"].get<double>(), r["bounded_slowdown_mean"].get<double>(), st.fragmentation_internal,
        st.fragmentation_external, st.switches.size(), sw["cycles_total"].get<std::uint64_t>(), st.machine.lost,
        st.machine.duplicates, st.ok ? "yes" : "NO"));
    if (st.machine.deadlock) {
      std::fprintf(stderr, "rica: os-stream: %s %s %s: %s", pt.alloc.c_str(), pt.sched.c_str(), pt.policy.c_str(),
                   st.machine.deadlock_report.c_str());
      out.status = 3;
    } else if (!st.ok && out.status == 0) {
      out.status = 1;
    }
  }
  progress.update(points.size() * J);
  progress.finish();
  return out;
}

int run(const StreamOptions& o) {
  const Outcome out = execute(o);
  if (show_text(o.quiet, o.json)) {
    std::printf("rica os-stream %s: %zu jobs from %s\n", o.topology.c_str(),
                static_cast<std::size_t>(out.json["stream"]["jobs"].get<std::size_t>()), o.jobs.c_str());
    std::printf("%-10s %-5s %-8s %10s %6s %10s %9s %9s %6s %6s %8s %9s %9s %s\n", "alloc", "sched", "policy",
                "makespan", "util", "wait", "slowdown", "bsld", "fragI", "fragE", "switches", "sw cycles",
                "lost/dup", "ok");
    for (const std::string& line : out.text) std::printf("%s\n", line.c_str());
  }
  if (!o.json.empty()) write_json(o.json, out.json);
  if (!o.out.empty()) {
    write_text_file(o.out + "/stream.csv", out.summary_csv, "--out");
    write_text_file(o.out + "/jobs.csv", out.jobs_csv, "--out");
    write_text_file(o.out + "/switches.csv", out.switches_csv, "--out");
    write_text_file(o.out + "/utilisation.csv", out.util_csv, "--out");
    write_text_file(o.out + "/stream.json", out.json.dump(2) + "\n", "--out");
    if (!o.no_plot)
      experiments::run_plot_script("plot_os_stream.py",
                                   {o.out, "--out", o.out, "--title",
                                    fmt::format("rica os-stream {}, {} jobs ({})", o.topology,
                                                out.json["stream"]["jobs"].get<std::size_t>(), o.jobs)});
    if (!o.quiet)
      std::printf("wrote %s/stream.csv, jobs.csv, switches.csv, utilisation.csv, stream.json%s\n", o.out.c_str(),
                  o.no_plot ? "" : ", plots");
  }
  return out.status;
}

}  // namespace

nlohmann::json os_stream_json(const std::vector<std::string>& args) {
  StreamOptions o;
  o.quiet = true;
  std::optional<nlohmann::json> out;
  parse_subcommand(
      "os-stream", args, [&](CLI::App* c) { declare(c, o); },
      [&] {
        if (!o.out.empty() || !o.json.empty())
          throw usage_error("os_stream: --out and --json are the CLI's; the result is returned");
        out.emplace(execute(o).json);
      });
  return std::move(*out);
}

void add_os_stream_command(CLI::App& app, int& status) {
  auto o = std::make_shared<StreamOptions>();
  auto* c = app.add_subcommand("os-stream",
                               "OS-policy workbench: a job stream under allocators, schedulers and switch policies");
  declare(c, *o);
  c->callback([o, &status] {
    dist::require_one_process("rica os-stream");
    status = run(*o);
  });
}

}  // namespace rica::cli
