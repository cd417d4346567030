// rica/request/os_stream.hpp: the checks, the runs and the presenters of `rica os-stream`.
#include "rica/request/os_stream.hpp"
#include "rica/channel_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "os_jobs.hpp"
#include "rica/footprint.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "rica/routing.hpp"
#include "sweep.hpp"

namespace rica::request {

const std::vector<Field<OsStream>>& OsStream::fields() {
  using enum FieldKind;
  static const std::vector<Field<OsStream>> list{
      {{.name = "topology", .kind = text, .help = "Topology spec", .accepted = "a topology spec (see 'rica list')",
        .required = true},
       &OsStream::topology},
      {{.name = "--jobs",
        .kind = text,
        .help = "The job stream: an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S]",
        .accepted = "an SWF file or poisson:jobs=N,rate=R,size=A:B,length=L[,seed=S]",
        .required = true},
       &OsStream::jobs},
      {{.name = "--alloc", .kind = names, .help = "Allocators: {} (comma list; docs/os.md)", .registry = &allocators},
       &OsStream::allocs},
      {{.name = "--sched", .kind = names, .help = "Schedulers: {} (comma list)", .registry = &schedulers},
       &OsStream::scheds},
      {{.name = "--policy", .kind = names, .help = "Switch policies at gang slot boundaries: {} (comma list)",
        .registry = &switch_policies},
       &OsStream::policies},
      {{.name = "--job",
        .kind = text,
        .help = "The jobs' traffic pattern or application (sized to its PEs), or a weighted mix 'SPEC@W;SPEC@W;...' "
                "drawn per job",
        .accepted = "a traffic pattern (uniform, hotspot, ...) or an application spec (see 'rica list'), or "
                    "SPEC@W;SPEC@W;..."},
       &OsStream::job},
      {{.name = "--job-map",
        .kind = text,
        .help = "SWF streams: 'N=SPEC;N=SPEC;...' runs jobs of executable number N (field 14) as SPEC; the others "
                "draw from --job",
        .accepted = "N=SPEC;N=SPEC;... (N an SWF executable number, SPEC as for --job)",
        .may_be_empty = true},
       &OsStream::job_map},
      {{.name = "--rate", .kind = rate}, &OsStream::rate},
      {{.name = "--cycles-per-second", .kind = real, .lo = 0, .hi = 1'000'000'000,
        .help = "Emulated cycles per second of trace time (a job's work)"},
       &OsStream::cycles_per_second},
      {{.name = "--slice", .kind = uint, .lo = 1, .hi = defaults::limits::slice, .help = "Gang: cycles per time slot"},
       &OsStream::slice},
      {{.name = "--rows", .kind = uint, .lo = 1, .hi = max_rows,
        .help = "Gang: rows (time slots) of the Ousterhout matrix at most"},
       &OsStream::rows},
      {{.name = "--io-hop-cycles", .kind = uint, .lo = 1, .hi = Os::max_io_hop_cycles,
        .help = "I/O network: cycles per broadcast-tree level", .place = FieldPlace::after_machine},
       &OsStream::io_hop_cycles},
      {{.name = "--save-rate", .kind = uint, .lo = 1, .hi = Os::max_save_rate,
        .help = "Words per cycle a PE saves or restores", .place = FieldPlace::after_machine},
       &OsStream::save_rate},
      {{.name = "--alone", .kind = flag,
        .help = "Interference: run every job again alone on its placement and report its latency there",
        .place = FieldPlace::after_machine},
       &OsStream::alone},
  };
  return list;
}

namespace {

/// One run of the cross product: an allocator, a scheduler and its switch policy ("none").
struct Point {
  std::string alloc, sched, policy;
};

/// Everything validate() works out, in the order the CLI always checked it; run() uses it.
struct Checked {
  EngineConfig cfg;
  std::vector<SwitchPolicy> policies;
  Topology topology;
  JobStream stream;
  std::vector<Point> points;       ///< the runs to make
  std::vector<std::string> skipped;  ///< pairs of the cross product that cannot run, and why
};

Checked check(const OsStream& r) {
  check_fields(r, OsStream::fields(), "os-stream");
  const bool swf = r.jobs.rfind("poisson:", 0) != 0;
  const JobMix mix = parse_job_mix(r.job, r.job_map, experiments::job_names(), swf);  // refused before any run
  (void)parse_uint(std::to_string(r.engine.threads), "--threads", 0, defaults::limits::threads);
  EngineConfig cfg = r.engine;
  cfg.engine = EngineKind::cycle;
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  validate(cfg);
  cfg.cycles = std::uint64_t{1} << 31;  // the jobs' own ends close the run
  validate(cfg);
  std::vector<SwitchPolicy> policies;
  for (const std::string& p : r.policies) policies.push_back(policy_by_name(p));
  for (const std::string& s : r.scheds) (void)make_scheduler(s);  // names checked before any run
  check_run_memory("os-stream", r.topology, cfg, 0);
  Topology topology = TopologyRegistry::parse(r.topology);
  check_routing(topology, cfg.routing);
  JobStream stream = job_stream(r.jobs, "--jobs");
  assign_apps(stream, mix, cfg.seed);
  check_stream(stream, topology, r.cycles_per_second);  // sizes, run and submit times: before any output
  std::vector<Point> points;
  std::vector<std::string> skipped;
  for (const std::string& a : r.allocs) {
    const bool closed = make_allocator(a, topology, cfg.seed)->closed();  // names and structure
    for (const std::string& s : r.scheds) {
      if (!make_scheduler(s)->time_sharing()) {
        points.push_back({a, s, "none"});  // space sharing: no switch
      } else if (!closed) {  // refused alone; in a cross product the other pairs still run
        skipped.push_back(fmt::format("--alloc {} x --sched {}: '{}' places jobs on open partitions; '{}' time-shares "
                                      "and needs closed ones (buddy, first-fit, best-fit)",
                                      a, s, a, s));
      } else {
        for (SwitchPolicy p : policies) points.push_back({a, s, policy_name(p)});
      }
    }
  }
  if (points.empty()) throw usage_error(skipped.size() == 1 ? skipped[0] : "os-stream: no allocator x scheduler pair can run: " + skipped[0]);
  return Checked{cfg, std::move(policies), std::move(topology), std::move(stream), std::move(points), std::move(skipped)};
}

std::string g(double x) { return fmt::format("{:.6g}", x); }

/// A placement as runs of consecutive PE ids in ascending order: "0-5 8 10-11" (jobs.csv; the
/// Gantt chart draws one bar per run, so a scattered placement is never drawn as one block).
std::string placement_text(std::vector<node_t> pes) {
  std::sort(pes.begin(), pes.end());
  std::string s;
  for (std::size_t i = 0; i < pes.size();) {
    std::size_t e = i;
    while (e + 1 < pes.size() && pes[e + 1] == pes[e] + 1) ++e;
    s += (s.empty() ? "" : " ") + (e == i ? std::to_string(pes[i]) : fmt::format("{}-{}", pes[i], pes[e]));
    i = e + 1;
  }
  return s;
}

}  // namespace

void validate(const OsStream& r) { (void)check(r); }

OsStreamOutcome run(const OsStream& r, const OsStreamHooks& hooks) {
  Checked c = check(r);
  const std::vector<Point>& points = c.points;
  OsStreamOutcome out{r, c.topology, c.cfg, c.stream.source, c.stream.jobs.size(), points.size(), {}};
  out.skipped = c.skipped;
  if (hooks.started) hooks.started(out);
  StreamConfig base;
  base.cycles_per_second = r.cycles_per_second;
  base.rate = r.rate;
  base.rows = r.rows;
  base.alone = r.alone;
  base.os.slice = r.slice;
  base.os.io_hop_cycles = r.io_hop_cycles;
  base.os.save_words_per_cycle = r.save_rate;
  const std::size_t J = out.jobs;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point& pt = points[i];
    const std::string note = fmt::format("run {}/{}: {} {} {}", i + 1, points.size(), pt.alloc, pt.sched, pt.policy);
    if (hooks.progress) hooks.progress(i * J, note);
    StreamConfig sc = base;
    if (hooks.progress)
      sc.on_job_done = [&hooks, &note, i, J](std::size_t done, std::size_t) { hooks.progress(i * J + done, note); };
    sc.allocator = pt.alloc;
    sc.scheduler = pt.sched;
    if (pt.policy != "none") sc.os.policy = policy_by_name(pt.policy);
    const JobAppFactory make = [&](const StreamJob& job, std::uint64_t packets) {
      return experiments::make_job(job.app.empty() ? r.job : job.app, c.topology, {job.pes}, r.rate, packets,
                                   c.cfg.seed + job.id);
    };
    OsStreamOutcome::Run run{pt.alloc, pt.sched, pt.policy, run_stream(c.topology, c.stream, make, c.cfg, sc), {}};
    run.json = run.stats.to_json();
    run.json["alloc"] = pt.alloc;
    run.json["sched"] = pt.sched;
    run.json["policy"] = pt.policy;
    out.runs.push_back(std::move(run));
    if (hooks.ran) hooks.ran(out.runs.back());
  }
  if (hooks.progress) hooks.progress(points.size() * J, "");
  return out;
}

