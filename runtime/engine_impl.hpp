#pragma once
// Engine internals shared by the engine's drivers (runtime/engine.cpp: async and cycle) and the
// OS layer (runtime/os.cpp: jobs, time sharing, drain/flush). Not API: everything here is in
// rica::detail and may change.
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
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>
#include <tuple>

#include "rica/link_buffer.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define RICA_HAVE_TSC 1
#endif

// ThreadSanitizer cannot see the happens-before edge of a oneTBB task hand-off (libtbb is not
// instrumented); these annotations state it: everything an enqueuer did before enqueueing a
// block task happens before that task runs (on the engine's address, so it is engine-wide).
// tests/tsan.supp covers TBB's own task-object allocation; the tsan preset uses both.
#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#define RICA_TSAN_ACQUIRE(p) __tsan_acquire(static_cast<void*>(p))
#define RICA_TSAN_RELEASE(p) __tsan_release(static_cast<void*>(p))
#else
#define RICA_TSAN_ACQUIRE(p) ((void)0)
#define RICA_TSAN_RELEASE(p) ((void)0)
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

 private:
  std::chrono::steady_clock::time_point t0_;
  bool tsc_ = false;
  std::uint64_t tsc0_ = 0;
  double ns_per_tick_ = 1.0;
};

/// Everything one PE (or router-only node) owns. Only the PE's own task touches it while the
/// machine runs, except the input LinkBuffers' producer side (upstream tasks) and `delivered_now`
/// (read by the progress monitor).
struct PeState {
  LinkBuffer* inputs = nullptr;          // [in_port * classes + class]
  LinkBuffer::Credit* credits = nullptr;  // [out_port * classes + class], producer side
  node_t* upstream = nullptr;            // [in_port]: the node feeding that in-port, or no_node
  std::uint64_t* link_packets = nullptr;  // [out_port]
  /// Inputs that received a packet since the consumer last looked: set by producers (fetch_or),
  /// taken by the consumer (exchange). A producer that finds its word 0 wakes the PE.
  std::atomic<std::uint64_t>* ready = nullptr;  // [ceil(inputs / 64)]
  std::uint64_t* work = nullptr;                // consumer-only: inputs that may hold packets
  std::vector<Packet> injq;              // injection (source) queue; head at injq_head
  std::size_t injq_head = 0;
  /// Drops the injection queue's head; the storage is reused once the queue empties.
  void pop_injection() noexcept {
    if (++injq_head == injq.size()) {
      injq.clear();
      injq_head = 0;
    }
  }
  std::uint32_t rr = 0;                  // round-robin position over inputs (+ injection queue)
  std::uint32_t seq = 0;                 // next sequence number of a packet from this PE
  bool started = false, generating = true;
  Rng rng;
  std::uint64_t injected = 0, delivered = 0, forwarded = 0, blocked = 0;
  std::atomic<std::uint64_t> delivered_now{0};  // progress monitor's view
};

struct alignas(64) Block {
  std::atomic<std::uint64_t> pending{0};
  std::atomic<std::uint32_t> scheduled{0};
};

/// Per worker-thread statistics, merged after the run (no shared counter on the packet path).
/// Indexed by the worker's slot in the arena; each on its own cache lines.
struct alignas(64) ThreadStats {
  std::uint64_t delivered = 0, hops = 0, duplicates = 0, beyond_bitmap = 0;
  std::uint64_t measured = 0;           // deliveries of packets generated after the warm-up
  std::uint64_t delivered_in_window = 0;  // cycle engine: deliveries during [warmup, cycles)
  std::uint64_t lat_sum = 0, lat_max = 0;
  unsigned hops_max = 0;
  std::uint64_t sum_delivered_ids = 0;  // checksum of delivered (src, seq)
  std::vector<std::uint64_t> hop_hist = std::vector<std::uint64_t>(256, 0);
  std::vector<std::uint64_t> lat_hist = std::vector<std::uint64_t>(64 * 8, 0);
  /// Per job (rica/os.hpp): deliveries, measured deliveries, their latency and hop sums, max latency.
  struct JobFigures {
    std::uint64_t delivered = 0, measured = 0, lat_sum = 0, lat_max = 0, hops = 0, misdelivered = 0;
  };
  std::vector<JobFigures> job;
  // Cycle engine: effects on other nodes' state, applied by the main thread between cycles (so
  // no decision in a cycle depends on how far another thread got in it).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> credit_returns;  // (credit index, words)
  std::vector<std::pair<node_t, std::uint32_t>> arrivals;                // (node, input index)
};

