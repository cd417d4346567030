#pragma once
// The machine: the emulated nodes' state (link buffers, credits, source queues, counters, the
// exactly-once record) behind a small set of operations, and the one hop kernel. Drivers decide
// only order and timing (runtime/machine/driver_async.cpp: real threads; runtime/machine/driver_cycle.cpp: the
// virtual clock); the OS layer (runtime/os/os.cpp) acts through the public operations only.
// Not API: everything here is in rica::detail and may change. docs/runtime.md has the design.
#include "rica/engine.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <tuple>

#include "rica/assert.hpp"
#include "rica/faults.hpp"
#include "rica/link_buffer.hpp"
#include "rica/observer.hpp"
#include "rica/progress.hpp"
#include "rica/routing.hpp"
#include "ledger.hpp"
#include "node_rows.hpp"
#include "os_state.hpp"
#include "ranks.hpp"
#include "sparse.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define RICA_HAVE_TSC 1
#endif



namespace rica {
namespace detail {

/// Nanoseconds since the run started. Two timestamps per packet (generation, delivery): on x86
/// with an invariant TSC it reads the TSC (a few ns) scaled by a ratio calibrated against
/// steady_clock at start-up; elsewhere it is steady_clock.
class RunClock {
 public:
  void start() {
    t0_ = std::chrono::steady_clock::now();
#ifdef RICA_HAVE_TSC
    unsigned a = 0, b = 0, c = 0, d = 0;
    tsc_ = __get_cpuid(0x80000007, &a, &b, &c, &d) && (d & (1u << 8));  // invariant TSC
    if (tsc_) {
      const auto s0 = std::chrono::steady_clock::now();
      const std::uint64_t k0 = __rdtsc();
      while (std::chrono::steady_clock::now() - s0 < std::chrono::milliseconds(5)) {
      }
      const auto s1 = std::chrono::steady_clock::now();
      const std::uint64_t k1 = __rdtsc();
      ns_per_tick_ = std::chrono::duration<double, std::nano>(s1 - s0).count() / static_cast<double>(k1 - k0);
      t0_ = s1;
      tsc0_ = k1;
    }
#endif
  }
  std::uint64_t now() const noexcept {
#ifdef RICA_HAVE_TSC
    if (tsc_) return static_cast<std::uint64_t>(static_cast<double>(__rdtsc() - tsc0_) * ns_per_tick_);
#endif
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0_).count());
  }
  std::chrono::steady_clock::time_point origin() const noexcept { return t0_; }
  /// Moves the origin `ns` later: the run's time stands still over a stretch of `ns` in which no
  /// node ran (the async driver's stop-the-world windows). Only while no other thread reads it.
  void skip(std::uint64_t ns) {
    t0_ += std::chrono::nanoseconds(ns);
#ifdef RICA_HAVE_TSC
    if (tsc_) tsc0_ += static_cast<std::uint64_t>(static_cast<double>(ns) / ns_per_tick_);
#endif
  }
  /// Moves the origin to now, keeping the calibration (MPI ranks align their clocks after a barrier).
  void rebase() {
    t0_ = std::chrono::steady_clock::now();
#ifdef RICA_HAVE_TSC
    tsc0_ = __rdtsc();
#endif
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  bool tsc_ = false;
  std::uint64_t tsc0_ = 0;
  double ns_per_tick_ = 1.0;
};

/// Everything one PE (or router-only node) owns. Only the PE's own task touches it while the
/// machine runs, except the input LinkBuffers' producer side (upstream tasks) and `delivered_now`
/// (read by the progress monitor). Its credits, work and ready masks and link counters are rows
/// of the machine's tables, found from the node id (Machine::credits(v), work(v); the async
/// engine's ready masks are its own, AsyncCore::ready(v)).
/// Layout: what every step and hop reads or writes fills the first cache line (the state is
/// aligned to it); what a blocked head, a wake-up, a generation, a delivery or the OS needs comes
/// after.
struct alignas(64) PeState {
  LinkBuffer* inputs = nullptr;          // [in_port * classes + class]
  std::vector<Packet> injq;              // injection (source) queue; head at injq_head
  std::size_t injq_head = 0;
  /// Drops the injection queue's head; the storage is reused once the queue empties.
  void pop_injection() noexcept {
    if (++injq_head == injq.size()) {
      injq.clear();
      injq_head = 0;
    }
  }
  /// Injection opportunities to pass without calling the app (Context::skip_opportunities).
  std::uint64_t gen_skip = 0;
  std::uint64_t forwarded = 0;
  std::uint32_t rr = 0;                  // round-robin position over inputs (+ injection queue)
  bool started = false, generating = true;
  /// Cycle engine: asleep since cycle slept_at (idle, generator skipping, not in the active set).
  bool asleep = false;
  // ---- the second line on ----
  alignas(64) std::uint64_t blocked = 0;
  std::uint64_t slept_at = 0;
  std::uint32_t seq = 0;                 // next sequence number of a packet from this PE
  node_t* upstream = nullptr;            // [in_port]: the node feeding that in-port, or no_node
  Rng rng;
  std::uint64_t injected = 0, delivered = 0;
  std::atomic<std::uint64_t> delivered_now{0};  // progress monitor's view
};
static_assert(offsetof(PeState, blocked) == 64, "PeState: a step's and a hop's fields in one cache line");

/// A job as the engine runs it: an application on a set of PEs it numbers 0..size-1.
struct JobRt {
  App* app = nullptr;
  std::vector<Handler> handlers;
  std::vector<node_t> global_of;  ///< local PE -> machine PE; empty: identity (the whole machine)
  std::vector<node_t> local_of;   ///< machine PE -> local PE, no_node if not a member; empty: identity
  node_t size = 0;
  /// Placed by the OS during the run (job streams, rica/os_stream.hpp): global_of / local_of are
  /// set by Machine::place_job before the job first runs, and any PE may host it.
  bool placed_later = false;
  node_t local(node_t g) const noexcept { return local_of.empty() ? g : local_of[g]; }
  node_t global(node_t l) const noexcept { return global_of.empty() ? l : global_of[l]; }
};




/// Saturating 32-bit difference (Packet::queued).
inline std::uint32_t sat32(std::uint64_t x) noexcept {
  return x > 0xffffffffULL ? 0xffffffffU : static_cast<std::uint32_t>(x);
}

/// Where a head packet goes from node v: delivered here, or out of `port` into class `cls` of the
/// peer's input `in` (index into the peer's buffers), with v's credit `out` for that buffer.
struct HopPlan {
  bool delivers = false;
  port_t port = 0;
  class_t cls = 0;
  node_t peer = no_node;
  std::uint32_t in = 0, out = 0;
  std::uint32_t buf = 0;  ///< the peer's input `in` among the machine's buffers (Machine::buffer_at)
};


/// What adaptive selection (Machine::select) may know of the step under way at node v: taken(q)
/// is true when out-port q takes no further packet in it (the cycle engine: an earlier head of
/// this cycle's visit was planned to q, or q's link is still busy). This one knows nothing: the
/// async engine moves each head as soon as it is planned, so its credit view is already current.
struct NoPortTaken {
  static constexpr bool taken(port_t) noexcept { return false; }
};

/// A job's application state on one PE (what a context switch saves and restores).
struct PeAppState {
  std::vector<Packet> injq;  ///< its send queue (not yet in the network)
  bool started = false, generating = true;
  std::uint64_t gen_skip = 0;  ///< opportunities the app already drew for
  Rng rng;
};

class Machine;
/// The drivers (runtime/machine/driver_registry.hpp: each registers itself) decide order and
/// timing and change the machine only through its operations (the hop kernel, the drivers'
/// operations, the OS part's); none is a friend of Machine, and the machine names none of them.

/// Runs an allocated machine to the end with the driver cfg.engine names; collects and verifies
/// every job. `observers` watch it (rica/observer.hpp).
RunStats run_prepared(Machine& m, Observers observers = {});

/// The machine. Invariants, stated once:
///  - conservation: injected == delivered + in buffers + in source queues + held by the OS (saved);
///    net_in/net_out count, per job and node, packets entering / leaving the network there;
///  - a node's buffers, credits, source queue and counters are written only by the task running
///    that node (a node never runs on two threads at once), except the producer side of its
///    input buffers (the upstream node's task) and state the OS writes between cycles;
///  - a packet sits in class cls of in-port p only if the topology's route put it there, so
///    classes stay below classes() and the routing's deadlock freedom carries over;
///  - a packet moves only whole (virtual cut-through): room for all its words downstream.
class Machine {
 public:
  /// rica::wake (rica/wake.hpp): cancels the PE's skipped opportunities (Machine is Context's friend).
  static void wake(Context& ctx) noexcept;
  Machine(const Topology& t, std::vector<JobRt> j, const EngineConfig& c);
  ~Machine();
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  // ---- shape and configuration (immutable) ----
  const Topology& topology() const noexcept { return topo_; }
  const EngineConfig& config() const noexcept { return cfg_; }
  node_t nodes() const noexcept { return nodes_; }
  node_t pes() const noexcept { return pes_; }
  port_t ports() const noexcept { return ports_; }
  class_t classes() const noexcept { return classes_; }
  std::size_t job_count() const noexcept { return jobs_.size(); }
  const JobRt& job(std::size_t j) const noexcept { return jobs_[j]; }
  /// Current time: ns since the start (async) or the current cycle (cycle engine).
  std::uint64_t now() const noexcept { return cycle_mode_ ? cycle_ : clock_.now(); }
  std::uint64_t cycle() const noexcept { return cycle_; }
  /// The cycle engine drives this machine (now() counts cycles).
  bool cycle_mode() const noexcept { return cycle_mode_; }