nlohmann::json OsStreamOutcome::to_json() const {
  nlohmann::json j;
  j["topology"] = topology.spec();
  j["stream"] = {{"source", source}, {"jobs", jobs}};
  j["model"] = {{"seed", engine.seed},
                {"buffer_words", engine.buffer_words},
                {"packet_words", fmt::format("{}:{}", engine.packet_words, engine.packet_spread)},
                {"link_cycles", experiments::link_cycles_text(engine)},
                {"link_model", link_model_text(engine)},
                {"job", request.job},
                {"job_map", request.job_map},
                {"rate", request.rate},
                {"cycles_per_second", request.cycles_per_second},
                {"slice", request.slice},
                {"rows", request.rows},
                {"io_hop_cycles", request.io_hop_cycles},
                {"save_words_per_cycle", request.save_rate},
                {"bounded_slowdown_tau_cycles",
                 defaults::os_stream::bounded_slowdown_seconds * request.cycles_per_second}};
  j["runs"] = nlohmann::json::array();
  for (const Run& r : runs) j["runs"].push_back(r.json);
  if (!skipped.empty()) j["skipped"] = skipped;
  return j;
}

std::string OsStreamOutcome::text() const {
  std::string s = fmt::format("rica os-stream {}: {} jobs from {}\n", request.topology, jobs, request.jobs);
  s += fmt::format("{:<10} {:<5} {:<8} {:>10} {:>6} {:>10} {:>9} {:>9} {:>6} {:>6} {:>8} {:>9} {:>9} {}\n", "alloc",
                   "sched", "policy", "makespan", "util", "wait", "slowdown", "bsld", "fragI", "fragE", "switches",
                   "sw cycles", "lost/dup", "ok");
  for (const Run& run : runs) {
    const StreamStats& st = run.stats;
    const auto& r = run.json;
    s += fmt::format(
        "{:<10} {:<5} {:<8} {:>10} {:>6.3f} {:>10.0f} {:>9.2f} {:>9.2f} {:>6.3f} {:>6.3f} {:>8} {:>9} {:>4}/{:<4} {}\n",
        run.alloc, run.sched, run.policy, st.makespan, st.utilisation_mean, r["wait_mean"].get<double>(),
        r["slowdown_mean"].get<double>(), r["bounded_slowdown_mean"].get<double>(), st.fragmentation_internal,
        st.fragmentation_external, st.switches.size(), r["switches"]["cycles_total"].get<std::uint64_t>(),
        st.machine.lost, st.machine.duplicates, st.ok ? "yes" : "NO");
  }
  return s;
}

