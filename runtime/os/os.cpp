// Jobs, space sharing and time sharing with drain / flush (rica/os.hpp; docs/os.md).
//
// The OS driver is a CycleHook of the cycle engine. Everything it does runs on the main thread
// between cycles, when the machine is still, except on_switched_out (flush: a packet of a job
// that is switched out reached its destination), which runs on the destination node's task and
// writes only that node's save area. The driver's decisions therefore depend on the machine state
// at cycle boundaries only: runs are deterministic and independent of the thread count.
#include "rica/os.hpp"

#include "rica/partition.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>

#include "../machine/machine.hpp"
#include "os_driver.hpp"

namespace rica {

std::vector<node_t> job_nodes(const Topology& topology, const std::vector<node_t>& pes) {
  // The partition verifier already walks the routes among a PE set and collects what they use.
  const PartitionPlan plan = verify_partitions(topology, {pes});
  std::vector<node_t> out = pes;
  std::vector<std::uint8_t> is_pe(topology.nodes(), 0);
  for (node_t v : pes) is_pe[v] = 1;
  for (node_t v : plan.parts[0].nodes)
    if (!is_pe[v]) out.push_back(v);
  return out;
}

namespace detail {

OsDriver::OsDriver(Machine& m, const OsConfig& os, std::vector<JobResult>& results, OsPlanner& planner)
    : m_(m), view_(m), os_(os), policy_(make_switch_policy(os.policy)), planner_(planner), results_(results) {
  const std::size_t J = m_.job_count();
  nodes_of_.resize(J);
  placed_.assign(J, 0);
  owner_cur_.assign(m_.nodes(), no_job);
  ctx_.resize(J);
  save_.assign(J, std::vector<std::vector<Packet>>(m_.nodes()));
  queue_.assign(J, std::vector<std::vector<Packet>>(m_.nodes()));
  done_.assign(J, 0);
  first_ran_.assign(J, no_cycle);
  in_since_.assign(J, no_cycle);
  ran_.assign(J, 0);
  index_.resize(J);
  // Every node starts with no job; planners start the first ones (start_direct).
  for (node_t v = 0; v < m_.nodes(); ++v) m_.switch_out(v);
}

void OsDriver::place(unsigned j, std::vector<node_t> nodes, std::uint64_t key) {
  RICA_ASSERT(std::find(running_.begin(), running_.end(), j) == running_.end(), "place() of a running job");
  JobRt const& job = m_.job(j);
  if (job.placed_later) m_.place_job(j, std::vector<node_t>(nodes.begin(), nodes.begin() + job.size));
  ctx_[j].clear();
  ctx_[j].resize(job.size);
  for (node_t l = 0; l < job.size; ++l)
    ctx_[j][l].rng = Rng(mix64(m_.config().seed * 0x9e3779b97f4a7c15ULL + job.global(l)) + key * 0x5851f42d4c957f2dULL);
  index_[j].assign(m_.nodes(), ~0u);
  for (std::size_t i = 0; i < nodes.size(); ++i) index_[j][nodes[i]] = static_cast<std::uint32_t>(i);
  nodes_of_[j] = std::move(nodes);
  placed_[j] = 1;
}

void OsDriver::release(unsigned j) {
  RICA_ASSERT(done_[j] && !switching_ && std::find(running_.begin(), running_.end(), j) == running_.end(),
              "release of a job that has not finished, runs, or during a switch");
  for (node_t v = 0; v < m_.nodes(); ++v)
    RICA_ASSERT(save_[j][v].empty() && queue_[j][v].empty() && owner_cur_[v] != j, "release: the job still holds a node");
  placed_[j] = 0;
  done_[j] = 0;
  first_ran_[j] = no_cycle;
  in_since_[j] = no_cycle;
  ran_[j] = 0;
  nodes_of_[j].clear();
  index_[j].clear();
  ctx_[j].clear();
  results_[j] = JobResult{};
}

void OsDriver::start_direct(unsigned j, std::uint64_t now) {
  RICA_ASSERT(placed_[j] && !switching_, "start_direct of a job not placed, or during a switch");
  const JobRt& job = m_.job(j);
  for (node_t l = 0; l < job.size; ++l)
    RICA_ASSERT(m_.job_at(job.global(l)) == no_job, "start_direct on a PE that runs a job");
  // Routers of open partitions may be in several jobs' node sets: the last started owns them
  // (they are switched only under time sharing, which needs closed partitions).
  for (node_t v : nodes_of_[j]) {
    owner_cur_[v] = static_cast<std::uint8_t>(j);
    // After a switch, free nodes may be of different epochs: the job's nodes join the current one
    // (they hold nothing). Before any switch every node is in epoch 0 and none is halted.
    if (switch_id_) m_.resume(v, switch_id_);
  }
  for (node_t l = 0; l < job.size; ++l)
    m_.switch_in(job.global(l), static_cast<std::uint8_t>(j), std::move(ctx_[j][l]), now);
  running_.push_back(j);
  ++results_[j].slices;
  first_ran_[j] = std::min(first_ran_[j], now);
  in_since_[j] = now;
}

void OsDriver::stop_direct(unsigned j) {
  RICA_ASSERT(done_[j] && !switching_, "stop_direct of a job that has not finished, or during a switch");
  for (node_t v : nodes_of_[j]) {
    if (owner_cur_[v] != j) continue;
    owner_cur_[v] = no_job;
    if (m_.job_at(v) == j) {
      const PeAppState st = m_.switch_out(v);
      RICA_ASSERT(st.injq.empty(), "stop_direct: a finished job with packets to send");
    }
  }
  running_.erase(std::remove(running_.begin(), running_.end(), j), running_.end());
}

std::uint64_t OsDriver::held() const {
  std::uint64_t n = 0;
  for (const auto& per_job : save_)
    for (const auto& area : per_job) n += area.size();
  for (const auto& per_job : queue_)
    for (const auto& area : per_job) n += area.size();
  for (std::size_t j = 0; j < ctx_.size(); ++j)
    for (node_t l = 0; l < ctx_[j].size(); ++l)
      if (m_.job_at(m_.job(j).global(l)) != j) n += ctx_[j][l].injq.size();
  return n;
}

bool OsDriver::busy() const {
  if (switching_ || planner_.pending()) return true;
  for (std::size_t j = 0; j < done_.size(); ++j)
    if (placed_[j] && !done_[j]) return true;
  return false;
}

void OsDriver::after_cycle(std::uint64_t cycle) {
  const std::uint64_t now = cycle + 1;  // the state is that at the start of cycle `now`
  update_done(now);
  if (switching_) {
    advance_switch(now);
    return;
  }
  planner_.step(*this, now);
}

/// A job is done when none of its PEs generates or holds a send, none of its packets is in the
/// network (entered == left, summed over its nodes), none is saved, and none waits in a switch
/// node's source queue (a drained packet restored there has left the network and not re-entered
/// it: missing this lost packets on indirect networks, which have switch nodes).
void OsDriver::update_done(std::uint64_t now) {
  for (std::size_t j = 0; j < done_.size(); ++j) {
    if (done_[j] || !placed_[j]) continue;
    const JobRt& job = m_.job(j);
    bool idle = true;
    for (node_t l = 0; l < job.size && idle; ++l) {
      const node_t v = job.global(l);
      if (m_.job_at(v) == j) {
        idle = m_.pe_idle(v);
      } else {
        const PeAppState& c = ctx_[j][l];
        idle = c.started && !c.generating && c.injq.empty();
      }
    }
    if (!idle) continue;
    std::uint64_t in = 0, out = 0;
    for (node_t v : nodes_of_[j]) {
      in += m_.net_in(j, v);
      out += m_.net_out(j, v);
      if (!save_[j][v].empty() || !queue_[j][v].empty()) idle = false;
      // A router of j's (a switch, or another job's PE its routes cross) re-injects what it
      // restored from its source queue: those packets are j's, not the node's own.
      if ((v >= m_.pes() || job.local(v) == no_node) && m_.job_at(v) == j && m_.source_queue(v)) idle = false;
    }
    if (!idle || in != out) continue;
    done_[j] = 1;
    finished_now_.push_back(static_cast<unsigned>(j));
    results_[j].completion_cycle = now;
    leave(static_cast<unsigned>(j), now);
  }
}

void OsDriver::owners_of(const std::vector<unsigned>& set, std::vector<std::uint8_t>& owner) const {
  owner.assign(m_.nodes(), no_job);
  for (unsigned j : set)
    for (node_t v : nodes_of_[j]) owner[v] = static_cast<std::uint8_t>(j);
}

void OsDriver::begin_switch(std::uint64_t now, std::vector<unsigned> next, unsigned from_slot, unsigned to_slot) {
  switching_ = true;
  ++switch_id_;
  next_ = std::move(next);
  owners_of(next_, owner_next_);
  rec_ = SwitchRecord{};
  rec_.at = now;
  rec_.from_slot = from_slot;
  rec_.to_slot = to_slot;
  sw_.clear();
  ordered_.assign(m_.nodes(), 0);
  outgoing_.clear();
  for (unsigned j : running_)
    if (std::find(next_.begin(), next_.end(), j) == next_.end()) outgoing_.push_back(j);
  for (unsigned j : outgoing_) leave(j, now);  // it ran until the switch began
  for (node_t v = 0; v < m_.nodes(); ++v) {
    const std::uint8_t out = owner_cur_[v], in = owner_next_[v];
    if (out == in) continue;
    NodeSwitch n{v, out, in, 0};
    if (out != no_job) {
      n.depth = tree_depth(index_[out][v]);
      n.order_at = now + std::uint64_t{os_.io_hop_cycles} * n.depth;
    } else {
      n.order_at = now;  // idle until now: only the incoming job's restore
    }
    sw_.push_back(n);
  }
  rec_.bound_cycles = policy_->begin(*this);
  advance_switch(now);
}

/// Takes the outgoing job's application state off node v (its send queue included).
void OsDriver::take_off(unsigned j, node_t v) {
  PeAppState st = m_.switch_out(v);
  if (v < m_.pes() && m_.job(j).local(v) != no_node) {
    ctx_[j][m_.job(j).local(v)] = std::move(st);
  } else {  // a switch: restored packets not yet re-injected (kept aside, as a PE's send queue is)
    queue_[j][v].insert(queue_[j][v].end(), st.injq.begin(), st.injq.end());
  }
}

void OsDriver::advance_switch(std::uint64_t now) {
  policy_->advance(*this, now);
  bool all = true;
  for (NodeSwitch& n : sw_) {
    if (n.phase == NodeSwitch::wait_order && now >= n.order_at) {
      if (n.out != no_job) {
        take_off(n.out, n.v);
        policy_->on_order(*this, n);
      }
      ordered_[n.v] = 1;
      n.phase = NodeSwitch::clearing;
    }
    if (n.phase == NodeSwitch::clearing) {
      std::uint64_t ready_at = now, saved_words = 0, saved_packets = 0;
      if (n.out == no_job) {
        m_.halt(n.v);  // no one may send here before the incoming job is restored
      } else {
        const std::optional<std::uint64_t> r = policy_->clear(*this, n, now, saved_packets, saved_words);
        if (!r) {
          all = false;
          continue;
        }
        ready_at = *r;
      }
      rec_.packets_saved += saved_packets;
      rec_.words_saved += saved_words;
      rec_.peak_node_packets = std::max<std::uint64_t>(rec_.peak_node_packets, saved_packets);
      std::uint64_t pk = 0, wd = 0;
      for (std::size_t j = 0; j < save_.size(); ++j)
        for (const Packet& p : save_[j][n.v]) ++pk, wd += p.words;
      save_peak_packets = std::max(save_peak_packets, pk);
      save_peak_words = std::max(save_peak_words, wd);
      std::uint64_t restore_words = 0;
      if (n.in != no_job)
        for (const Packet& p : save_[n.in][n.v]) restore_words += p.words;
      n.resume_at = std::max(ready_at, now) + words_cost(restore_words);
      n.phase = NodeSwitch::restoring;
    }
    if (n.phase == NodeSwitch::restoring && now >= n.resume_at) {
      if (n.in != no_job) {
        // Saved packets first (they were in the network), then restored packets the node had
        // not re-injected yet, then the job's own send queue.
        rec_.packets_restored += save_[n.in][n.v].size();
        m_.requeue(n.v, save_[n.in][n.v], now);
        m_.requeue(n.v, queue_[n.in][n.v], now);
        PeAppState st;
        if (n.v < m_.pes() && m_.job(n.in).local(n.v) != no_node) st = std::move(ctx_[n.in][m_.job(n.in).local(n.v)]);
        m_.switch_in(n.v, n.in, std::move(st), now);
        first_ran_[n.in] = std::min(first_ran_[n.in], now);
      }
      m_.resume(n.v, switch_id_);
      n.phase = NodeSwitch::resumed;
    }
    if (n.phase != NodeSwitch::resumed) all = false;
  }
  if (!all) return;
  rec_.cycles = now - rec_.at;
  switches.push_back(rec_);
  switching_ = false;
  for (unsigned j : next_)  // brought in: it runs from the switch's end (a finished one stays out)
    if (std::find(running_.begin(), running_.end(), j) == running_.end() && !done_[j]) in_since_[j] = now;
  running_ = next_;
  owner_cur_ = owner_next_;
  slot_start_ = now;
  for (unsigned j : running_) ++results_[j].slices;
}

namespace {

/// run_jobs' plan: a fixed cycle of slots, each run for `slice` cycles or until its jobs are done;
/// a slot with no work left is skipped.
class SlotCycle final : public OsPlanner {
 public:
  explicit SlotCycle(std::vector<std::vector<unsigned>> slots, std::uint64_t slice)
      : slots_(std::move(slots)), slice_(slice) {}
  void start(OsDriver& d) {
    for (unsigned j : slots_[0]) d.start_direct(j, 0);
  }
  void step(OsDriver& d, std::uint64_t now) override {
    (void)d.take_finished();
    bool slot_done = true;
    for (unsigned j : slots_[cur_]) slot_done = slot_done && d.finished(j);
    if (now - d.slot_start() < slice_ && !slot_done) return;
    // Next slot with work, in schedule order (may be this one again).
    std::size_t next = cur_;
    for (std::size_t k = 1; k <= slots_.size(); ++k) {
      const std::size_t s = (cur_ + k) % slots_.size();
      bool work = false;
      for (unsigned j : slots_[s]) work = work || !d.finished(j);
      if (work) {
        next = s;
        break;
      }
    }
    if (next == cur_) {
      d.restart_slot(now);
      return;
    }
    const std::size_t from = cur_;
    cur_ = next;
    d.begin_switch(now, slots_[next], static_cast<unsigned>(from), static_cast<unsigned>(next));
  }