  // ---- applications (any thread: the node's own task) ----
  /// A packet from PE src to dst joins src's source queue (never fails).
  void send(PeState& s, node_t src, node_t dst, handler_t h, std::uint64_t w0, std::uint64_t w1, std::uint8_t job);

  // ---- OS operations: main thread, between cycles, the machine still ----
  /// The job whose application runs on node v (no_job: none).
  std::uint8_t job_at(node_t v) const noexcept { return os_.job_at(v); }
  /// Job j's application takes PE v: its saved state (send queue, generator) moves in; its
  /// queued packets may leave from cycle `now` on. Switch nodes only change owner.
  void switch_in(node_t v, std::uint8_t j, PeAppState&& st, std::uint64_t now);
  /// Job j (placed_later) takes the machine PEs `pes` (local PE i is pes[i]; distinct, size()
  /// of them). Precondition: j runs on no node.
  void place_job(std::size_t j, const std::vector<node_t>& pes);
  /// Job id j now names another job (job streams recycle ids): `rt` replaces its application,
  /// handlers and size, and the ledger's counters of j start from zero (Ledger::reset_job).
  /// Precondition: j runs on no node, no packet of j waits in a source queue or is in the network
  /// (entered == left summed over the nodes); the caller has read j's figures first.
  void rebind_job(std::size_t j, JobRt rt);
  /// The exactly-once record holds `per_pe` packets from every PE (jobs bound later by
  /// rebind_job send from the same per-PE sequence); before the run. 0 or over 1 GB: checksums.
  void reserve_sends(std::uint64_t per_pe);
  /// The job leaves node v: returns its application state (PEs) and send queue (any node); the
  /// node then runs nothing.
  PeAppState switch_out(node_t v);
  /// A halted node injects, delivers and transmits nothing, and no node sends into it.
  void halt(node_t v) { os_.halt(v); }
  bool halted(node_t v) const noexcept { return os_.halted(v); }
  /// Resumes v in switch epoch `e`: nodes send only to neighbours of their own epoch.
  void resume(node_t v, std::uint32_t e) { os_.resume(v, e); }
  /// Cycle engine: cycles a packet of `words` words occupies one of v's out-links.
  unsigned link_cycles(node_t v, unsigned words) const noexcept { return cfg_.link_cycles_words ? words : link_len_[v]; }
  /// The link buffers exceed the caches (4 MB): the drivers then fetch the nodes they are about
  /// to step ahead in stages (runtime/machine/staged.hpp); below that the stages cost more instructions
  /// than the misses they hide.
  bool buffers_exceed_caches() const noexcept {
    return double(rows_.total) * classes_ * sizeof(LinkBuffer) > 4.0 * (1 << 20);
  }
  /// Cycle engine: the longest a packet occupies any link.
  unsigned max_link_cycles() const noexcept { return max_link_len_; }
  /// Cycle engine: the first cycle at which v's out-link `port` is idle (the cycle driver's).
  std::uint64_t link_free_at(node_t v, port_t port) const noexcept { return os_.link_free_at(v, port); }
  /// The node feeding v's in-port q (no_node: none) and that node's out-port of the link.
  node_t upstream(node_t v, port_t q) const noexcept {
    return q < rows_.width(v) ? upstream_[rows_.row(v) + q] : no_node;
  }
  port_t upstream_port(node_t v, port_t q) const noexcept {
    const std::size_t r = up_credit_[(rows_.row(v) + q) * classes_] / classes_;  // the producer's row
    return static_cast<port_t>(r - rows_.row(rows_.node_of(r)));
  }
  /// Takes every packet out of v's input buffers (credits returned upstream, counted as leaving
  /// the network at v) and hands each to save(p), oldest first per buffer. Returns the count.
  template <class F>
  std::uint64_t sweep(node_t v, F&& save);
  /// Puts packets at the end of v's source queue; they may leave from cycle `now` on and enter
  /// the network afresh (class 0, a new self-route).
  void requeue(node_t v, std::vector<Packet>& packets, std::uint64_t now);
  /// Packets of job j that entered / left the network at node v so far.
  std::uint64_t net_in(std::size_t j, node_t v) const noexcept { return ledger_.net_in(j, v); }
  std::uint64_t net_out(std::size_t j, node_t v) const noexcept { return ledger_.net_out(j, v); }
  /// PE v: started, not generating, nothing in its source queue.
  bool pe_idle(node_t v) const noexcept {
    const PeState& s = pe_[v];
    return s.started && !s.generating && s.injq_head == s.injq.size();
  }
  /// Packets waiting in node v's source queue (a switch node's: restored packets to re-inject).
  std::size_t source_queue(node_t v) const noexcept { return pe_[v].injq.size() - pe_[v].injq_head; }
  /// Per-job figures summed over the threads (after the run).
  ThreadStats::JobFigures job_figures(std::size_t j) const;
  /// Packets of job j over v's out-link `port` (only with more than one job).
  std::uint64_t job_link_packets(std::size_t j, node_t v, port_t port) const noexcept {
    return ledger_.job_link_packets(j, v, port);
  }
  void set_hook(CycleHook* h) noexcept { os_.set_hook(h); }
  bool os_hooked() const noexcept { return os_.hook() != nullptr; }
  /// The OS part (runtime/machine/os_state.hpp): owners, halts, epochs, the hook.
  OsState& os_state() noexcept { return os_; }
  const OsState& os_state() const noexcept { return os_; }