std::string OsStreamOutcome::summary_csv() const {
  using report::csv_row;
  std::string s = csv_row({"alloc", "sched", "policy", "jobs", "makespan", "utilisation", "wait_mean", "response_mean",
                           "slowdown_mean", "bounded_slowdown_mean", "latency_mean", "latency_alone_mean",
                           "foreign_link_packets", "fragmentation_internal", "fragmentation_external", "switches",
                           "switch_cycles_total", "switch_cycles_mean", "packets_saved", "packets_restored",
                           "packet_hops", "lost", "duplicates", "misdelivered", "ok"});
  for (const Run& run : runs) {
    const StreamStats& st = run.stats;
    const auto& r = run.json;
    const auto& sw = r["switches"];
    s += csv_row({run.alloc, run.sched, run.policy, std::to_string(st.jobs.size()), std::to_string(st.makespan),
                  g(st.utilisation_mean), g(r["wait_mean"]), g(r["response_mean"]), g(r["slowdown_mean"]),
                  g(r["bounded_slowdown_mean"]), g(r["latency_mean"]), g(r["latency_alone_mean"]),
                  g(r["foreign_link_packets"]), g(st.fragmentation_internal), g(st.fragmentation_external),
                  sw["count"].dump(), sw["cycles_total"].dump(), g(sw["cycles_mean"]), sw["packets_saved"].dump(),
                  sw["packets_restored"].dump(), std::to_string(st.machine.hops), std::to_string(st.machine.lost),
                  std::to_string(st.machine.duplicates), std::to_string(st.misdelivered), st.ok ? "true" : "false"});
  }
  return s;
}

