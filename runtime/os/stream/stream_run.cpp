// One job stream on the cycle engine (rica/os_stream.hpp; docs/os.md "Job streams"). The stream
// planner is an OsPlanner of the OS driver (runtime/os/os_driver.hpp): between cycles it takes
// the jobs that finished off their nodes and frees their placements, queues the jobs that
// arrived, asks the scheduler to place jobs, and under time sharing turns the rows of the
// Ousterhout matrix a slice each, every turn a switch with the switch policy. The machine's
// ledger checks every packet of every job exactly once, across every switch, as for any run.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "../os_driver.hpp"
#include "rica/os_stream.hpp"
#include "rica/partition.hpp"

namespace rica {
namespace detail {
namespace {

/// Binds stream job `job` to machine id `id` (the id runs nothing and has no packet anywhere).
using BindFn = std::function<void(unsigned id, unsigned job)>;
/// Takes the figures of stream job `job` off id `id` when the job has finished (before release).
using FoldFn = std::function<void(unsigned id, unsigned job)>;

/// Clocks: the machine's (what the driver's calls take and give) and the stream's (every figure
/// the planner records: arrivals, starts, ends, utilisation points, switch times). They differ by
/// offset_, which grows only when nothing is placed or waiting and the network is empty (every
/// job so far has finished): the idle gap until the next arrival is then skipped in one step, as
/// stepping its empty cycles would leave the machine exactly as it is. A stream whose jobs are
/// 10^8 s apart runs as fast as one whose jobs are adjacent, and the machine's cycles stay within
/// its 32-bit packet stamps however long the stream.
///
/// Job ids: a packet names its job in 8 bits, so a stream of any length runs on at most
/// StreamConfig::job_ids ids at once. A job takes the lowest free id when it is placed and gives
/// it back when it has finished (the driver's done: nothing of it left to send, in the network,
/// saved or queued), after its figures were folded into its own record. Results never depend on
/// which id a job ran under (per-PE generators are seeded by the stream index; jobs that finish
/// in the same cycle are handled in stream order).
class StreamPlanner final : public OsPlanner, public SchedulerContext {
 public:
  StreamPlanner(const Topology& t, const JobStream& s, const StreamConfig& sc, Scheduler& sched, std::uint64_t seed,
                std::vector<StreamJobResult>& out, unsigned ids, BindFn bind, FoldFn fold)
      : topo_(t), sc_(sc), sched_(sched), seed_(seed), out_(out), ts_(sched.time_sharing()), bind_(std::move(bind)),
        fold_(std::move(fold)) {
    const std::size_t J = s.jobs.size();
    arrival_.resize(J);
    for (std::size_t j = 0; j < J; ++j) arrival_[j] = cycles(s.jobs[j].submit);
    max_rows_ = ts_ ? sc.rows : 1;
    job_of_.assign(ids, no_stream_job);
    bound_.assign(ids, no_stream_job);
    for (unsigned i = 0; i < ids && i < J; ++i) bound_[i] = i;  // the machine starts with jobs 0.. on ids 0..
    id_of_.assign(J, no_id);
  }

  static constexpr unsigned no_stream_job = ~0u, no_id = ~0u;
  std::vector<UtilisationPoint> utilisation;
  std::size_t finished = 0;  ///< jobs finished so far
  std::size_t peak_resident = 0;  ///< the most ids in use at once

  /// The id job j ran under last (no_id: never placed).
  unsigned id_of(unsigned j) const { return id_of_[j]; }
  /// The stream job id i carries now (no_stream_job: none).
  unsigned job_on(unsigned i) const { return job_of_[i]; }
  /// Stream cycles minus machine cycles now (grows only while nothing is resident).
  std::uint64_t offset() const { return offset_; }
  /// The driver's switch records (machine cycles) in stream cycles.
  void to_stream_time(std::vector<SwitchRecord>& switches) const {
    std::size_t k = 0;
    for (std::size_t i = 0; i < switches.size(); ++i) {
      while (k + 1 < offsets_.size() && offsets_[k + 1].first <= i) ++k;
      if (!offsets_.empty() && offsets_[k].first <= i) switches[i].at += offsets_[k].second;
    }
  }