  // ---- the hop kernel (the node's own task) ----
  /// Where the head packet p at v goes next. Inlined into the node step (a call per hop costs
  /// the async engine 4% of its instructions per hop).
  /// `ports`: the step's view of v's out-ports (NoPortTaken), read only by adaptive selection.
  template <class T, class Ports = NoPortTaken>
  __attribute__((always_inline)) HopPlan plan(const T& t, node_t v, const Packet& p,
                                              const Ports& /*ports*/ = {}) const noexcept {
    HopPlan h;
    const Hop hop = t.route(v, p.dst, cfg_.classes ? p.cls : class_t{0});
    if (hop.delivers()) {
      h.delivers = true;
      return h;
    }
    const Link l = t.out_link(v, hop.port());
    h.port = hop.port();
    h.cls = cfg_.classes ? hop.next_class() : class_t{0};
    h.peer = l.peer;
    h.in = static_cast<std::uint32_t>(l.in_port) * classes_ + h.cls;
    h.out = static_cast<std::uint32_t>(h.port) * classes_ + h.cls;
    h.buf = static_cast<std::uint32_t>(buffer_row<T>(l.peer) + h.in);
    RICA_ASSERT(h.cls < classes_, "route chose a class beyond the declared count");
    return h;
  }
  /// Adaptive routing (--routing adaptive): the routing's candidates, then select(). A routing
  /// that sees the packet (PacketRouting: the dragonfly's valiant, ugal-l, ugal-g, par) gives the
  /// hop itself, from the packet, the words waiting downstream of each of v's out-ports and, for
  /// UGAL-G (BoardRouting), the port-load board's words at another node's out-port.
  template <class T, class R, class Ports = NoPortTaken>
  HopPlan plan(const Routed<T, R>& rt, node_t v, const Packet& p, const Ports& ports = {}) const noexcept {
    HopPlan h;
    Hop hop = Hop::deliver();
    if constexpr (PacketRouting<R>) {
      const class_t c = cfg_.classes ? p.cls : class_t{0};
      const auto local = [&](port_t q) { return port_words(v, q); };
      if constexpr (BoardRouting<R>)
        hop = rt.routing.route(v, p, c, local, [&](node_t u, port_t q) { return board_words(u, q); });
      else
        hop = rt.routing.route(v, p, c, local);
      if (hop.delivers()) {
        h.delivers = true;
        return h;
      }
    } else {
      CandidateSet cs;
      rt.routing.candidates(v, p.dst, cfg_.classes ? p.cls : class_t{0}, cs);
      if (cs.escape.delivers()) {
        h.delivers = true;
        return h;
      }
      hop = select(v, p, cs, ports);
    }
    const Link l = rt.topo->out_link(v, hop.port());
    h.port = hop.port();
    h.cls = cfg_.classes ? hop.next_class() : class_t{0};
    h.peer = l.peer;
    h.in = static_cast<std::uint32_t>(l.in_port) * classes_ + h.cls;
    h.out = static_cast<std::uint32_t>(h.port) * classes_ + h.cls;
    h.buf = static_cast<std::uint32_t>(buffer_row<T>(l.peer) + h.in);
    RICA_ASSERT(l.present(), "adaptive routing chose an absent link");
    RICA_ASSERT(h.cls < classes_, "adaptive routing chose a class beyond the declared count");
    return h;
  }
  /// The selection step of adaptive routing at node v: among the candidates whose downstream
  /// buffer has room for p by v's credit view, one whose port is not taken in this step
  /// (ports.taken(q), NoPortTaken) if any, the least occupied of those; ties go to the first in a
  /// cyclic order starting at a seeded hash of (node, packet, hop) — node-local, so the cycle
  /// engine stays identical for any thread count. No candidate with room: the escape hop.
  /// Why the taken ports: the cycle engine plans every head of a node from the credit view at the
  /// start of the cycle and moves at most one packet per port, so by occupancy alone the heads
  /// that could use either of two links all chose the less occupied one and the other idled
  /// (docs/topologies.md, HyperX; tests/test_adaptive_routing.cpp, AcceptsAtLeast...).
  template <class Ports = NoPortTaken>
  Hop select(node_t v, const Packet& p, const CandidateSet& cs, const Ports& ports = {}) const noexcept {
    const unsigned n = cs.size();
    if (n == 0) return cs.escape;
    const unsigned start =
        n == 1 ? 0u : static_cast<unsigned>(mix64(route_seed_ ^ (std::uint64_t{v} << 20) ^ packet_id(p) ^ p.hops) % n);
    // Rank: the words held downstream, plus more than a buffer holds when the port is taken, so
    // any free port with room ranks before every taken one.
    const std::uint32_t taken_rank = cfg_.buffer_words + 1;
    Hop best = cs.escape;
    std::uint32_t best_rank = ~std::uint32_t{0};
    for (unsigned k = 0; k < n; ++k) {
      const Hop h = cs[start + k < n ? start + k : start + k - n];
      const std::uint32_t out = static_cast<std::uint32_t>(h.port()) * classes_ + (cfg_.classes ? h.next_class() : 0u);
      const LinkBuffer::Credit& c = credits_[rows_.row(v) * classes_ + out];
      const std::uint32_t used = c.pushed - c.popped_seen;
      if (used + p.words > cfg_.buffer_words) continue;  // no room by this credit view
      const std::uint32_t rank = used + (n > 1 && ports.taken(h.port()) ? taken_rank : 0u);
      if (rank < best_rank) best_rank = rank, best = h;
    }
    return best;
  }
  /// Words held downstream of v's out-port q, all classes, by v's credit view (UGAL-L's local
  /// queue occupancy).
  std::uint32_t port_words(node_t v, port_t q) const noexcept {
    const LinkBuffer::Credit* c = &credits_[(rows_.row(v) + q) * classes_];
    std::uint32_t used = 0;
    for (class_t k = 0; k < classes_; ++k) used += c[k].pushed - c[k].popped_seen;
    return used;
  }
  /// The port-load board (UGAL-G's "global" queue information; allocated only for a routing
  /// with R::reads_board): per (node, out-port), the words downstream by that node's credit view
  /// as last published. Written only between cycles by the cycle driver (so a cycle reads the
  /// state at its start, identically for any thread count) or by the owning node's own step on
  /// the async engine (relaxed: an approximate, possibly stale view); read by any node's step.
  bool has_board() const noexcept { return board_ != nullptr; }
  std::uint32_t board_words(node_t u, port_t q) const noexcept {
    RICA_ASSERT(board_ && u < nodes_ && q < rows_.width(u), "board_words() without a board or beyond it");
    return board_[rows_.row(u) + q].load(std::memory_order_relaxed);
  }
  /// Publishes port_words(u, q). Cycle engine: between cycles; async: by u's own step only.
  void publish_board(node_t u, port_t q) noexcept {
    board_[rows_.row(u) + q].store(port_words(u, q), std::memory_order_relaxed);
  }
  /// The same for the out-port that credit index ci belongs to (Machine::credit).
  void publish_board_credit(std::uint32_t ci) noexcept {
    const std::size_t r = ci / classes_;
    const node_t u = rows_.node_of(r);
    publish_board(u, static_cast<port_t>(r - rows_.row(u)));
  }
  /// The input buffer `in` of node v.
  LinkBuffer& buffer(node_t v, std::uint32_t in) noexcept { return pe_[v].inputs[in]; }
  /// Node v's rows of the machine's tables (PeState holds none of them: they would cost the
  /// step a second cache line of node state). credits: [out_port * classes + class], producer
  /// side; work: consumer-only, the inputs that may hold packets; ready: inputs that received a
  /// packet since the consumer last looked (set by producers with fetch_or, taken by the consumer
  /// with exchange; a producer that finds its word 0 wakes the PE); link_packets: [out_port].
  LinkBuffer::Credit* credits(node_t v) noexcept { return &credits_[rows_.row(v) * classes_]; }
  std::uint64_t* work(node_t v) noexcept { return &work_words_[std::size_t{v} * mask_words_]; }
  std::uint64_t* link_packets(node_t v) noexcept { return &link_packets_[rows_.row(v)]; }
  const std::uint64_t* link_packets(node_t v) const noexcept { return &link_packets_[rows_.row(v)]; }
  /// The same without reading v's state: every node's inputs are one block of inputs(v) buffers in
  /// node order (allocate(), NodeRows), so a hop reaches the peer's buffer with one cold line, not two.
  LinkBuffer& peer_buffer(node_t v, std::uint32_t in) noexcept { return buffers_->data()[rows_.row(v) * classes_ + in]; }
  /// Buffer b of the machine (HopPlan::buf: a hop's peer input, found by its plan).
  LinkBuffer& buffer_at(std::uint32_t b) noexcept { return buffers_->data()[b]; }
  /// The index of node v's input 0 among the buffers (peer_buffer), for a topology of type T:
  /// one multiplication for a direct network's uniform rows.
  /// Uniform rows (every node a PE: a direct network) take one multiplication; the branch is the
  /// same for every hop of a run, so it predicts. Decided by the rows, never by the family's type.
  template <class T>
  std::size_t buffer_row(node_t v) const noexcept {
    return uniform_rows_ ? std::size_t{v} * n_buf_ : rows_.row(v) * classes_;
  }
  /// Where node v's rows start in the per-port tables, and how many ports it has rows for
  /// (runtime/machine/node_rows.hpp): v's out- and in-ports are below port_width(v).
  const NodeRows& rows() const noexcept { return rows_; }
  std::size_t port_row(node_t v) const noexcept { return rows_.row(v); }
  port_t port_width(node_t v) const noexcept { return rows_.width(v); }
  /// v's buffer inputs (port_width(v) x classes): its inputs at and above this hold nothing.
  std::uint32_t inputs(node_t v) const noexcept { return std::uint32_t{rows_.width(v)} * classes_; }
  /// The node whose out-port credit ci is (Machine::credit).
  node_t node_of_credit(std::uint32_t ci) const noexcept { return rows_.node_of(ci / classes_); }
  /// The head of v's input i (i == source_input(): the source queue). Precondition: not empty.
  Packet& head(PeState& s, std::uint32_t i) noexcept {
    RICA_ASSERT(i <= n_buf_, "head() of an input beyond the node's buffers");
    RICA_ASSERT(i < n_buf_ || s.injq_head < s.injq.size(), "head() of an empty source queue");
    return i == n_buf_ ? s.injq[s.injq_head] : s.inputs[i].front();
  }
  std::uint32_t source_input() const noexcept { return n_buf_; }

