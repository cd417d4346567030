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

#include "engine_impl.hpp"

namespace rica {

const char* policy_name(SwitchPolicy p) { return p == SwitchPolicy::drain ? "drain" : "flush"; }

SwitchPolicy policy_by_name(const std::string& name) {
  if (name == "drain") return SwitchPolicy::drain;
  if (name == "flush") return SwitchPolicy::flush;
  throw usage_error(fmt::format("os: unknown policy '{}'; valid: drain, flush", name));
}

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
namespace {

/// A job's application state on one PE while the job is switched out there.
struct JobCtx {
  std::vector<Packet> injq;  ///< its send queue (not yet in the network)
  bool started = false, generating = true;
  Rng rng;
};

class OsDriver final : public CycleHook {
 public:
  OsDriver(Engine& e, const OsConfig& os, std::vector<std::vector<node_t>> nodes_of,
           std::vector<std::vector<unsigned>> slots, std::vector<JobResult>& results)
      : e_(e), os_(os), nodes_of_(std::move(nodes_of)), slots_(std::move(slots)), results_(results) {
    const std::size_t J = e_.jobs.size();
    owner_.assign(slots_.size(), std::vector<std::uint8_t>(e_.nodes, no_job));
    for (std::size_t s = 0; s < slots_.size(); ++s)
      for (unsigned j : slots_[s])
        for (node_t v : nodes_of_[j]) owner_[s][v] = static_cast<std::uint8_t>(j);
    ctx_.resize(J);
    save_.assign(J, std::vector<std::vector<Packet>>(e_.nodes));
    queue_.assign(J, std::vector<std::vector<Packet>>(e_.nodes));
    done_.assign(J, 0);
    index_.assign(J, std::vector<std::uint32_t>(e_.nodes, ~0u));
    for (std::size_t j = 0; j < J; ++j) {
      const JobRt& job = e_.jobs[j];
      ctx_[j].resize(job.size);
      for (node_t l = 0; l < job.size; ++l)
        ctx_[j][l].rng = Rng(mix(e_.cfg.seed * 0x9e3779b97f4a7c15ULL + job.global(l)) + j * 0x5851f42d4c957f2dULL);
      for (std::size_t i = 0; i < nodes_of_[j].size(); ++i) index_[j][nodes_of_[j][i]] = static_cast<std::uint32_t>(i);
    }
    // The first slot's jobs start on their PEs; every other PE is idle.
    std::fill(e_.node_job.begin(), e_.node_job.end(), no_job);
    for (unsigned j : slots_[0]) switch_in_pe_state(j);
    for (node_t v = 0; v < e_.pes; ++v)
      if (e_.node_job[v] == no_job) e_.pe[v].generating = false;
    for (unsigned j : slots_[0]) ++results_[j].slices;
    cap_words_ = std::uint64_t{e_.ports} * e_.classes * e_.cfg.buffer_words;
  }

  std::vector<SwitchRecord> switches;
  std::uint64_t save_peak_packets = 0, save_peak_words = 0;

  void on_switched_out(node_t v, const Packet& p) override { save_[p.job][v].push_back(p); }

  bool holding() const override { return switching_; }

  bool busy() const override {
    if (switching_) return true;
    for (std::size_t j = 0; j < done_.size(); ++j)
      if (!done_[j]) return true;
    return false;
  }

  void after_cycle(std::uint64_t cycle) override {
    const std::uint64_t now = cycle + 1;  // the state is that at the start of cycle `now`
    update_done(now);
    if (switching_) {
      advance_switch(now);
      return;
    }
    bool slot_done = true;
    for (unsigned j : slots_[cur_]) slot_done = slot_done && done_[j];
    if (now - slot_start_ < os_.slice && !slot_done) return;
    // Next slot with work, in schedule order (may be this one again).
    std::size_t next = cur_;
    for (std::size_t k = 1; k <= slots_.size(); ++k) {
      const std::size_t s = (cur_ + k) % slots_.size();
      bool work = false;
      for (unsigned j : slots_[s]) work = work || !done_[j];
      if (work) {
        next = s;
        break;
      }
    }
    if (next == cur_) {
      slot_start_ = now;
      return;
    }
    begin_switch(now, next);
  }