/// The running block task's view: wake-ups of PEs in the block being run go into `local` (no
/// atomic), the others into their block's pending mask.
struct TaskCtx {
  std::size_t block;
  std::uint64_t local = 0;
  ThreadStats& ts;
  std::vector<std::uint8_t>& skip;  // per input of the PE being stepped: head blocked this activation
  /// Pushes of this activation still to announce (peer, peer's input index). The announcements
  /// (an atomic read-modify-write each) are issued at the end of the activation, so the stores
  /// of the packets themselves drain in parallel instead of stalling one fence per hop.
  std::vector<std::pair<node_t, std::uint32_t>>& notes;
};

inline std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}
inline std::uint64_t packet_id(const Packet& p) noexcept { return mix((std::uint64_t{p.src} << 32) | p.seq); }

/// Log-linear latency bucket: 8 sub-buckets per power of two.
inline unsigned lat_bucket(std::uint64_t ns) noexcept {
  if (ns < 8) return static_cast<unsigned>(ns);
  const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(ns));
  return msb * 8 + static_cast<unsigned>((ns >> (msb - 3)) & 7u);
}
inline double lat_bucket_mid(unsigned b) noexcept {
  if (b < 8) return b;
  const unsigned msb = b / 8, sub = b % 8;
  const double lo = std::ldexp(8.0 + sub, static_cast<int>(msb) - 3);
  return lo + std::ldexp(0.5, static_cast<int>(msb) - 3);
}

/// A job as the engine runs it: an application on a set of PEs it numbers 0..size-1.
struct JobRt {
  App* app = nullptr;
  std::vector<Handler> handlers;
  std::vector<node_t> global_of;  ///< local PE -> machine PE; empty: identity (the whole machine)
  std::vector<node_t> local_of;   ///< machine PE -> local PE, no_node if not a member; empty: identity
  node_t size = 0;
  node_t local(node_t g) const noexcept { return local_of.empty() ? g : local_of[g]; }
  node_t global(node_t l) const noexcept { return global_of.empty() ? l : global_of[l]; }
};

/// The OS layer's hooks into the cycle engine (runtime/os.cpp). after_cycle and busy run on the
/// main thread between cycles (the machine is still); on_switched_out runs on node v's task.
struct CycleHook {
  virtual ~CycleHook() = default;
  /// Cycle `cycle` has finished: switches advance here.
  virtual void after_cycle(std::uint64_t cycle) = 0;
  /// Work the engine cannot see (saved packets and contexts, switches under way).
  virtual bool busy() const = 0;
  /// A switch is under way: nodes may be held for a long time, so a stall is not a deadlock.
  virtual bool holding() const = 0;
  /// A packet of a job switched out at v reached v, its destination: the OS saves it (flush).
  virtual void on_switched_out(node_t v, const Packet& p) = 0;
};

inline constexpr std::uint8_t no_job = 0xff;

class Engine;
/// Runs an allocated engine to the end (either driver), collects, verifies every job.
RunStats run_prepared(Engine& e, bool cycles);

class Engine {
 public:
  Engine(const Topology& t, std::vector<JobRt> j, const EngineConfig& c) : topo(t), jobs(std::move(j)), cfg(c) {}