  // ---- OsPlanner ----
  bool pending() const override { return next_ < arrival_.size() || !waiting_.empty(); }
  void step(OsDriver& d, std::uint64_t mnow) override {
    d_ = &d;
    mnow_ = mnow;
    const std::uint64_t now = mnow + offset_;
    now_ = now;
    for (unsigned id : d.running()) {
      const unsigned j = job_of_[id];
      if (!started_.count(j)) started_[j] = d.slot_start() + offset_, out_[j].start = d.slot_start() + offset_;
    }
    bool changed = false;
    std::vector<std::pair<unsigned, unsigned>> done;  // (stream job, id), in stream order
    for (unsigned id : d.take_finished()) done.emplace_back(job_of_[id], id);
    std::sort(done.begin(), done.end());
    for (const auto& [j, id] : done) {
      out_[j].end = now;
      out_[j].start = d.first_ran(id) + offset_;  // a job may finish within the switch that brought it in
      out_[j].service = std::max<std::uint64_t>(1, d.ran_cycles(id));
      if (std::find(d.running().begin(), d.running().end(), id) != d.running().end()) d.stop_direct(id);
      const unsigned r = out_[j].row;
      rows_[r]->release(out_[j].pes);
      row_jobs_[r].erase(std::find(row_jobs_[r].begin(), row_jobs_[r].end(), j));
      if (ts_)
        for (node_t v : d.job_nodes_of(id)) row_nodes_[r][v] = 0;
      running_.erase(std::find(running_.begin(), running_.end(), j));
      fold_(id, j);  // its figures into its own record, then the id is free for another job
      d.release(id);
      job_of_[id] = no_stream_job;
      ++finished;
      changed = true;
    }
    if (!done.empty() && sc_.on_job_done) sc_.on_job_done(finished, arrival_.size());
    while (next_ < arrival_.size() && arrival_[next_] <= now) waiting_.push_back(static_cast<unsigned>(next_++)), changed = true;
    if (changed) sched_.schedule(*this);
    if (ts_ && !row_jobs_.empty()) {
      const bool empty = row_jobs_[cur_].empty();
      if (empty || mnow - d.slot_start() >= sc_.os.slice) {
        std::size_t next = cur_;
        for (std::size_t k = 1; k <= row_jobs_.size(); ++k) {
          const std::size_t r = (cur_ + k) % row_jobs_.size();
          if (!row_jobs_[r].empty()) {
            next = r;
            break;
          }
        }
        if (next != cur_) {
          const std::size_t from = cur_;
          cur_ = next;
          std::vector<unsigned> ids;
          for (unsigned j : row_jobs_[next]) ids.push_back(id_of_[j]);
          d.begin_switch(mnow, std::move(ids), static_cast<unsigned>(from), static_cast<unsigned>(next));
          sample(now, true);
          return;
        }
        if (!empty) d.restart_slot(mnow);
      }
    }
    sample(now, false);
    // Nothing resident, nothing waiting, nothing in the network (every job placed so far has
    // finished): the next arrival comes in the next machine cycle, whatever its gap.
    if (running_.empty() && waiting_.empty() && d.running().empty() && next_ < arrival_.size() &&
        arrival_[next_] > now + 1) {
      offset_ += arrival_[next_] - (now + 1);
      offsets_.emplace_back(d.switches.size(), offset_);
    }
  }