  /// The hop: moves the head of v's input i along h (not a delivery) into the peer's buffer.
  /// Precondition: the driver saw room (whole packet fits by its credit view). `d` is the driver's
  /// timing and notification policy: d.popped(v, i, words, wake, now_empty) after a buffer pop,
  /// d.stamp(p, head, link) to set the packet's timing, d.pushed(peer, in) after the push.
  /// The copy is written once, into the peer's slot, before the head is removed (room for it was
  /// seen, so this holds even when the peer's buffer is the head's own, over a self-loop).
  template <class D>
  void move(PeState& s, node_t v, std::uint32_t i, const HopPlan& h, ThreadStats& ts, D& d) {
    RICA_ASSERT(!h.delivers && h.peer < nodes_ && h.in < n_buf_ && h.port < ports_, "move() along a plan that is no hop");
    RICA_ASSERT(holds(v), "move() from a node of another rank");
    const Packet& src = head(s, i);
    RICA_ASSERT(LinkBuffer::fits_cached(credits(v)[h.out], cfg_.buffer_words, src.words),
                "move() without room by the producer's credit view");
    const std::uint8_t job = src.job;
    const bool from_source = i == n_buf_;
    RICA_ASSERT(&buffer_at(h.buf) == &peer_buffer(h.peer, h.in), "a plan's buffer that is not its peer's input");
    buffer_at(h.buf).push(credits(v)[h.out], src, ts.slots, [&](Packet& p) {
      p.hops = static_cast<std::uint16_t>(p.hops + 1);
      p.cls = h.cls;
      d.stamp(p, src, v, h.port);
      if (from_source) p.queued = queued_until_now(p);  // it enters the network here
    });
    if (from_source) {
      pop_source(s, v, job);
    } else {
      pop_input(s, v, i, ts, d);
      ++s.forwarded;
    }
    ++link_packets(v)[h.port];
    ledger_.carried(job, v, h.port);
    ++ts.hops;
    d.pushed(h.peer, h.in);
  }
  /// Delivers the head of v's input i at v (the plan said so).
  template <class D>
  void deliver_head(PeState& s, node_t v, std::uint32_t i, ThreadStats& ts, D& d) {
    Packet p = head(s, i);
    take(s, v, i, p, ts, d);
    arrive(s, v, p, ts);
  }