  const Topology& topo;
  std::vector<JobRt> jobs;  ///< one per application; a plain run has one covering every PE
  const EngineConfig& cfg;
  /// The job whose application runs on each node now (no_job: none). Written between cycles only.
  std::vector<std::uint8_t> node_job;
  /// Nodes halted by the OS (drain): no injection, delivery or transmission, and no node sends
  /// to them. Written between cycles only.
  std::vector<std::uint8_t> halted;
  /// The switch at which each node last resumed (0: never switched). A node sends only to
  /// neighbours of its own epoch, so a resumed router never feeds one that has not resumed yet
  /// (whose inputs are not ready), and an outgoing job never feeds a resumed one. Written
  /// between cycles only.
  std::vector<std::uint32_t> epoch;
  /// [job * nodes + v]: packets that entered the network at v (left its injection queue) and
  /// that left it at v (delivered, or saved by the OS). Written by v's task only.
  std::vector<std::uint64_t> net_in, net_out;
  /// [(job * nodes + v) * ports + port]: packets of each job per link (only with more than one job).
  std::vector<std::uint64_t> job_link;
  CycleHook* hook = nullptr;
  node_t nodes = 0, pes = 0;
  port_t ports = 0;
  class_t classes = 1;
  unsigned min_words = 1;
  RunClock clock;
  bool cycle_mode = false;
  std::uint64_t cycle = 0;  // cycle engine: the current cycle (written between cycles only)
  struct TraceRow {
    node_t src, dst;
    std::uint32_t seq;
    std::uint16_t hops;
    std::uint64_t inject, deliver;
  };
  std::vector<std::vector<TraceRow>> traces;  // [PE], filled by the PE's own task
  std::vector<PeState> pe;
  std::vector<Block> blocks;
  std::byte* buffer_memory = nullptr;
  unsigned block_shift = 6;
  node_t block_mask = 63;
  std::vector<LinkBuffer::Credit> credits;
  std::vector<node_t> upstream;
  std::vector<std::uint32_t> up_credit;  // [node * ports * classes + input]: the producer's Credit index
  std::vector<std::uint64_t> link_packets;
  std::unique_ptr<std::atomic<std::uint64_t>[]> ready_words;
  std::vector<std::uint64_t> work_words;
  std::uint32_t mask_words = 1;  // words of a PE's ready/work masks
  std::uint64_t bitmap_k = 0;  // bits per source PE (0: checksum mode)
  std::vector<std::atomic<std::uint64_t>> bitmap;
  std::vector<ThreadStats> tstats;  // [arena slot]
  std::atomic<std::int64_t> outstanding{0};
  tbb::task_arena* arena = nullptr;

  ~Engine() {
    if (buffer_memory) {
      const std::size_t n = std::size_t{nodes} * ports * classes;
      auto* b = reinterpret_cast<LinkBuffer*>(buffer_memory);
      for (std::size_t i = 0; i < n; ++i) b[i].~LinkBuffer();
      ::operator delete(buffer_memory, std::align_val_t{64});
    }
  }

  std::uint64_t now() const noexcept { return cycle_mode ? cycle : clock.now(); }

  unsigned draw_words(Rng& r) const noexcept {
    if (cfg.packet_spread == 0) return cfg.packet_words;
    return cfg.packet_words - cfg.packet_spread + static_cast<unsigned>(r.below(2 * cfg.packet_spread + 1));
  }

  void send(PeState& s, node_t src, node_t dst, handler_t h, std::uint64_t w0, std::uint64_t w1, std::uint8_t job = 0) {
    Packet p;
    p.src = src;
    p.dst = dst;
    p.job = job;
    p.seq = s.seq++;
    p.handler = h;
    p.words = static_cast<std::uint8_t>(draw_words(s.rng));
    p.inject_ns = now();
    p.payload[0] = w0;
    p.payload[1] = w1;
    s.injq.push_back(p);
    ++s.injected;
  }

  /// Marks a node as having work and makes sure its block is (or will be) run.
  void signal(node_t v, TaskCtx& tc) {
    const std::size_t b = v >> block_shift;
    const std::uint64_t bit = std::uint64_t{1} << (v & block_mask);
    if (b == tc.block) {  // the block this thread runs: picked up by its next round
      tc.local |= bit;
      return;
    }
    signal_remote(b, bit);
  }
  void signal_remote(std::size_t b, std::uint64_t bit) {
    Block& blk = blocks[b];
    blk.pending.fetch_or(bit, std::memory_order_seq_cst);
    if (blk.scheduled.load(std::memory_order_seq_cst) == 0 && blk.scheduled.exchange(1) == 0) enqueue_block(b);
  }

  void enqueue_block(std::size_t b);  // defined after run_block's template