  // ---- SchedulerContext ----
  std::uint64_t now() const override { return now_; }
  node_t machine_pes() const override { return topo_.pes(); }
  const std::vector<unsigned>& waiting() const override { return waiting_; }
  const std::vector<unsigned>& running() const override { return running_; }
  node_t size(unsigned job) const override { return out_[job].job.pes; }
  std::uint64_t estimate(unsigned job) const override {
    const StreamJob& j = out_[job].job;
    return std::max<std::uint64_t>(1, cycles(j.requested_time > 0 ? j.requested_time : j.run_time));
  }
  std::uint64_t placed_at(unsigned job) const override { return placed_at_.at(job); }
  node_t held_by(unsigned job) const override { return out_[job].held; }
  const std::vector<node_t>& pes_of(unsigned job) const override { return out_[job].pes; }
  unsigned max_rows() const override { return max_rows_; }
  Allocator& row(unsigned r) override {
    RICA_ASSERT(r < max_rows_, "row beyond max_rows()");
    while (rows_.size() <= r) {
      rows_.push_back(make_allocator(sc_.allocator, topo_, seed_ + rows_.size()));
      row_jobs_.emplace_back();
      row_nodes_.emplace_back(ts_ ? topo_.nodes() : 0, 0);
      held_before_.push_back(0);
    }
    held_before_[r] = rows_[r]->held();
    return *rows_[r];
  }
  bool place(unsigned job, unsigned r, const std::vector<node_t>& pes) override {
    RICA_ASSERT(r < rows_.size() && pes.size() == size(job), "place(): a row not made, or a placement of the wrong size");
    std::vector<node_t> nodes = ts_ ? job_nodes(topo_, pes) : pes;
    if (ts_) {
      for (node_t v : nodes)
        if (row_nodes_[r][v]) return false;
      for (node_t v : nodes) row_nodes_[r][v] = 1;
    }
    // The lowest free id: more resident jobs than ids is the one limit of a stream's length.
    unsigned id = 0;
    while (id < job_of_.size() && job_of_[id] != no_stream_job) ++id;
    if (id == job_of_.size())
      throw usage_error(fmt::format("--jobs: job {} would be the {}th job resident at once (at cycle {}); at most {} "
                                    "(a packet names its job in 8 bits): use fewer, larger jobs or fewer --rows",
                                    out_[job].job.id, job_of_.size() + 1, now_, job_of_.size()));
    if (bound_[id] != job) bind_(id, job), bound_[id] = job;
    job_of_[id] = job;
    id_of_[job] = id;
    std::size_t resident = 0;
    for (unsigned x : job_of_) resident += x != no_stream_job;
    peak_resident = std::max(peak_resident, resident);
    StreamJobResult& o = out_[job];
    o.row = r;
    o.pes = pes;
    o.held = rows_[r]->held() - held_before_[r];
    held_before_[r] = rows_[r]->held();
    placed_at_[job] = now_;
    d_->place(id, std::move(nodes), job);
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), job));
    running_.push_back(job);
    row_jobs_[r].push_back(job);
    if (!ts_ || r == cur_) {
      d_->start_direct(id, mnow_);
      started_[job] = now_;
      o.start = now_;
    }
    return true;
  }

 private:
  std::uint64_t cycles(double seconds) const {
    return static_cast<std::uint64_t>(std::llround(seconds * sc_.cycles_per_second));
  }
  /// A utilisation point when anything changed (`switching`: the running set is halted).
  void sample(std::uint64_t now, bool switching) {
    UtilisationPoint p;
    p.cycle = now;
    if (!switching)
      for (unsigned id : d_->running()) p.busy += size(job_of_[id]);
    for (const auto& a : rows_) p.held += a->held();
    for (unsigned j : running_) p.placed += size(j);
    p.waiting = waiting_.size();
    if (!waiting_.empty() && rows_.size() == max_rows_) {
      const node_t k = size(waiting_.front());
      bool room = false, fits = false;
      for (const auto& a : rows_) room = room || topo_.pes() - a->held() >= k, fits = fits || a->largest_free() >= k;
      p.blocked = room && !fits;
    }
    if (!utilisation.empty()) {
      const UtilisationPoint& q = utilisation.back();
      if (q.busy == p.busy && q.held == p.held && q.placed == p.placed && q.waiting == p.waiting && q.blocked == p.blocked)
        return;
    }
    utilisation.push_back(p);
  }