  // ---- read-only views (rica/observer.hpp's MachineView): exact when the machine is still ----
  const PeState& pe(node_t v) const noexcept { return pe_[v]; }
  /// Words held in v's input i, by its producer's credit (0 for an input no link feeds).
  unsigned words_held(node_t v, std::uint32_t i) const noexcept {
    if (i >= inputs(v) || upstream_[rows_.row(v) + i / classes_] == no_node) return 0;
    return pe_[v].inputs[i].words_held(credits_[up_credit_[rows_.row(v) * classes_ + i]]);
  }
  /// Every thread's statistics (sum them for the machine's; main thread, between cycles).
  const std::vector<ThreadStats>& thread_stats() const noexcept { return ledger_.threads(); }
  /// Packets dropped by the main thread's fault application (apply_faults()).
  std::uint64_t dropped_between_cycles() const noexcept { return ledger_.main_drops().count; }
  /// The ledger part (runtime/machine/ledger.hpp): statistics, the exactly-once record, traces.
  Ledger& ledger() noexcept { return ledger_; }
  const Ledger& ledger() const noexcept { return ledger_; }
  /// The run's observers (rica/observer.hpp), set by run_prepared() before the drivers run.
  Observers observers() const noexcept { return observers_; }
  void set_observers(Observers o) noexcept { observers_ = o; }