  void deliver(PeState& s, node_t v, const Packet& p, ThreadStats& ts) {
    const std::uint64_t t_now = now();
    const std::uint64_t lat = t_now - p.inject_ns;
    if (p.inject_ns >= cfg.warmup) {  // warm-up packets count for conservation only
      ++ts.measured;
      ts.lat_sum += lat;
      ts.lat_max = std::max(ts.lat_max, lat);
      ++ts.lat_hist[std::min<unsigned>(lat_bucket(lat), 64 * 8 - 1)];
      ++ts.hop_hist[std::min<unsigned>(p.hops, 255)];
      ts.hops_max = std::max<unsigned>(ts.hops_max, p.hops);
    }
    if (cycle_mode && t_now >= cfg.warmup && t_now < cfg.cycles) ++ts.delivered_in_window;
    if (!traces.empty()) traces[v].push_back({p.src, p.dst, p.seq, p.hops, p.inject_ns, t_now});
    ++ts.delivered;
    ts.sum_delivered_ids += packet_id(p);
    if (bitmap_k) {
      if (p.seq >= bitmap_k) {
        ++ts.beyond_bitmap;
      } else {
        const std::uint64_t bit = std::uint64_t{p.src} * bitmap_k + p.seq;
        const std::uint64_t mask = std::uint64_t{1} << (bit % 64);
        if (bitmap[bit / 64].fetch_or(mask, std::memory_order_relaxed) & mask) ++ts.duplicates;
      }
    }
    const JobRt& j = jobs[p.job];
    ThreadStats::JobFigures& jf = ts.job[p.job];
    ++jf.delivered;
    if (p.inject_ns >= cfg.warmup) {
      ++jf.measured;
      jf.lat_sum += lat;
      jf.lat_max = std::max(jf.lat_max, lat);
      jf.hops += p.hops;
    }
    const node_t local = j.local(v);
    if (v >= pes || local == no_node || node_job[v] != p.job) ++jf.misdelivered;  // never: a bug if seen
    if (p.handler < j.handlers.size() && local != no_node) {
      Context ctx(*this, s, local, v, p.job);
      j.handlers[p.handler](ctx, p);
    }
    ++s.delivered;
    s.delivered_now.store(s.delivered, std::memory_order_relaxed);
  }

  /// PE v's application turn: start() once, then an injection opportunity while the window is
  /// open (always, in the async engine); once it closes the PE generates no more.
  void app_turn(PeState& s, node_t v, bool window_open) {
    const std::uint8_t jid = node_job[v];
    if (jid == no_job) return;
    const JobRt& j = jobs[jid];
    Context ctx(*this, s, j.local(v), v, jid);
    if (!s.started) {
      s.started = true;
      j.app->start(ctx);
    }
    if (!s.generating) return;
    if (!window_open) {
      s.generating = false;
      return;
    }
    s.generating = j.app->generate(ctx);
  }
  /// Delivery at v's node: to the running job, or to the OS when the packet's job is switched out.
  void arrive(PeState& s, node_t v, const Packet& p, ThreadStats& ts) {
    ++net_out[std::size_t{p.job} * nodes + v];
    if (hook && node_job[v] != p.job) {
      hook->on_switched_out(v, p);
      return;
    }
    deliver(s, v, p, ts);
  }
  template <class T>
  bool step_pe(const T& t, node_t v, TaskCtx& tc);
  template <class T>
  void run_block(const T& t, std::size_t b);
  template <class T>
  void run(const T& t, RunStats& st);
  template <class T>
  void cycle_step(const T& t, node_t v, ThreadStats& ts);
  template <class T>
  void run_cycles(const T& t, RunStats& st);
  void apply_cycle_effects();
  void write_trace(const std::string& path);
  std::vector<std::uint64_t> busy_until;   // cycle engine: [node * ports + out_port]
  std::vector<std::uint32_t> port_rr;      // cycle engine: round-robin position per output port
  std::vector<std::uint32_t> link_len;     // cycle engine: cycles per packet on v's links

  void allocate();
  void analyse_stuck(RunStats& st);
  void collect(RunStats& st);
  std::function<void(std::size_t)> block_runner;  // set by run<T>: runs one block task
};

}  // namespace detail
}  // namespace rica