 private:
  enum Phase : std::uint8_t { wait_order, freezing, restoring, resumed };
  struct NodeSwitch {
    node_t v;
    std::uint8_t out, in;
    std::uint32_t depth;
    Phase phase = wait_order;
    std::uint64_t order_at = 0, resume_at = 0;
  };
  struct FlushWave {
    unsigned job;
    std::uint32_t depth_max;
    std::uint64_t wave = 0, sum_in = 0, sum_out = 0;
    std::uint64_t detected_at = 0;
    bool detected = false;
  };

  static std::uint32_t tree_depth(std::uint32_t index) { return static_cast<std::uint32_t>(std::bit_width(index + 1u)) - 1; }
  std::uint64_t words_cost(std::uint64_t words) const {
    return (words + os_.save_words_per_cycle - 1) / os_.save_words_per_cycle;
  }

  /// Job j takes its PEs: its saved application state moves into the PE states.
  void switch_in_pe_state(unsigned j) {
    const JobRt& job = e_.jobs[j];
    for (node_t l = 0; l < job.size; ++l) restore_pe(j, job.global(l), e_.cycle);
  }
  void restore_pe(unsigned j, node_t v, std::uint64_t now) {
    PeState& s = e_.pe[v];
    e_.node_job[v] = static_cast<std::uint8_t>(j);
    if (v >= e_.pes) return;
    JobCtx& c = ctx_[j][e_.jobs[j].local(v)];
    s.started = c.started;
    s.generating = c.generating;
    s.rng = c.rng;
    for (Packet& p : c.injq) {
      p.ready = static_cast<std::uint32_t>(now);
      s.injq.push_back(p);
    }
    c.injq.clear();
  }
  /// Job j leaves PE v: its application state (send queue included) moves to the job's context.
  void save_pe(unsigned j, node_t v) {
    e_.node_job[v] = no_job;
    PeState& s = e_.pe[v];
    if (v >= e_.pes) {  // a switch: its queue holds restored packets not yet re-injected (memory, as a
                        // PE's send queue is: kept aside at no cost, not swept from the router)
      queue_[j][v].insert(queue_[j][v].end(), s.injq.begin() + static_cast<std::ptrdiff_t>(s.injq_head), s.injq.end());
      s.injq.clear();
      s.injq_head = 0;
      return;
    }
    JobCtx& c = ctx_[j][e_.jobs[j].local(v)];
    c.started = s.started;
    c.generating = s.generating;
    c.rng = s.rng;
    c.injq.assign(s.injq.begin() + static_cast<std::ptrdiff_t>(s.injq_head), s.injq.end());
    s.injq.clear();
    s.injq_head = 0;
    s.generating = false;
    s.started = false;
  }

  /// A job is done when none of its PEs generates or holds a send, none of its packets is in the
  /// network (entered == left, summed over its nodes) and none is saved.
  void update_done(std::uint64_t now) {
    for (std::size_t j = 0; j < done_.size(); ++j) {
      if (done_[j]) continue;
      const JobRt& job = e_.jobs[j];
      bool idle = true;
      for (node_t l = 0; l < job.size && idle; ++l) {
        const node_t v = job.global(l);
        if (e_.node_job[v] == j) {
          const PeState& s = e_.pe[v];
          idle = s.started && !s.generating && s.injq_head == s.injq.size();
        } else {
          const JobCtx& c = ctx_[j][l];
          idle = c.started && !c.generating && c.injq.empty();
        }
      }
      if (!idle) continue;
      std::uint64_t in = 0, out = 0;
      for (node_t v : nodes_of_[j]) {
        in += e_.net_in[j * e_.nodes + v];
        out += e_.net_out[j * e_.nodes + v];
        if (!save_[j][v].empty() || !queue_[j][v].empty()) idle = false;
      }
      if (!idle || in != out) continue;
      done_[j] = 1;
      results_[j].completion_cycle = now;
    }
  }

