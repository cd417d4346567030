// rica/request/os.hpp: the checks, the runs and the presenters of `rica os`.
#include "rica/request/os.hpp"
#include "rica/channel_load.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <thread>

#include "os_jobs.hpp"
#include "rica/faults.hpp"
#include "rica/footprint.hpp"
#include "rica/partition.hpp"
#include "rica/registry.hpp"
#include "rica/report.hpp"
#include "rica/routing.hpp"
#include "sweep.hpp"

namespace rica::request {

const std::vector<Field<Os>>& Os::fields() {
  using enum FieldKind;
  static const std::vector<Field<Os>> list{
      {{.name = "topology", .kind = text, .help = "Topology spec", .accepted = "a topology spec (see 'rica list')",
        .required = true},
       &Os::topology},
      {{.name = "--job",
        .kind = texts,
        .help = "A job: traffic pattern or application spec (repeat; >= 2)",
        .accepted = "a traffic pattern (uniform, hotspot, ...) or an application spec (reduce, sort, stencil; see "
                    "'rica list')"},
       &Os::jobs},
      {{.name = "--policy", .kind = names, .help = "Switch policies: {} (comma list; docs/os.md)",
        .registry = &switch_policies},
       &Os::policies},
      {{.name = "--rate", .kind = rates, .help = "Injection rates of traffic jobs"}, &Os::rates},
      {{.name = "--slice", .kind = uint_list, .lo = 1, .hi = defaults::limits::slice,
        .help = "Slice lengths in cycles (comma list)"},
       &Os::slices},
      {{.name = "--packets", .kind = packets, .help = "Packets per PE of traffic jobs"}, &Os::packets},
      {{.name = "--parts", .kind = uint, .lo = 1, .hi = defaults::limits::parts,
        .help = "Cut the machine into K partitions (rica partition) and time-share one"},
       &Os::parts},
      {{.name = "--dims", .kind = text, .help = "Dimensions to cut, as for rica partition",
        .accepted = "D or D:B, comma separated, e.g. 2:1,1:1", .may_be_empty = true},
       &Os::dims},
      {{.name = "--partition", .kind = uint, .lo = 0, .hi = defaults::limits::parts - 1,
        .help = "Which partition of the --parts/--dims cut to time-share (0 without a cut: the whole machine)"},
       &Os::partition},
      {{.name = "--io-hop-cycles", .kind = uint, .lo = 1, .hi = max_io_hop_cycles,
        .help = "I/O network: cycles per broadcast-tree level", .place = FieldPlace::after_machine},
       &Os::io_hop_cycles},
      {{.name = "--save-rate", .kind = uint, .lo = 1, .hi = max_save_rate,
        .help = "Words per cycle a PE saves or restores", .place = FieldPlace::after_machine},
       &Os::save_rate},
  };
  return list;
}

std::vector<std::string> Os::telemetry_files() const {
  if (!telemetry) return {};
  Telemetry::Options opt;
  opt.jobs = true;
  opt.links = telemetry_links;
  return Telemetry(*telemetry, opt).csv_paths("telemetry_");
}

namespace {

/// Everything validate() works out, in the order the CLI always checked it; run() uses it.
struct Checked {
  std::vector<SwitchPolicy> policies;
  EngineConfig cfg;
  Topology base, topology;
  std::vector<node_t> pes;  ///< the partition time-shared
  Shape shape;              ///< its local shape
  std::string where;
};

Checked check(const Os& r) {
  check_fields(r, Os::fields(), "os");
  if (r.jobs.size() < 2) throw usage_error("--job: give at least 2 jobs to time-share (repeat --job)");
  for (const std::string& job : r.jobs) experiments::check_job_name(job, "--job");  // before the first run
  std::vector<SwitchPolicy> policies;
  for (const std::string& p : r.policies) policies.push_back(policy_by_name(p));
  (void)parse_uint(std::to_string(r.engine.threads), "--threads", 0, defaults::limits::threads);
  if (r.telemetry) (void)parse_uint(std::to_string(*r.telemetry), "--telemetry", 1, defaults::limits::cycles);
  if (r.telemetry_links && !r.telemetry)  // the run request's words
    throw usage_error("--telemetry-links: the per-link table of --telemetry W; give --telemetry W or drop --telemetry-links");
  (void)parse_uint(std::to_string(r.trace_events_packets), "--trace-events-packets", 1,
                   defaults::trace_events::max_packets);
  EngineConfig cfg = r.engine;
  cfg.engine = EngineKind::cycle;  // time sharing runs on the cycle engine
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());
  validate(cfg);
  const bool cut = r.parts > 1 || !r.dims.empty();
  check_run_memory("os", r.topology, cfg, static_cast<double>(r.packets));
  if (cut) (void)check_memory_for("os", r.topology, partition_footprint);
  Topology base = TopologyRegistry::parse(r.topology);
  check_routing(base, cfg.routing);
  // Faults: failed links only, before the run. The jobs need every PE and every packet (their
  // checks and the switch accounting), so failed PEs and failures during the run are refused;
  // partitions are computed on the intact network, so they are refused too.
  std::optional<FaultSpec> faults;
  if (!r.faults.empty()) faults = parse_fault_spec(r.faults);
  if (faults) {
    if (faults->at)
      throw usage_error("--faults: at=CYCLE does not apply to rica os (time-shared jobs need every packet); give "
                        "static faults");
    if (cut)
      throw usage_error("--faults: rica os time-shares the whole machine only with faults; drop --parts/--dims or "
                        "--faults");
  }
  // The partition picked from the cut; without a cut the whole machine is the one partition, 0.
  if (r.partition > 0 && !cut)
    throw usage_error(fmt::format("--partition: {} is out of range [0, 0] (without --parts K or --dims the whole "
                                  "machine is partition 0)",
                                  r.partition));
  Topology topology = faults ? with_faults(base, *faults, cfg.seed) : base;
  if (!failed_nodes(topology).empty())
    throw usage_error("--faults: nodes= / node lines do not apply to rica os (its jobs need every PE); give failed "
                      "links only");
  cfg.cycles = std::uint64_t{1} << 31;  // the jobs' own ends close the run
  validate(cfg);
  std::vector<node_t> pes;
  Shape shape;
  std::string where = "the whole machine";
  if (cut) {
    PartitionRequest req;
    req.parts = r.parts;
    if (!r.dims.empty()) req.dims = parse_dim_cuts(r.dims);
    const PartitionPlan plan = partition(topology, req);
    if (r.partition >= plan.parts.size())
      throw usage_error(fmt::format("--partition: {} is out of range [0, {}] (the cut makes {} partitions)",
                                    r.partition, plan.parts.size() - 1, plan.parts.size()));
    const Partition& p = plan.parts[r.partition];
    if (!p.closed)
      throw usage_error(fmt::format("os: partition {} ({}) is open; time sharing needs a closed partition",
                                    r.partition, p.description));
    pes = p.pes;
    shape = p.shape;
    where = fmt::format("partition {} of {} ({}, {} PEs, closed)", r.partition, plan.parts.size(), p.description,
                        pes.size());
  } else {
    pes.resize(topology.pes());
    for (node_t v = 0; v < topology.pes(); ++v) pes[v] = v;
    shape = topology.shape();
  }
  if (shape.empty() || shape_size(shape) != pes.size()) shape = {static_cast<node_t>(pes.size())};
  return Checked{std::move(policies), cfg,           std::move(base), std::move(topology),
                 std::move(pes),      std::move(shape), std::move(where)};
}

/// printf's formatting, for the console table's columns (its widths and %g are the CLI's).
__attribute__((format(printf, 1, 2))) std::string printf_text(const char* format, ...) {
  va_list args, copy;
  va_start(args, format);
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string s(static_cast<std::size_t>(std::max(n, 0)) + 1, '\0');
  std::vsnprintf(s.data(), s.size(), format, args);
  va_end(args);
  s.resize(static_cast<std::size_t>(std::max(n, 0)));
  return s;
}

/// One run's switch figures, as the table and os.csv show them.
struct SwitchSummary {
  double mean = 0, detect = 0, saved = 0, words = 0;
  std::uint64_t max = 0, freeze = 0, waves = 0, peak = 0, bound = 0;
  bool jobs_ok = true, ok = true;
  double vs_baseline = 0;
};

/// The baseline's completion cycle per rate.
std::map<double, std::uint64_t> baselines(const std::vector<OsOutcome::Run>& runs) {
  std::map<double, std::uint64_t> b;
  for (const OsOutcome::Run& p : runs)
    if (p.slice == 0) b[p.rate] = p.completion;
  return b;
}

SwitchSummary summarise(const OsOutcome::Run& p, std::map<double, std::uint64_t>& baseline) {
  SwitchSummary s;
  const auto& sw = p.stats.switches;
  for (const SwitchRecord& r : sw) {
    s.mean += static_cast<double>(r.cycles);
    s.detect += static_cast<double>(r.detect_cycles);
    s.saved += static_cast<double>(r.packets_saved);
    s.words += static_cast<double>(r.words_saved);
    s.max = std::max(s.max, r.cycles);
    s.freeze = std::max(s.freeze, r.freeze_cycles);
    s.waves = std::max(s.waves, r.waves);
    s.peak = std::max(s.peak, r.peak_node_packets);
    s.bound = std::max(s.bound, r.bound_cycles);
  }
  const double n = sw.empty() ? 1.0 : static_cast<double>(sw.size());
  s.mean /= n, s.detect /= n, s.saved /= n, s.words /= n;
  for (const JobResult& r : p.stats.jobs) s.jobs_ok = s.jobs_ok && r.ok;
  s.vs_baseline =
      baseline[p.rate] ? static_cast<double>(p.completion) / static_cast<double>(baseline[p.rate]) : 0;
  s.ok = s.jobs_ok && p.stats.machine.conservation_ok && p.stats.misdelivered == 0 && p.stats.bound_ok;
  return s;
}

}  // namespace