  const Topology& topo_;
  const StreamConfig& sc_;
  Scheduler& sched_;
  std::uint64_t seed_;
  std::vector<StreamJobResult>& out_;
  bool ts_;
  unsigned max_rows_ = 1;
  OsDriver* d_ = nullptr;
  std::uint64_t now_ = 0;     ///< stream cycles (what the planner records)
  std::uint64_t mnow_ = 0;    ///< machine cycles (what the driver takes)
  std::uint64_t offset_ = 0;  ///< now_ - mnow_
  std::vector<std::pair<std::size_t, std::uint64_t>> offsets_;  ///< (first switch record, offset) per change
  std::vector<std::uint64_t> arrival_;  ///< [job]: cycle of arrival (jobs in submit order)
  std::size_t next_ = 0;                ///< the next job to arrive
  std::vector<unsigned> waiting_, running_;
  std::map<unsigned, std::uint64_t> placed_at_, started_;
  std::vector<std::unique_ptr<Allocator>> rows_;
  std::vector<std::vector<unsigned>> row_jobs_;     ///< [row]: placed, unfinished jobs
  std::vector<std::vector<std::uint8_t>> row_nodes_;  ///< [row][node]: a job of the row uses it (time sharing)
  std::vector<node_t> held_before_;                ///< [row]: held() when row() was last asked for
  std::size_t cur_ = 0;                             ///< the row that runs (or will, after a switch)
  BindFn bind_;
  FoldFn fold_;
  std::vector<unsigned> job_of_;  ///< [id]: the stream job it carries now (no_stream_job: free)
  std::vector<unsigned> bound_;   ///< [id]: the stream job the machine's id is bound to (may be done)
  std::vector<unsigned> id_of_;   ///< [stream job]: its id while placed (and after)
};

}  // namespace
}  // namespace detail

namespace {
/// "FILE:LINE: job N" (SWF) or "job N" (synthetic): where a refused job came from.
std::string job_where(const JobStream& s, const StreamJob& j) {
  return j.line ? fmt::format("{}:{}: job {}", s.source, j.line, j.id) : fmt::format("job {}", j.id);
}
}  // namespace

void check_stream(const JobStream& stream, const Topology& topology, double cycles_per_second) {
  for (const StreamJob& j : stream.jobs) {
    if (j.pes < 1 || j.pes > topology.pes())
      throw usage_error(fmt::format("--jobs: {} asks for {} PEs; {} has {}", job_where(stream, j), j.pes,
                                    topology.spec(), topology.pes()));
    if (!(j.run_time > 0))
      throw usage_error(fmt::format("--jobs: {} has run time {}; it must be > 0", job_where(stream, j), j.run_time));
    if (j.run_time * cycles_per_second > static_cast<double>(defaults::os_stream::max_job_cycles))
      throw usage_error(fmt::format("--jobs: {} runs {:g} s, {:g} cycles at {:g} cycles per second; a job's work is at "
                                    "most 2^30 cycles: lower --cycles-per-second",
                                    job_where(stream, j), j.run_time, j.run_time * cycles_per_second, cycles_per_second));
    if (!(j.submit >= 0) || j.submit * cycles_per_second > defaults::os_stream::max_stream_cycles)
      throw usage_error(fmt::format("--jobs: {} arrives at {:g} s, {:g} cycles at {:g} cycles per second; a stream "
                                    "spans at most 1e18 cycles",
                                    job_where(stream, j), j.submit, j.submit * cycles_per_second, cycles_per_second));
  }
}