  // ---- after the run (main thread) ----
  void collect(RunStats& st);
  void analyse_stuck(RunStats& st);
  /// Whether this process holds node v's state (always with one process; under mpirun its own
  /// nodes only: the other ranks' state is never allocated here, runtime/machine/sparse.hpp).
  bool holds(node_t v) const noexcept { return !ranks_ || ranks_->mine(v); }
  /// The async drivers' progress line: packets the applications will send, if they know (0: no
  /// total), and packets delivered so far at the PEs this process holds (any thread, while running).
  std::uint64_t expected_sends() const {
    std::uint64_t n = 0;
    for (const JobRt& j : jobs_) n += j.app->max_sends_per_pe() * j.size;
    return n;
  }
  std::uint64_t delivered_so_far() const noexcept {
    std::uint64_t d = 0;
    for (node_t v = 0; v < pes_; ++v)
      if (holds(v)) d += pe_[v].delivered_now.load(std::memory_order_relaxed);
    return d;
  }

  void write_trace(const std::string& path);


 private:

  /// Removes the head of v's input i (p: its copy). A source-queue packet enters the network here.
  template <class D>
  void take(PeState& s, node_t v, std::uint32_t i, Packet& p, ThreadStats& ts, D& d) {
    if (i == n_buf_) {
      p.queued = queued_until_now(p);
      pop_source(s, v, p.job);
      return;
    }
    pop_input(s, v, i, ts, d);
  }
  /// Time packet p spent in its source queue, until now (Packet::queued).
  std::uint32_t queued_until_now(const Packet& p) const noexcept { return sat32(now() - p.inject_ns); }
  /// Removes the head of v's source queue (a packet of job `job`): it enters the network.
  void pop_source(PeState& s, node_t v, std::uint8_t job) noexcept {
    s.pop_injection();
    ledger_.entered(job, v);
  }
  /// Removes the head of v's buffer input i (not the source queue) and tells the driver.
  template <class D>
  void pop_input(PeState& s, node_t v, std::uint32_t i, ThreadStats& ts, D& d) {
    LinkBuffer& b = s.inputs[i];
    const unsigned words = b.front().words;
    const LinkBuffer::Popped r = b.pop(ts.slots);
    d.popped(v, i, words, r.wake, r.now_empty);
  }
  void deliver(PeState& s, node_t v, const Packet& p, ThreadStats& ts);
  /// Delivery at v's node: to the running job, or to the OS when the packet's job is switched out.
  void arrive(PeState& s, node_t v, const Packet& p, ThreadStats& ts) {
    ledger_.left(p.job, v);
    if (!dead_.empty() && dead_[p.dst]) {  // for a failed PE (the faults' routing "delivers" it here)
      drop(p, ts.dropped, ts.dropped_ids, ts.duplicates);
      return;
    }
    if (os_.hook() && os_.job_at(v) != p.job) {
      os_.hook()->on_switched_out(v, p);
      return;
    }
    deliver(s, v, p, ts);
  }