void validate(const Os& r) { (void)check(r); }

OsOutcome run(const Os& r, const OsHooks& hooks) {
  Checked c = check(r);
  OsOutcome out{r, c.base, c.topology, c.where, c.cfg, {}};
  if (hooks.started) hooks.started(out);
  Telemetry::Options topt;
  topt.jobs = true;
  topt.links = r.telemetry_links;
  auto one = [&](SwitchPolicy policy, double rate, std::uint64_t slice) {
    if (hooks.next) hooks.next(out.runs.size(), fmt::format("{} rate {:g} slice {}", policy_name(policy), rate, slice));
    std::vector<std::unique_ptr<App>> apps;
    std::vector<JobSpec> jobs;
    OsConfig os;
    for (std::size_t j = 0; j < r.jobs.size(); ++j) {
      apps.push_back(experiments::make_job(r.jobs[j], out.topology, c.shape, rate, r.packets, c.cfg.seed + j));
      jobs.push_back({r.jobs[j], apps.back().get(), c.pes});
      os.slots.push_back({static_cast<unsigned>(j)});
    }
    os.policy = policy;
    os.slice = slice ? slice : std::uint64_t{1} << 30;
    os.io_hop_cycles = r.io_hop_cycles;
    os.save_words_per_cycle = r.save_rate;
    auto tel = r.telemetry ? std::make_shared<Telemetry>(*r.telemetry, topt) : nullptr;
    std::vector<Observer*> observers;
    if (tel) observers.push_back(tel.get());
    auto te = r.trace_events ? std::make_shared<TraceEvents>(TraceEvents::Options{r.trace_events_packets, 0, true})
                             : nullptr;
    if (te) observers.push_back(te.get());
    OsOutcome::Run run{policy_name(policy), rate, slice, run_jobs(out.topology, jobs, c.cfg, os, observers), 0, tel, te};
    if (te) te->add_switches(run.stats.switches);
    for (const JobResult& j : run.stats.jobs) run.completion = std::max(run.completion, j.completion_cycle);
    out.runs.push_back(std::move(run));
  };
  for (double rate : r.rates) {
    one(c.policies.front(), rate, 0);  // baseline: the jobs back to back, one switch between them
    out.runs.back().policy = "baseline";
    for (SwitchPolicy policy : c.policies)
      for (std::uint64_t slice : r.slices) one(policy, rate, slice);
  }
  return out;
}