StreamStats run_stream(const Topology& topology, const JobStream& stream, const JobAppFactory& make_app,
                       const EngineConfig& cfg, const StreamConfig& sc, Observers observers) {
  validate(cfg);
  const std::size_t J = stream.jobs.size();
  if (J == 0) throw usage_error("--jobs: the stream has no job");
  if (J > defaults::os_stream::max_jobs)
    throw usage_error(fmt::format("--jobs: {} jobs; at most {} per stream", J, defaults::os_stream::max_jobs));
  detail::check_range("os-stream", "job ids", sc.job_ids, 1, defaults::os_stream::max_resident);
  detail::check_range("os-stream", "slice", static_cast<std::int64_t>(std::min<std::uint64_t>(sc.os.slice, 1ULL << 40)), 1,
                      std::int64_t{1} << 30);
  detail::check_range("os-stream", "rows", sc.rows, 1, 64);
  if (!(sc.cycles_per_second > 0) || sc.cycles_per_second > 1e9)
    throw usage_error(fmt::format("--cycles-per-second: {} is out of range (0, 1e9]", sc.cycles_per_second));
  if (!(sc.rate > 0) || sc.rate > 1) throw usage_error(fmt::format("--rate: {} is out of range (0, 1]", sc.rate));
  auto sched = make_scheduler(sc.scheduler);
  {
    auto probe = make_allocator(sc.allocator, topology, cfg.seed);
    if (sched->time_sharing() && !probe->closed())
      throw usage_error(fmt::format("--alloc: '{}' places jobs on open partitions; '{}' time-shares and needs closed "
                                    "ones (buddy, first-fit, best-fit)",
                                    sc.allocator, sc.scheduler));
  }
  check_stream(stream, topology, sc.cycles_per_second);
  StreamStats out;
  out.jobs.resize(J);
  std::vector<std::unique_ptr<App>> apps;
  std::vector<detail::JobRt> proto(J);  // [stream job]: its application as the machine runs it
  std::uint64_t sends = 0;               // per PE, over every job a PE may host (the exactly-once record)
  bool sends_known = true;
  for (std::size_t j = 0; j < J; ++j) {
    StreamJobResult& r = out.jobs[j];
    r.job = stream.jobs[j];
    r.work = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(r.job.run_time * sc.cycles_per_second)));
    const auto packets = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(r.work) * sc.rate)));
    Machine m(topology, cfg.seed + j, r.job.pes);
    m.set_params(machine_params(cfg));
    try {  // a job its application cannot run (a pattern that needs a power of two, ...): named
      apps.push_back(make_app(r.job, packets));
      if (!apps.back()) throw usage_error("no application");
      apps.back()->setup(m);
    } catch (const usage_error& e) {
      throw usage_error(fmt::format("--jobs: {} ({} PEs{}): {}", job_where(stream, r.job), r.job.pes,
                                    r.job.app.empty() ? "" : ", " + r.job.app, e.what()));
    }
    proto[j].app = apps.back().get();
    proto[j].handlers = m.handlers();
    proto[j].size = r.job.pes;
    proto[j].placed_later = true;
    const std::uint64_t k = apps.back()->max_sends_per_pe();
    sends_known = sends_known && k > 0;
    sends += k;
  }
  const unsigned ids = static_cast<unsigned>(std::min<std::size_t>(J, sc.job_ids));
  EngineConfig ccfg = cfg;
  ccfg.engine = EngineKind::cycle;  // the OS layer runs on the virtual clock
  std::vector<JobResult> results(ids);  // [id]: the driver's completion cycle and slices
  detail::Machine m(topology, std::vector<detail::JobRt>(proto.begin(), proto.begin() + ids), ccfg);
  m.reserve_sends(sends_known ? sends : 0);
  // Per job, when it has finished (on its id) or at the end (a job that never finished): the
  // measures, packets, latency, interference (packets over links outside its home: its PEs and
  // the switch nodes its own routes use, as run_jobs counts them).
  std::vector<std::uint8_t> home(m.nodes()), folded(J, 0);
  const detail::StreamPlanner* planner = nullptr;  // set below; fold runs only once it is
  const auto fold = [&](unsigned id, unsigned j) {
    StreamJobResult& r = out.jobs[j];
    JobResult& f = r.figures;
    f = results[id];
    if (f.completion_cycle) f.completion_cycle += planner->offset();  // the stream's clock
    f.name = fmt::format("job {}", r.job.id);
    f.pes = r.job.pes;
    put_job_figures(f, m, id);
    std::string why;
    f.ok = f.completion_cycle > 0 && apps[j]->verify(why);
    f.message = f.completion_cycle > 0 ? why : "never finished";
    f.summary = apps[j]->summary();
    folded[j] = 1;
    if (r.pes.empty()) return;
    std::fill(home.begin(), home.end(), 0);
    for (node_t v : job_nodes(topology, r.pes))
      if (v >= m.pes()) home[v] = 1;  // the switches its routes use; other jobs' PEs are foreign
    for (node_t v : r.pes) home[v] = 1;
    topology.visit([&](const auto& t) {
      for (node_t v = 0; v < m.nodes(); ++v)
        for (port_t p = 0; p < m.ports(); ++p) {
          const std::uint64_t c = m.job_link_packets(id, v, p);
          if (c && (!home[v] || !home[t.out_link(v, p).peer])) f.foreign_link_packets += c;
        }
    });
  };
  const auto bind = [&](unsigned id, unsigned j) { m.rebind_job(id, proto[j]); };
  detail::StreamPlanner plan(topology, stream, sc, *sched, cfg.seed, out.jobs, ids, bind, fold);
  planner = &plan;
  detail::OsDriver driver(m, sc.os, results, plan);
  plan.step(driver, 0);  // the jobs that arrive at cycle 0 start at cycle 0, as in a plain run
  m.set_hook(&driver);
  out.machine = detail::run_prepared(m, observers);
  if (out.machine.cycles_run >= ccfg.cycles)  // the window closed: the jobs' generators stopped early
    throw usage_error(fmt::format("--jobs: the stream keeps the machine busy for more than {} cycles at {} cycles per "
                                  "second (packets stamp cycles in 32 bits); lower --cycles-per-second",
                                  ccfg.cycles, sc.cycles_per_second));
  out.machine.cycles_run += plan.offset();  // the stream's cycles, idle gaps included
  out.switches = driver.switches;
  plan.to_stream_time(out.switches);
  out.utilisation = plan.utilisation;
  out.peak_resident = plan.peak_resident;
  for (unsigned id = 0; id < ids; ++id)  // jobs still on their ids: they never finished
    if (plan.job_on(id) != detail::StreamPlanner::no_stream_job) fold(id, plan.job_on(id));
  const double tau = defaults::os_stream::bounded_slowdown_seconds * sc.cycles_per_second;
  out.ok = !out.machine.deadlock && out.machine.conservation_ok && out.machine.lost == 0 && out.machine.duplicates == 0;
  for (std::size_t j = 0; j < J; ++j) {
    StreamJobResult& r = out.jobs[j];
    JobResult& f = r.figures;
    if (!folded[j]) f.name = fmt::format("job {}", r.job.id), f.pes = r.job.pes, f.message = "never finished", f.ok = false;
    r.arrival = static_cast<std::uint64_t>(std::llround(r.job.submit * sc.cycles_per_second));
    r.end = f.completion_cycle;  // the driver's: a job may finish while a switch is under way
    r.wait = static_cast<double>(r.start) - static_cast<double>(r.arrival);
    r.response = static_cast<double>(r.end) - static_cast<double>(r.arrival);
    if (!folded[j] || !r.figures.completion_cycle) r.service = 0;
    const double service = static_cast<double>(std::max<std::uint64_t>(1, r.service));
    r.slowdown = r.end ? r.response / service : 0;
    r.bounded_slowdown = std::max(1.0, r.response / std::max(static_cast<double>(r.work), tau));
    f.ok = f.ok && !out.machine.deadlock;
    out.misdelivered += f.misdelivered;
    out.ok = out.ok && f.ok;
  }
  out.ok = out.ok && out.misdelivered == 0;
  if (sc.alone)  // interference: each job alone on its own placement, same application and seed
    for (StreamJobResult& r : out.jobs) {
      if (r.pes.empty()) continue;
      auto app = make_app(r.job, std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(static_cast<double>(r.work) * sc.rate))));
      std::vector<JobSpec> one = {{r.figures.name, app.get(), r.pes}};
      const OsStats alone = run_jobs(topology, one, ccfg, OsConfig{});
      r.latency_alone = alone.jobs[0].latency_mean;
    }
  for (const StreamJobResult& r : out.jobs) out.makespan = std::max(out.makespan, r.end);
  // Time means over the makespan of the utilisation step function.
  double busy = 0, frag = 0, blocked = 0;
  const double pes = topology.pes();
  for (std::size_t i = 0; i < out.utilisation.size(); ++i) {
    const UtilisationPoint& p = out.utilisation[i];
    const std::uint64_t until = i + 1 < out.utilisation.size() ? out.utilisation[i + 1].cycle : out.makespan;
    if (until <= p.cycle) continue;
    const double dt = static_cast<double>(until - p.cycle);
    busy += dt * p.busy / pes;
    frag += dt * (p.held - p.placed) / pes;
    blocked += p.blocked ? dt : 0;
  }
  if (out.makespan) {
    const double T = static_cast<double>(out.makespan);
    out.utilisation_mean = busy / T;
    out.fragmentation_internal = frag / T;
    out.fragmentation_external = blocked / T;
  }
  return out;
}