 public:
  // ---- the drivers' operations: they decide order and timing; state changes only through these ----
  /// PE v's application turn: start() once, then an injection opportunity while the window is
  /// open (always, in the async engine); once it closes the PE generates no more.
  /// The common turn, inline: a started PE of a job that is not generating, or that skips this
  /// opportunity (drawn already), costs a few loads instead of a Context (app_turn_slow()).
  void app_turn(PeState& s, node_t v, bool window_open) {
    if (s.started && os_.job_at(v) != no_job) {
      if (!s.generating) return;
      if (window_open && s.gen_skip) {
        --s.gen_skip;
        return;
      }
    }
    app_turn_slow(s, v, window_open);
  }
  /// The injection window closed (cycle engine, at cfg.cycles): every application is told.
  void close_window() {
    for (JobRt& j : jobs_) j.app->window_closed();
  }
  /// The current cycle (cycle engine; main thread, between cycles).
  void set_cycle(std::uint64_t c) noexcept { cycle_ = c; }
  /// The async engine's clock (started by its driver).
  RunClock& clock() noexcept { return clock_; }
  /// Buffer inputs per node (ports x classes); source_input() is this number.
  std::uint32_t buffers_per_node() const noexcept { return n_buf_; }
  /// Words of a node's work / ready masks (one bit per buffer input).
  std::uint32_t mask_words() const noexcept { return mask_words_; }
  PeState& pe(node_t v) noexcept { return pe_[v]; }
  /// Credit index (into credit()) of the producer feeding v's input i.
  std::uint32_t up_credit(node_t v, std::uint32_t i) const noexcept { return up_credit_[rows_.row(v) * classes_ + i]; }
  const std::uint32_t* up_credits(node_t v) const noexcept { return &up_credit_[rows_.row(v) * classes_]; }
  LinkBuffer::Credit& credit(std::uint32_t ci) noexcept { return credits_[ci]; }
  /// The main thread's packet slots (sweeps, MPI bridges).
  SlotCache& main_slots() noexcept { return main_slots_; }
  std::vector<ThreadStats>& thread_stats() noexcept { return ledger_.threads(); }

  std::vector<JobRt>& jobs() noexcept { return jobs_; }
  /// Under mpirun, which rank steps which node and the exchange; null with one process.
  Ranks* ranks() const noexcept { return ranks_.get(); }
  /// Dynamic faults pending at this cycle (0: none): the driver runs the base topology until then,
  /// calls apply_faults(), and continues on the faulty one.
  std::uint64_t faults_pending_at() const noexcept { return fault_at_; }
  const Topology& fault_base() const noexcept { return faulty_->base(); }
  /// The async engine's drain check: v holds a packet in a buffer or its source queue.
  bool holds_packets(node_t v) const noexcept {
    const PeState& q = pe_[v];
    if (q.injq_head != q.injq.size()) return true;
    for (std::uint32_t i = 0, n = inputs(v); i < n; ++i)
      if (!q.inputs[i].empty()) return true;
    return false;
  }

 private:
  void app_turn_slow(PeState& s, node_t v, bool window_open);
  unsigned draw_words(Rng& r) const noexcept {
    if (cfg_.packet_spread == 0) return cfg_.packet_words;
    return cfg_.packet_words - cfg_.packet_spread + static_cast<unsigned>(r.below(2 * cfg_.packet_spread + 1));
  }
  // ---- faults (runtime/machine/machine_faults.cpp) ----
  /// Records p as dropped by a fault: counted, its id summed, marked in the exactly-once bitmap
  /// (a packet both delivered and dropped counts as a duplicate).
  void drop(const Packet& p, std::uint64_t& count, std::uint64_t& ids, std::uint64_t& dups);
  /// Reads the fault set of a FaultyTopology: static faults take effect now (failed nodes run
  /// nothing), dynamic ones are remembered for apply_faults(). Called by allocate().
  void setup_faults();