 private:
  std::vector<std::vector<unsigned>> slots_;
  std::uint64_t slice_;
  std::size_t cur_ = 0;
};

}  // namespace
}  // namespace detail

OsStats run_jobs(const Topology& topology, std::vector<JobSpec>& jobs, const EngineConfig& cfg, const OsConfig& os,
                 Observers observers) {
  validate(cfg);
  if (jobs.empty()) throw usage_error("os: no jobs");
  if (jobs.size() > 64) throw usage_error(fmt::format("os: {} jobs; at most 64", jobs.size()));
  detail::check_range("os", "slice", os.slice, 1, std::uint64_t{1} << 30);
  detail::check_range("os", "io-hop-cycles", os.io_hop_cycles, 1, 1024);
  detail::check_range("os", "save-words-per-cycle", os.save_words_per_cycle, 1, 1024);
  const node_t n = topology.pes();
  std::vector<std::vector<node_t>> nodes_of;
  std::vector<detail::JobRt> rt(jobs.size());
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    JobSpec& js = jobs[j];
    if (!js.app) throw usage_error(fmt::format("os: job {} has no application", j));
    if (js.pes.empty()) throw usage_error(fmt::format("os: job '{}' has no PEs", js.name));
    rt[j].app = js.app;
    rt[j].size = static_cast<node_t>(js.pes.size());
    rt[j].global_of = js.pes;
    rt[j].local_of.assign(n, no_node);
    for (node_t l = 0; l < rt[j].size; ++l) {
      const node_t v = js.pes[l];
      if (v >= n) throw usage_error(fmt::format("os: job '{}': PE {} is outside the machine's {} PEs", js.name, v, n));
      if (rt[j].local_of[v] != no_node) throw usage_error(fmt::format("os: job '{}' lists PE {} twice", js.name, v));
      rt[j].local_of[v] = l;
    }
    Machine m(topology, cfg.seed + j, rt[j].size);
    m.set_params(machine_params(cfg));
    js.app->setup(m);
    rt[j].handlers = m.handlers();
    nodes_of.push_back(job_nodes(topology, js.pes));
  }
  std::vector<std::vector<unsigned>> slots = os.slots;
  if (slots.empty()) {
    slots.emplace_back(jobs.size());
    std::iota(slots[0].begin(), slots[0].end(), 0u);
  }
  std::vector<std::uint8_t> scheduled(jobs.size(), 0);
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (slots[s].empty()) throw usage_error(fmt::format("os: slot {} has no job", s));
    std::vector<std::uint8_t> pe_taken(n, 0);
    std::vector<int> node_taken(topology.nodes(), -1);
    for (unsigned j : slots[s]) {
      if (j >= jobs.size()) throw usage_error(fmt::format("os: slot {} names job {}; there are {}", s, j, jobs.size()));
      scheduled[j] = 1;
      for (node_t v : jobs[j].pes) {
        if (pe_taken[v]) throw usage_error(fmt::format("os: slot {}: two jobs on PE {}", s, v));
        pe_taken[v] = 1;
      }
      if (slots.size() == 1) continue;  // space sharing only: open partitions allowed
      for (node_t v : nodes_of[j]) {
        if (node_taken[v] >= 0)
          throw usage_error(fmt::format(
              "os: slot {}: jobs '{}' and '{}' share router {}; time sharing needs closed partitions", s,
              jobs[static_cast<std::size_t>(node_taken[v])].name, jobs[j].name, topology.label(v)));
        node_taken[v] = static_cast<int>(j);
      }
    }
  }
  for (std::size_t j = 0; j < jobs.size(); ++j)
    if (!scheduled[j]) throw usage_error(fmt::format("os: job '{}' is in no slot", jobs[j].name));

  OsStats out;
  out.policy = os.policy;
  out.jobs.resize(jobs.size());
  EngineConfig ccfg = cfg;
  ccfg.engine = EngineKind::cycle;  // the OS layer runs on the virtual clock
  detail::Machine m(topology, std::move(rt), ccfg);
  detail::SlotCycle plan(slots, os.slice);
  detail::OsDriver driver(m, os, out.jobs, plan);
  for (std::size_t j = 0; j < jobs.size(); ++j) driver.place(static_cast<unsigned>(j), nodes_of[j]);
  plan.start(driver);
  m.set_hook(&driver);
  out.machine = detail::run_prepared(m, observers);
  out.switches = driver.switches;
  out.save_peak_packets = driver.save_peak_packets;
  out.save_peak_words = driver.save_peak_words;
  // Per-job figures, link use.
  std::vector<std::uint8_t> home;
  std::map<std::size_t, unsigned> users;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    JobResult& r = out.jobs[j];
    r.name = jobs[j].name;
    r.pes = static_cast<node_t>(jobs[j].pes.size());
    put_job_figures(r, m, j);
    out.misdelivered += r.misdelivered;
    std::string why;
    r.ok = !out.machine.deadlock && jobs[j].app->verify(why);
    r.message = why;
    r.summary = jobs[j].app->summary();
    // Home: the job's PEs and the router-only nodes its routes use; other PEs are foreign.
    home.assign(m.nodes(), 0);
    for (node_t v : nodes_of[j])
      if (v >= m.pes()) home[v] = 1;
    for (node_t v : jobs[j].pes) home[v] = 1;
    topology.visit([&](const auto& t) {
      for (node_t v = 0; v < m.nodes(); ++v)
        for (port_t p = 0; p < m.ports(); ++p) {
          const std::uint64_t c = m.job_link_packets(j, v, p);
          if (!c) continue;
          if (!home[v] || !home[t.out_link(v, p).peer]) r.foreign_link_packets += c;
          ++users[std::size_t{v} * m.ports() + p];
        }
    });
  }
  for (const auto& [link, k] : users)
    if (k > 1) ++out.shared_links;
  for (const SwitchRecord& s : out.switches)
    if (s.bound_cycles && s.cycles > s.bound_cycles) out.bound_ok = false;
  return out;
}