nlohmann::json StreamStats::to_json() const {
  nlohmann::json j;
  j["ok"] = ok;
  detail::put_checks(j, machine, misdelivered);
  j["packet_hops"] = machine.hops;
  j["makespan"] = makespan;
  j["peak_resident"] = peak_resident;
  j["utilisation_mean"] = utilisation_mean;
  j["fragmentation_internal"] = fragmentation_internal;
  j["fragmentation_external"] = fragmentation_external;
  auto mean = [&](auto f) {
    double s = 0;
    for (const StreamJobResult& r : jobs) s += f(r);
    return jobs.empty() ? 0.0 : s / static_cast<double>(jobs.size());
  };
  j["wait_mean"] = mean([](const StreamJobResult& r) { return r.wait; });
  j["response_mean"] = mean([](const StreamJobResult& r) { return r.response; });
  j["slowdown_mean"] = mean([](const StreamJobResult& r) { return r.slowdown; });
  j["bounded_slowdown_mean"] = mean([](const StreamJobResult& r) { return r.bounded_slowdown; });
  j["latency_mean"] = mean([](const StreamJobResult& r) { return r.figures.latency_mean; });
  j["latency_alone_mean"] = mean([](const StreamJobResult& r) { return r.latency_alone; });
  j["foreign_link_packets"] = mean([](const StreamJobResult& r) { return static_cast<double>(r.figures.foreign_link_packets); }) *
                              static_cast<double>(jobs.size());
  std::uint64_t cyc = 0, saved = 0, restored = 0, mx = 0;
  for (const SwitchRecord& s : switches) cyc += s.cycles, saved += s.packets_saved, restored += s.packets_restored, mx = std::max(mx, s.cycles);
  j["switches"] = {{"count", switches.size()}, {"cycles_total", cyc}, {"cycles_max", mx},
                   {"cycles_mean", switches.empty() ? 0.0 : static_cast<double>(cyc) / static_cast<double>(switches.size())},
                   {"packets_saved", saved}, {"packets_restored", restored}};
  j["jobs"] = nlohmann::json::array();
  for (const StreamJobResult& r : jobs)
    j["jobs"].push_back({{"id", r.job.id}, {"app", r.job.app}, {"pes", r.job.pes}, {"held", r.held}, {"row", r.row},
                         {"submit", r.job.submit}, {"run_time", r.job.run_time}, {"work", r.work},
                         {"arrival", r.arrival}, {"start", r.start}, {"end", r.end}, {"service", r.service}, {"wait", r.wait},
                         {"response", r.response}, {"slowdown", r.slowdown}, {"bounded_slowdown", r.bounded_slowdown},
                         {"slices", r.figures.slices}, {"delivered", r.figures.delivered},
                         {"latency_mean", r.figures.latency_mean}, {"latency_max", r.figures.latency_max},
                         {"hops_mean", r.figures.hops_mean}, {"foreign_link_packets", r.figures.foreign_link_packets},
                         {"latency_alone", r.latency_alone},
                         {"ok", r.figures.ok}, {"message", r.figures.message}});
  return j;
}

}  // namespace rica