std::string OsOutcome::header() const {
  return printf_text(
      "rica os %s: %zu jobs on %s; seed %llu, buffers %u words, packets %u:%u, link %s, I/O %u cycles/level, save %u "
      "words/cycle\n",
      topology.spec().c_str(), request.jobs.size(), where.c_str(), static_cast<unsigned long long>(engine.seed),
      engine.buffer_words, engine.packet_words, engine.packet_spread,
      experiments::link_cycles_text(engine).c_str(), request.io_hop_cycles, request.save_rate);
}

std::string OsOutcome::table() const {
  std::string s = printf_text("%-8s %5s %6s %8s %9s %7s %7s %7s %6s %9s %7s %9s %11s %7s %s\n", "policy", "rate",
                              "slice", "switches", "mean cyc", "max", "freeze", "detect", "saved", "peak/node", "bound",
                              "complete", "vs baseline", "lost/dup", "ok");
  auto baseline = baselines(runs);
  for (const Run& p : runs) {
    const SwitchSummary w = summarise(p, baseline);
    s += printf_text("%-8s %5.3g %6s %8zu %9.1f %7llu %7llu %7.1f %6.1f %9llu %7llu %9llu %10.3fx %3llu/%-3llu %s\n",
                     p.policy.c_str(), p.rate, p.slice ? std::to_string(p.slice).c_str() : "-",
                     p.stats.switches.size(), w.mean, static_cast<unsigned long long>(w.max),
                     static_cast<unsigned long long>(w.freeze), w.detect, w.saved,
                     static_cast<unsigned long long>(w.peak), static_cast<unsigned long long>(w.bound),
                     static_cast<unsigned long long>(p.completion), w.vs_baseline,
                     static_cast<unsigned long long>(p.stats.machine.lost),
                     static_cast<unsigned long long>(p.stats.machine.duplicates), w.ok ? "yes" : "NO");
  }
  return s;
}