 public:
  /// Dynamic faults at cycle fault_at_ (main thread, between cycles, the machine still): failed
  /// nodes stop and lose their packets (buffers and source queue), packets in buffers fed by a
  /// failed link are lost, all counted as dropped by the faults; from now on packets for a
  /// failed PE are dropped where they are and the routing is the faulty topology's.
  void apply_faults();
  /// The faults' figures into st (after the run); `all`: every thread's figures, summed.
  void collect_faults(RunStats& st, const ThreadStats& all, std::uint64_t& dropped_ids) const;
  /// Packets left anywhere (source queues, buffers): exact when the machine is still.
  bool packets_left() const;
  bool generating() const;
  /// The per-node figures of the nodes this process holds: their entries of st's per-PE and
  /// per-link tables (sized by the caller), their sums into `sums`, their non-empty buffers into
  /// the ledger's stuck buffers.
  void node_figures(RunStats& st, NodeSums& sums);
  /// st's per-PE and per-link tables at the machine's size, zero.
  void size_tables(RunStats& st) const;
  /// One ThreadStats per arena slot (+1), each with a slot cache on the machine's packet pool.
  void make_thread_stats(std::size_t n) { ledger_.make_threads(n, buffers_->pool(), jobs_.size(), classes()); }

 private:
  void allocate();
  /// Under mpirun: refuses (exit 2) what cannot run over ranks yet, before anything is allocated.
  void check_ranks_supported() const;
  /// Whether the configured routing reads the port-load board (UGAL-G: BoardRouting).
  bool routing_reads_board() const;
  /// Refuses (usage_error, exit 2) a machine whose estimated footprint exceeds the memory this
  /// process may still use.
  /// `held`: the nodes whose state this process allocates (all of them in one process).
  void check_memory(double held) const;
  /// An indirect network's PE rows (allocate(), NodeRows): the ports its PEs' links use, at least 1.
  port_t terminal_width() const;

  const Topology& topo_;
  std::vector<JobRt> jobs_;  ///< one per application; a plain run has one covering every PE
  const EngineConfig& cfg_;
  node_t nodes_ = 0, pes_ = 0;
  port_t ports_ = 0;
  class_t classes_ = 1;
  std::uint32_t n_buf_ = 0;  ///< input buffers of the widest node (ports x classes): the source queue's index
  bool uniform_rows_ = false;  ///< every node has rows for every port (NodeRows::uniform): buffer_row multiplies
  /// Where each node's rows start in the per-port tables (node_rows.hpp): per port in use.
  NodeRows rows_;
  unsigned min_words_ = 1;
  std::uint64_t route_seed_ = 0;  ///< adaptive selection's tie-break seed (from cfg.seed)
  RunClock clock_;
  bool cycle_mode_ = false;
  std::uint64_t cycle_ = 0;  ///< cycle engine: the current cycle (written between cycles only)
  OsState os_;  ///< owners, halts, epochs, touched nodes, the OS hook (os_state.hpp)
  Ledger ledger_;  ///< statistics, exactly-once record, net in/out, traces (ledger.hpp)
  // Per-node tables, indexed by the global node id everywhere. Under mpirun a rank allocates
  // (makes resident) only its own nodes' entries and the ghost entries of its cut links: the
  // input buffers of another rank's node it pushes into, the credits of another rank's producer
  // feeding its node (runtime/machine/sparse.hpp); the other entries are never touched.
  SparseArray<PeState> pe_;
  std::unique_ptr<LinkBufferSet> buffers_;  ///< [row(node) * classes + input]
  SlotCache main_slots_;  ///< the main thread's slots (OS sweeps between cycles)
  lazy_vector<LinkBuffer::Credit> credits_;
  // The per-port tables: [row(node) + port], or [(row(node) + port) * classes + class] (rows_).
  std::unique_ptr<std::atomic<std::uint32_t>[]> board_;  // [row + port]; see board_words()
  lazy_vector<node_t> upstream_;          // [row + in_port]
  lazy_vector<std::uint32_t> up_credit_;  // [row * classes + input]: the producer's Credit index
  lazy_vector<std::uint64_t> link_packets_;
  lazy_vector<std::uint64_t> work_words_;
  std::uint32_t mask_words_ = 1;  // words of a PE's ready/work masks
  std::vector<std::uint32_t> link_len_;    // cycle engine: cycles per packet on v's links
  unsigned max_link_len_ = 1;
  // ---- faults ----
  const FaultyTopology* faulty_ = nullptr;  ///< topo_'s fault set, if it has one
  std::uint64_t fault_at_ = 0;              ///< dynamic faults: the cycle they happen at (0: none pending)
  std::uint64_t faults_applied_ = 0;        ///< the cycle dynamic faults happened at (0: not yet / static)
  /// [node]: failed (packets for it are dropped). Empty while no node or link has failed; written
  /// by the main thread between cycles only.
  std::vector<std::uint8_t> dead_;
  /// Under mpirun: which rank steps which node, and the exchange (runtime/machine/ranks.hpp); null with
  /// one process.
  std::unique_ptr<Ranks> ranks_;
  Observers observers_;  ///< not owned; empty: nobody watches (set by run_prepared)
};

template <class F>
std::uint64_t Machine::sweep(node_t v, F&& save) {
  PeState& s = pe_[v];
  std::uint64_t packets = 0;
  for (std::uint32_t i = 0, n = inputs(v); i < n; ++i) {
    LinkBuffer& b = s.inputs[i];
    while (!b.empty()) {
      Packet p = b.front();
      b.pop_and_check(main_slots_);
      credits_[up_credit(v, i)].popped_seen += p.words;
      ledger_.left(p.job, v);  // left the network here
      save(p);
      ++packets;
    }
  }
  for (std::uint32_t w = 0; w < mask_words_; ++w) work(v)[w] = 0;
  return packets;
}

}  // namespace detail
}  // namespace rica