  void begin_switch(std::uint64_t now, std::size_t next) {
    switching_ = true;
    ++switch_id_;
    next_ = next;
    rec_ = SwitchRecord{};
    rec_.at = now;
    rec_.from_slot = static_cast<unsigned>(cur_);
    rec_.to_slot = static_cast<unsigned>(next);
    sw_.clear();
    waves_.clear();
    ordered_.assign(e_.nodes, 0);
    std::uint32_t depth_max = 0;
    for (node_t v = 0; v < e_.nodes; ++v) {
      const std::uint8_t out = owner_[cur_][v], in = owner_[next][v];
      if (out == in) continue;
      NodeSwitch n{v, out, in, 0};
      if (out != no_job) {
        n.depth = tree_depth(index_[out][v]);
        n.order_at = now + std::uint64_t{os_.io_hop_cycles} * n.depth;
      } else {
        n.order_at = now;  // idle until now: only the incoming job's restore
      }
      depth_max = std::max(depth_max, n.depth);
      sw_.push_back(n);
    }
    for (unsigned j : slots_[cur_])
      if (std::find(slots_[next].begin(), slots_[next].end(), j) == slots_[next].end())
        waves_.push_back(FlushWave{j, 0});
    for (FlushWave& w : waves_)
      for (std::size_t i = 0; i < nodes_of_[w.job].size(); ++i)
        w.depth_max = std::max(w.depth_max, tree_depth(static_cast<std::uint32_t>(i)));
    const unsigned max_len = e_.cfg.link_cycles_words ? e_.cfg.packet_words + e_.cfg.packet_spread
                                                      : *std::max_element(e_.link_len.begin(), e_.link_len.end());
    rec_.bound_cycles = std::uint64_t{os_.io_hop_cycles} * depth_max + max_len + 1 + 2 * words_cost(cap_words_);
    advance_switch(now);
  }

  /// Moves every packet out of v's input buffers into the save area of job j (drain). The
  /// producers' credits return at once (the machine is still).
  std::uint64_t sweep(node_t v, unsigned j, std::uint64_t& words) {
    PeState& s = e_.pe[v];
    const std::uint32_t nb = static_cast<std::uint32_t>(e_.ports) * e_.classes;
    std::uint64_t packets = 0;
    for (std::uint32_t i = 0; i < nb; ++i) {
      LinkBuffer& b = s.inputs[i];
      while (!b.empty()) {
        Packet p = b.front();
        b.pop_and_check();
        e_.credits[e_.up_credit[std::size_t{v} * nb + i]].popped_seen += p.words;
        ++e_.net_out[std::size_t{p.job} * e_.nodes + v];  // left the network here
        if (p.job != j) ++foreign_;  // impossible in a closed partition (counted as misdelivered)
        p.cls = 0;                                           // re-injected as a fresh self-route
        save_[p.job][v].push_back(p);
        words += p.words;
        ++packets;
      }
    }
    for (std::uint32_t w = 0; w < e_.mask_words; ++w) s.work[w] = 0;
    return packets;
  }

  /// Drain: v halted, its outputs idle, and every upstream neighbour of the same job halted with
  /// its link to v idle one cycle ago (the freeze signal's delay).
  bool frozen(const NodeSwitch& n, std::uint64_t now) const {
    const node_t v = n.v;
    for (port_t p = 0; p < e_.ports; ++p)
      if (e_.busy_until[std::size_t{v} * e_.ports + p] > now) return false;
    for (port_t q = 0; q < e_.ports; ++q) {
      const node_t u = e_.upstream[std::size_t{v} * e_.ports + q];
      if (u == no_node || owner_[cur_][u] != n.out) continue;
      if (!ordered_[u]) return false;  // u has not frozen its outputs yet
      const std::size_t link = e_.up_credit[(std::size_t{v} * e_.ports + q) * e_.classes] / e_.classes;
      if (e_.busy_until[link] + 1 > now) return false;
    }
    return true;
  }