nlohmann::json OsStats::to_json() const {
  nlohmann::json j;
  j["policy"] = policy_name(policy);
  j["switches"] = switches.size();
  detail::put_checks(j, machine, misdelivered);
  j["save_peak_packets"] = save_peak_packets;
  j["save_peak_words"] = save_peak_words;
  j["shared_links"] = shared_links;
  j["bound_ok"] = bound_ok;
  auto stat = [&](auto field) {
    nlohmann::json s;
    if (switches.empty()) return s;
    std::uint64_t sum = 0, mx = 0;
    for (const SwitchRecord& r : switches) sum += field(r), mx = std::max<std::uint64_t>(mx, field(r));
    s["mean"] = static_cast<double>(sum) / static_cast<double>(switches.size());
    s["max"] = mx;
    return s;
  };
  j["switch_cycles"] = stat([](const SwitchRecord& r) { return r.cycles; });
  j["freeze_cycles"] = stat([](const SwitchRecord& r) { return r.freeze_cycles; });
  j["detect_cycles"] = stat([](const SwitchRecord& r) { return r.detect_cycles; });
  j["packets_saved"] = stat([](const SwitchRecord& r) { return r.packets_saved; });
  j["words_saved"] = stat([](const SwitchRecord& r) { return r.words_saved; });
  j["peak_node_packets"] = stat([](const SwitchRecord& r) { return r.peak_node_packets; });
  j["bound_cycles"] = stat([](const SwitchRecord& r) { return r.bound_cycles; });
  j["jobs"] = nlohmann::json::array();
  for (const JobResult& r : jobs)
    j["jobs"].push_back({{"name", r.name}, {"pes", r.pes}, {"delivered", r.delivered}, {"measured", r.measured},
                         {"misdelivered", r.misdelivered}, {"latency_mean", r.latency_mean},
                         {"latency_max", r.latency_max}, {"hops_mean", r.hops_mean},
                         {"completion_cycle", r.completion_cycle}, {"slices", r.slices},
                         {"foreign_link_packets", r.foreign_link_packets}, {"ok", r.ok}, {"message", r.message},
                         {"summary", r.summary}});
  return j;
}

}  // namespace rica