std::string OsOutcome::csv() const {
  std::string s =
      "policy,rate,slice,switches,switch_mean,switch_max,freeze_max,detect_mean,waves_max,saved_mean,saved_words_mean,"
      "peak_node_packets,save_peak_packets,bound,bound_ok,completion,vs_baseline,lost,duplicates,misdelivered,"
      "conservation_ok,jobs_ok\n";
  auto baseline = baselines(runs);
  for (const Run& p : runs) {
    const SwitchSummary w = summarise(p, baseline);
    s += fmt::format("{},{},{},{},{:.3f},{},{},{:.3f},{},{:.3f},{:.3f},{},{},{},{},{},{:.4f},{},{},{},{},{}\n",
                     p.policy, p.rate, p.slice, p.stats.switches.size(), w.mean, w.max, w.freeze, w.detect, w.waves,
                     w.saved, w.words, w.peak, p.stats.save_peak_packets, w.bound, p.stats.bound_ok, p.completion,
                     w.vs_baseline, p.stats.machine.lost, p.stats.machine.duplicates, p.stats.misdelivered,
                     p.stats.machine.conservation_ok, w.jobs_ok);
  }
  return s;
}

std::string OsOutcome::switches_csv() const {
  std::string s = "policy,rate,slice,at,cycles,freeze,detect,waves,packets_saved,words_saved,peak_node_packets,bound\n";
  for (const Run& p : runs)
    for (const SwitchRecord& r : p.stats.switches)
      s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", p.policy, p.rate, p.slice, r.at, r.cycles,
                       r.freeze_cycles, r.detect_cycles, r.waves, r.packets_saved, r.words_saved, r.peak_node_packets,
                       r.bound_cycles);
  return s;
}

std::vector<std::pair<std::string, std::string>> OsOutcome::telemetry_csvs() const {
  std::vector<std::pair<std::string, std::string>> files;
  const std::vector<std::string> names = request.telemetry_files();
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::string text;
    for (const Run& p : runs) {
      const auto tables = p.telemetry->tables();
      text += tables[k].second->csv(
          {{"policy", p.policy}, {"rate", fmt::format("{}", p.rate)}, {"slice", std::to_string(p.slice)}},
          text.empty());
    }
    files.emplace_back(names[k], std::move(text));
  }
  return files;
}