  void advance_switch(std::uint64_t now) {
    const bool drain = os_.policy == SwitchPolicy::drain;
    // Flush: counting waves of each outgoing job over its I/O tree.
    for (FlushWave& w : waves_) {
      if (w.detected) continue;
      const std::uint64_t period = 2ull * os_.io_hop_cycles * w.depth_max + 1;
      const std::uint64_t start = rec_.at + w.wave * period;
      if (drain || now < start) continue;
      const std::uint64_t rel = now - start;
      if (rel % os_.io_hop_cycles == 0 && rel / os_.io_hop_cycles <= w.depth_max) {
        const std::uint32_t d = static_cast<std::uint32_t>(rel / os_.io_hop_cycles);  // the wave reaches depth d
        const auto& nodes = nodes_of_[w.job];
        for (std::size_t i = (std::size_t{1} << d) - 1; i < nodes.size() && i < (std::size_t{2} << d) - 1; ++i) {
          w.sum_in += e_.net_in[std::size_t{w.job} * e_.nodes + nodes[i]];
          w.sum_out += e_.net_out[std::size_t{w.job} * e_.nodes + nodes[i]];
        }
      }
      if (rel == period - 1) {  // the convergecast is back at the root
        ++w.wave;
        if (w.sum_in == w.sum_out) {
          w.detected = true;
          w.detected_at = now;
          rec_.waves = std::max(rec_.waves, w.wave);
          rec_.detect_cycles = std::max(rec_.detect_cycles, now - rec_.at);
        }
        w.sum_in = w.sum_out = 0;
      }
    }
    bool all = true;
    for (NodeSwitch& n : sw_) {
      if (n.phase == wait_order && now >= n.order_at) {
        if (n.out != no_job) {
          save_pe(n.out, n.v);
          if (drain) e_.halted[n.v] = 1;
        }
        ordered_[n.v] = 1;
        n.phase = freezing;
      }
      if (n.phase == freezing) {
        std::uint64_t ready_at = now, saved_words = 0, saved_packets = 0;
        if (n.out == no_job) {
          e_.halted[n.v] = 1;  // no one may send here before the incoming job is restored
        } else if (drain) {
          if (!frozen(n, now)) {
            all = false;
            continue;
          }
          rec_.freeze_cycles = std::max(rec_.freeze_cycles, now - rec_.at);
          saved_packets = sweep(n.v, n.out, saved_words);
          ready_at = now + words_cost(saved_words);
        } else {
          const FlushWave* w = nullptr;
          for (const FlushWave& f : waves_)
            if (f.job == n.out) w = &f;
          if (!w || !w->detected) {
            all = false;
            continue;
          }
          e_.halted[n.v] = 1;
          ready_at = w->detected_at + std::uint64_t{os_.io_hop_cycles} * n.depth;  // the go order
          saved_packets = save_[n.out][n.v].size();
          for (const Packet& p : save_[n.out][n.v]) saved_words += p.words;
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
        n.phase = restoring;
      }
      if (n.phase == restoring && now >= n.resume_at) {
        if (n.in != no_job) {
          // Saved packets first (they were in the network), then the job's send queue.
          PeState& s = e_.pe[n.v];
          std::vector<Packet> queued(s.injq.begin() + static_cast<std::ptrdiff_t>(s.injq_head), s.injq.end());
          s.injq.clear();
          s.injq_head = 0;
          for (Packet& p : save_[n.in][n.v]) {
            p.ready = static_cast<std::uint32_t>(now);
            s.injq.push_back(p);
            ++rec_.packets_restored;
          }
          save_[n.in][n.v].clear();
          for (Packet& p : queue_[n.in][n.v]) {
            p.ready = static_cast<std::uint32_t>(now);
            s.injq.push_back(p);
          }
          queue_[n.in][n.v].clear();
          s.injq.insert(s.injq.end(), queued.begin(), queued.end());
          if (n.v < e_.pes && e_.jobs[n.in].local(n.v) != no_node) restore_pe(n.in, n.v, now);
        }
        e_.halted[n.v] = 0;
        e_.epoch[n.v] = switch_id_;
        n.phase = resumed;
      }
      if (n.phase != resumed) all = false;
    }
    if (!all) return;
    rec_.cycles = now - rec_.at;
    switches.push_back(rec_);
    switching_ = false;
    cur_ = next_;
    slot_start_ = now;
    for (unsigned j : slots_[cur_]) ++results_[j].slices;
  }

  Engine& e_;
  const OsConfig& os_;
  std::vector<std::vector<node_t>> nodes_of_;           // [job]: PEs in local order, then routers
  std::vector<std::vector<unsigned>> slots_;
  std::vector<std::vector<std::uint8_t>> owner_;        // [slot][node]: the job whose node set holds it
  std::vector<std::vector<std::uint32_t>> index_;       // [job][node]: position in nodes_of (I/O tree)
  std::vector<std::vector<JobCtx>> ctx_;                // [job][local PE]
  std::vector<std::vector<std::vector<Packet>>> save_;  // [job][node]: drained / flushed packets
  std::vector<std::vector<std::vector<Packet>>> queue_;  // [job][switch]: restored, not yet re-injected
  std::vector<std::uint8_t> done_;
  std::vector<JobResult>& results_;
  std::uint64_t cap_words_ = 0;
  std::size_t cur_ = 0, next_ = 0;
  std::uint64_t slot_start_ = 0;
  bool switching_ = false;
  std::uint32_t switch_id_ = 0;
  SwitchRecord rec_;
  std::vector<NodeSwitch> sw_;
  std::vector<std::uint8_t> ordered_;  // [node]: the drain order reached it in this switch
  std::vector<FlushWave> waves_;

 public:
  std::uint64_t foreign_ = 0;
};

}  // namespace
}  // namespace detail

OsStats run_jobs(const Topology& topology, std::vector<JobSpec>& jobs, const EngineConfig& cfg, const OsConfig& os) {
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
  detail::Engine e(topology, std::move(rt), cfg);
  e.allocate();
  detail::OsDriver driver(e, os, nodes_of, slots, out.jobs);
  e.hook = &driver;
  out.machine = detail::run_prepared(e, true);
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
    for (const detail::ThreadStats& ts : e.tstats) {
      const auto& f = ts.job[j];
      r.delivered += f.delivered;
      r.measured += f.measured;
      r.misdelivered += f.misdelivered;
      r.latency_mean += static_cast<double>(f.lat_sum);
      r.hops_mean += static_cast<double>(f.hops);
      r.latency_max = std::max(r.latency_max, f.lat_max);
    }
    if (r.measured) {
      r.latency_mean /= static_cast<double>(r.measured);
      r.hops_mean /= static_cast<double>(r.measured);
    }
    out.misdelivered += r.misdelivered;
    std::string why;
    r.ok = !out.machine.deadlock && jobs[j].app->verify(why);
    r.message = why;
    r.summary = jobs[j].app->summary();
    // Home: the job's PEs and the router-only nodes its routes use; other PEs are foreign.
    home.assign(e.nodes, 0);
    for (node_t v : nodes_of[j])
      if (v >= e.pes) home[v] = 1;
    for (node_t v : jobs[j].pes) home[v] = 1;
    topology.visit([&](const auto& t) {
      for (node_t v = 0; v < e.nodes; ++v)
        for (port_t p = 0; p < e.ports; ++p) {
          const std::uint64_t c = e.job_link.empty() ? 0 : e.job_link[(j * e.nodes + v) * e.ports + p];
          if (!c) continue;
          if (!home[v] || !home[t.out_link(v, p).peer]) r.foreign_link_packets += c;
          ++users[std::size_t{v} * e.ports + p];
        }
    });
  }
  for (const auto& [link, k] : users)
    if (k > 1) ++out.shared_links;
  for (const SwitchRecord& s : out.switches)
    if (os.policy == SwitchPolicy::drain && s.cycles > s.bound_cycles) out.bound_ok = false;
  out.misdelivered += driver.foreign_;
  return out;
}

nlohmann::json OsStats::to_json() const {
  nlohmann::json j;
  j["policy"] = policy_name(policy);
  j["switches"] = switches.size();
  j["lost"] = machine.lost;
  j["duplicates"] = machine.duplicates;
  j["misdelivered"] = misdelivered;
  j["conservation_ok"] = machine.conservation_ok;
  j["deadlock"] = machine.deadlock;
  j["cycles_run"] = machine.cycles_run;
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