std::string OsStreamOutcome::jobs_csv() const {
  using report::csv_row;
  std::string s = csv_row({"alloc", "sched", "policy", "job", "pes", "held", "row", "arrival", "start", "end", "work",
                           "wait", "response", "slowdown", "bounded_slowdown", "slices", "delivered", "latency_mean",
                           "latency_alone", "foreign_link_packets", "first_pe", "ok", "app", "service",
                           "placement"});
  for (const Run& run : runs)
    for (const StreamJobResult& j : run.stats.jobs)
      s += csv_row({run.alloc, run.sched, run.policy, std::to_string(j.job.id), std::to_string(j.job.pes),
                    std::to_string(j.held), std::to_string(j.row), std::to_string(j.arrival), std::to_string(j.start),
                    std::to_string(j.end), std::to_string(j.work), g(j.wait), g(j.response), g(j.slowdown),
                    g(j.bounded_slowdown), std::to_string(j.figures.slices), std::to_string(j.figures.delivered),
                    g(j.figures.latency_mean), g(j.latency_alone), std::to_string(j.figures.foreign_link_packets),
                    j.pes.empty() ? "" : std::to_string(j.pes.front()), j.figures.ok ? "true" : "false", j.job.app,
                    std::to_string(j.service), placement_text(j.pes)});
  return s;
}

std::string OsStreamOutcome::switches_csv() const {
  using report::csv_row;
  std::string s = csv_row({"alloc", "sched", "policy", "at", "from_row", "to_row", "cycles", "freeze", "detect",
                           "packets_saved", "words_saved", "packets_restored", "bound"});
  for (const Run& run : runs)
    for (const SwitchRecord& w : run.stats.switches)
      s += csv_row({run.alloc, run.sched, run.policy, std::to_string(w.at), std::to_string(w.from_slot),
                    std::to_string(w.to_slot), std::to_string(w.cycles), std::to_string(w.freeze_cycles),
                    std::to_string(w.detect_cycles), std::to_string(w.packets_saved), std::to_string(w.words_saved),
                    std::to_string(w.packets_restored), std::to_string(w.bound_cycles)});
  return s;
}

std::string OsStreamOutcome::utilisation_csv() const {
  using report::csv_row;
  std::string s = csv_row({"alloc", "sched", "policy", "cycle", "busy", "held", "placed", "waiting", "blocked"});
  for (const Run& run : runs)
    for (const UtilisationPoint& u : run.stats.utilisation)
      s += csv_row({run.alloc, run.sched, run.policy, std::to_string(u.cycle), std::to_string(u.busy),
                    std::to_string(u.held), std::to_string(u.placed), std::to_string(u.waiting),
                    u.blocked ? "1" : "0"});
  return s;
}

std::string OsStreamOutcome::plot_title() const {
  return fmt::format("rica os-stream {}, {} jobs ({})", request.topology, jobs, request.jobs);
}

std::string OsStreamOutcome::stuck_report(const Run& run) {
  return fmt::format("os-stream: {} {} {}: {}", run.alloc, run.sched, run.policy, run.stats.machine.deadlock_report);
}

int OsStreamOutcome::status(std::string* why) const {
  int status = 0;
  for (const Run& run : runs) {
    const StreamStats& st = run.stats;
    if (st.machine.deadlock) status = 3;
    else if (!st.ok && status == 0) status = 1;
    if (!why || st.ok || st.machine.deadlock) continue;  // a stuck run is reported as it ends (stuck_report)
    std::string what;
    if (!st.machine.conservation_ok || st.machine.lost || st.machine.duplicates)
      what = fmt::format("{} packets lost, {} duplicated", st.machine.lost, st.machine.duplicates);
    else if (st.misdelivered)
      what = fmt::format("{} packets misdelivered", st.misdelivered);
    else
      for (const StreamJobResult& j : st.jobs)
        if (!j.figures.ok) {
          std::size_t failed = 0;
          for (const StreamJobResult& k : st.jobs) failed += !k.figures.ok;
          what = fmt::format("{} of {} jobs failed; first: {} ({}): {}", failed, st.jobs.size(), j.figures.name,
                             j.job.app.empty() ? request.job : j.job.app,
                             j.figures.message.empty() ? "its application's check failed" : j.figures.message);
          break;
        }
    *why += fmt::format("os-stream: {} {} {}: {}\n", run.alloc, run.sched, run.policy, what);
  }
  return status;
}

}  // namespace rica::request