std::vector<std::pair<std::string, const TraceEvents*>> OsOutcome::trace_event_runs() const {
  std::vector<std::pair<std::string, const TraceEvents*>> named;
  for (const Run& p : runs)
    named.emplace_back(p.slice ? fmt::format("{} rate {} slice {}", p.policy, p.rate, p.slice)
                               : fmt::format("baseline (back to back) rate {}", p.rate),
                       p.trace_events.get());
  return named;
}

nlohmann::json OsOutcome::to_json() const {
  nlohmann::json j;
  j["topology"] = base.spec();
  j["faults"] = nlohmann::json{{"spec", request.faults.empty() ? "none" : request.faults}};
  if (const auto* f = std::get_if<FaultyTopology>(&topology.variant()))
    j["faults"].update({{"failed", f->faults_text()}, {"failed_links", f->failed_links().size()},
                        {"rerouting_classes", f->buffer_classes() - f->class_offset()}});
  j["partition"] = where;
  j["jobs"] = request.jobs;
  j["model"] = {{"seed", engine.seed},
                {"threads", engine.threads},
                {"buffer_words", engine.buffer_words},
                {"packet_words", fmt::format("{}:{}", engine.packet_words, engine.packet_spread)},
                {"link_cycles", experiments::link_cycles_text(engine)},
                {"link_model", link_model_text(engine)},
                {"packets", request.packets},
                {"io_hop_cycles", request.io_hop_cycles},
                {"save_words_per_cycle", request.save_rate},
                {"rates", request.rates},
                {"slices", request.slices}};
  j["policies"] = nlohmann::json::object();
  for (const std::string& name : request.policies) {
    std::uint64_t switches = 0, lost = 0, dup = 0, mis = 0, cyc = 0, cmax = 0, saved = 0, detect = 0, peak = 0;
    bool bound_ok = true;
    for (const Run& p : runs) {
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
  for (const Run& p : runs) {
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
  return j;
}

std::string OsOutcome::plot_title() const {
  return fmt::format("rica os {} ({}), {} jobs; {}-word buffers, {} +- {}-word packets, link time {}", topology.spec(),
                     where, request.jobs.size(), engine.buffer_words, engine.packet_words, engine.packet_spread,
                     experiments::link_cycles_text(engine));
}

int OsOutcome::status(std::string* stuck) const {
  // A stuck run is what it is (deadlock or livelock, with its evidence), not an internal error;
  // packets lost, duplicated or misdelivered, or a broken drain bound, are.
  for (const Run& p : runs)
    if (!p.stats.machine.deadlock && !p.stats.machine.conservation_ok)
      throw std::runtime_error(
          fmt::format("os: {} at rate {}, slice {}: packets lost or duplicated", p.policy, p.rate, p.slice));
  for (const Run& p : runs)
    if (p.stats.misdelivered != 0 || !p.stats.bound_ok)
      throw std::runtime_error(fmt::format("os: {} at rate {}, slice {}: {}", p.policy, p.rate, p.slice,
                                           p.stats.misdelivered ? "packets misdelivered"
                                                                : "a switch broke the drain bound"));
  for (const Run& p : runs)
    if (p.stats.machine.deadlock) {
      if (stuck)
        *stuck = printf_text("os: %s at rate %g, slice %s: %s", p.policy.c_str(), p.rate,
                             p.slice ? std::to_string(p.slice).c_str() : "- (baseline)",
                             p.stats.machine.deadlock_report.c_str());
      return 3;
    }
  // Each job's own verdict (its application's check, or "never finished"): a run whose jobs
  // computed a wrong result failed, however well the network carried their packets.
  for (const Run& p : runs)
    for (const JobResult& jr : p.stats.jobs)
      if (!jr.ok) {
        std::size_t failed = 0;
        for (const JobResult& k : p.stats.jobs) failed += !k.ok;
        if (stuck)
          *stuck = fmt::format("os: {} at rate {:g}, slice {}: {} of {} jobs failed verification; first: {} ({} PEs): {}\n",
                               p.policy, p.rate, p.slice ? std::to_string(p.slice) : "- (baseline)", failed,
                               p.stats.jobs.size(), jr.name, jr.pes,
                               jr.message.empty() ? "its application's check failed" : jr.message);
        return 1;
      }
  return 0;
}

}  // namespace rica::request
