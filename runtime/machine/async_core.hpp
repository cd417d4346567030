#pragma once
// The async engine's core, shared by its two drivers: one process (runtime/machine/driver_async.cpp) and
// MPI ranks (runtime/machine/driver_mpi_async.cpp). It decides only order; every packet moves through
// Machine's hop kernel. The drivers add how a run starts and ends (and, over ranks, the bridge).
//
// Scheduling (docs/runtime.md): nodes are grouped in blocks of `block` consecutive
// nodes. A block has an atomic pending mask (bit i: node i of the block has work) and a scheduled
// flag; a scheduled block is posted to the block scheduler (runtime/machine/block_scheduler.hpp: one
// long-running oneTBB task per worker, each owning a contiguous range of blocks and stealing when
// idle), whose worker runs its pending nodes, each for a bounded batch of packet moves, and posts
// it again while work remains. A node belongs to one block and a block is run by one worker at a
// time, so a node never runs on two threads at once. A node whose every head packet is blocked
// sleeps (no pending bit) until the downstream consumer frees room and wakes it.
//
// Ownership (`Own`): which nodes this process steps. In one process every node (AllNodes); over
// ranks a rank's own nodes, and a push into another rank's node stays in this rank's copy of the
// buffer for the bridge (no announcement), and only producers of this rank are woken.
#include <condition_variable>
#include <mutex>

#include "block_scheduler.hpp"
#include "machine.hpp"
#include "rica/interrupt.hpp"
#include "node_step.hpp"
#include "staged.hpp"
#include "tsan.hpp"

namespace rica::detail {

struct alignas(64) AsyncBlock {
  std::atomic<std::uint64_t> pending{0};
  std::atomic<std::uint32_t> scheduled{0};
};

/// One process: every node is this process's.
struct AllNodes {
  static constexpr bool mine(node_t) noexcept { return true; }
};

template <class Own>
struct AsyncCore {
  Machine& m;
  const Own own;
  std::vector<AsyncBlock> blocks;
  unsigned block_shift = 6;
  node_t block_mask = 63;
  /// Blocks scheduled (posted, or being run): zero only when no node has work (blocks are
  /// scheduled only by workers, the bridge, or before the start and after a quiescence check).
  std::atomic<std::int64_t> outstanding{0};
  tbb::task_arena* arena = nullptr;
  BlockScheduler sched;
  std::atomic<unsigned> workers_done{0};
  /// ThreadSanitizer's start edge (runtime/machine/tsan.hpp): released by start_workers() only, acquired
  /// by each worker task first; no worker releases it, so workers are not ordered by it.
  char tsan_start = 0;
  /// Signalled when `outstanding` drops to zero (the main thread waits on it instead of polling).
  std::mutex quiet_mu;
  std::condition_variable quiet_cv;

  /// Fetch a round's nodes ahead in stages (prefetch_node), else the next node's state only.
  const bool deep;

  /// The nodes' ready masks [node * mask_words + word]: inputs that received a packet since the
  /// consumer last looked (set by producers with fetch_or, taken by the consumer with exchange; a
  /// producer that finds its word 0 wakes the node). This engine's own state, not the machine's.
  lazy_vector<std::atomic<std::uint64_t>> ready_words;
  std::atomic<std::uint64_t>* ready(node_t v) noexcept { return &ready_words[std::size_t{v} * m.mask_words()]; }

  AsyncCore(Machine& mm, Own o) : m(mm), own(o), deep(mm.buffers_exceed_caches()) {
    const std::uint32_t mw = m.mask_words();
    ready_words = lazy_vector<std::atomic<std::uint64_t>>(std::size_t{m.nodes()} * mw);
    for (node_t v = 0; v < m.nodes(); ++v)  // only this process's nodes' entries become resident
      if (m.holds(v))
        for (std::uint32_t w = 0; w < mw; ++w) ready_words[std::size_t{v} * mw + w].store(0, std::memory_order_relaxed);
    block_shift = static_cast<unsigned>(std::countr_zero(m.config().block));
    block_mask = m.config().block - 1;
    blocks = std::vector<AsyncBlock>((m.nodes() + m.config().block - 1) / m.config().block);
  }

  /// The view of the worker running a block: wake-ups of nodes in that block go into `local`
  /// (no atomic), the others into their block's pending mask.
  struct TaskCtx {
    std::size_t block;
    std::uint64_t local = 0;
    ThreadStats& ts;
    /// Per mask word of the node being stepped: inputs whose head is blocked this activation.
    std::vector<std::uint64_t>& blocked;
    /// Pushes of this activation still to announce (peer, peer's input index). The announcements
    /// (an atomic read-modify-write each) are issued at the end of the activation, so the stores
    /// of the packets themselves drain in parallel instead of stalling one fence per hop.
    std::vector<std::pair<node_t, std::uint32_t>>& notes;
  };

  /// Marks a node of this process as having work and makes sure its block is (or will be) run.
  void signal(node_t v, TaskCtx& tc) {
    RICA_ASSERT(own.mine(v), "a wake-up for another rank's node");
    const std::size_t b = v >> block_shift;
    const std::uint64_t bit = std::uint64_t{1} << (v & block_mask);
    if (b == tc.block) {  // the block this thread runs: picked up by its next round
      tc.local |= bit;
      return;
    }
    signal_remote(b, bit);
  }
  void signal_remote(std::size_t b, std::uint64_t bit) {
    AsyncBlock& blk = blocks[b];
    blk.pending.fetch_or(bit, std::memory_order_seq_cst);
    if (blk.scheduled.load(std::memory_order_seq_cst) == 0 && blk.scheduled.exchange(1) == 0) enqueue_block(b);
  }
  void enqueue_block(std::size_t b) {
    outstanding.fetch_add(1, std::memory_order_relaxed);
    sched.post(b);
  }
  /// A block ran out of work and is no longer scheduled.
  void block_idle() {
    if (outstanding.fetch_sub(1, std::memory_order_release) == 1) {
      { std::lock_guard<std::mutex> g(quiet_mu); }  // a waiter between its check and its wait gets the notify
      quiet_cv.notify_all();
    }
  }
  /// Main thread: waits up to `d` for every block to be idle; true when they are.
  bool wait_quiet(std::chrono::nanoseconds d) {
    std::unique_lock<std::mutex> lk(quiet_mu);
    return quiet_cv.wait_for(lk, d, [&] { return outstanding.load(std::memory_order_acquire) == 0; });
  }
  /// Before start_pes(): one long-running task per worker in `arena`, each running the blocks the
  /// scheduler hands it until stop_workers(), and `between()` after each (the one-process
  /// driver's windows: it may stop the world, BlockScheduler::pause_from_worker).
  template <class T, class Between = BlockScheduler::Nothing>
  void start_workers(const T& t, unsigned threads, Between between = {}) {
    sched.init(blocks.size(), threads);
    workers_done.store(0);
    tsan_release(&tsan_start);  // the set-up above happens before every worker (through oneTBB)
    for (unsigned i = 0; i < threads; ++i)
      arena->enqueue([this, &t, between] {
        tsan_acquire(&tsan_start);
        sched.work([&](std::size_t b) { run_block(t, b); }, between);
        workers_done.fetch_add(1, std::memory_order_release);
      });
  }
  /// After the run (no block scheduled): every worker task returns.
  void stop_workers() {
    sched.stop();
    while (workers_done.load(std::memory_order_acquire) < sched.workers()) std::this_thread::yield();
  }
  /// Announces a packet pushed into input `in` of node v by a thread not running v's block (the
  /// bridge): v's ready bit, and a wake-up if v had none.
  void announce(node_t v, std::uint32_t in) {
    const std::uint64_t bit = std::uint64_t{1} << (in & 63);
    if (ready(v)[in >> 6].fetch_or(bit, std::memory_order_acq_rel) == 0)
      signal_remote(v >> block_shift, std::uint64_t{1} << (v & block_mask));
  }
  /// Wakes every node of this process that holds packets (no task runs): a wake-up lost to the
  /// unfenced race in LinkBuffer::pop_and_check is recovered by this.
  void kick() {
    std::vector<std::uint64_t> wake(blocks.size(), 0);
    for (node_t v = 0; v < m.nodes(); ++v)
      if (own.mine(v) && m.holds_packets(v)) wake[v >> block_shift] |= std::uint64_t{1} << (v & block_mask);
    for (std::size_t b = 0; b < blocks.size(); ++b)
      if (wake[b]) signal_remote(b, wake[b]);
  }
  /// Before a run: every PE of this process has work (its first injection opportunity). Workers
  /// may already run and have scheduled a block: the same protocol as signal().
  void start_pes() {
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      std::uint64_t bits = 0;
      const node_t first = static_cast<node_t>(b << block_shift);
      for (node_t i = 0; i <= block_mask && first + i < m.pes(); ++i)
        if (own.mine(first + i)) bits |= std::uint64_t{1} << i;
      if (bits == 0) continue;
      blocks[b].pending.fetch_or(bits);
      if (blocks[b].scheduled.exchange(1) == 0) enqueue_block(b);  // else a running task has it
    }
  }

  /// The hop kernel's driver policy (Machine::move, deliver_head): no timing (real time); a pop
  /// may owe the upstream producer a wake-up; a push is announced at the end of the activation.
  struct Hops {
    AsyncCore& d;
    TaskCtx& tc;
    void popped(node_t v, std::uint32_t i, unsigned /*words*/, bool wake, bool /*now_empty*/) {
      if (!wake) return;
      const node_t u = d.m.pe(v).upstream[i / d.m.classes()];
      if (d.own.mine(u)) d.signal(u, tc);  // a remote producer never waits on this copy (the bridge pushes)
    }
    void stamp(Packet&, const Packet&, node_t, port_t) const noexcept {}
    void pushed(node_t peer, std::uint32_t in) {
      if (d.own.mine(peer)) tc.notes.emplace_back(peer, in);
    }
  };

  /// The async engine's step policy (node_step, runtime/machine/node_step.hpp): a head moves at
  /// once when there is room downstream, else the node sleeps on that buffer (wait_for_room) and
  /// the input is left out of this activation; up to `batch` moves, in passes until one moves
  /// nothing. One per activation of node v, on the worker running v's block; the hop kernel gets
  /// `hops` (the step's own state stays out of the calls, in registers).
  /// Board: the routing reads the port-load board (UGAL-G, BoardRouting): each forward publishes
  /// its out-port's words (this node's own entry; Machine::board_words).
  template <bool Board>
  struct Step {
    static constexpr bool may_idle = false;
    Machine& m;
    TaskCtx& tc;
    Hops hops;
    std::uint64_t* const work;                  ///< v's work mask (Machine::work)
    std::atomic<std::uint64_t>* const arrived;  ///< v's ready mask (AsyncCore::ready)
    LinkBuffer::Credit* const credits;          ///< v's producer credits (Machine::credits)
    const std::uint32_t n_buf;
    const unsigned batch;
    unsigned moves = 0;
    bool source_blocked = false;  ///< the source queue's head sleeps on a full buffer

    Step(AsyncCore& d, TaskCtx& c, node_t v)
        : m(d.m), tc(c), hops{d, c}, work(d.m.work(v)), arrived(d.ready(v)), credits(d.m.credits(v)),
          n_buf(d.m.buffers_per_node()), batch(d.m.config().batch) {}

    static constexpr bool held(node_t) noexcept { return false; }
    RICA_STEP_HOOK void begin(PeState&, node_t) {
      for (std::uint32_t w = 0; w < m.mask_words(); ++w) {  // no read-modify-write (a fence) when nothing arrived
        if (arrived[w].load(std::memory_order_relaxed) != 0)
          work[w] |= arrived[w].exchange(0, std::memory_order_acquire);
        tc.blocked[w] = 0;
      }
    }
    static constexpr bool window_open() noexcept { return true; }
    bool source(const PeState&) const noexcept { return !source_blocked; }
    std::uint64_t mask(std::uint32_t w) const noexcept { return work[w] & ~tc.blocked[w]; }
    /// A work bit may be stale (a packet announced after it was taken): cleared when found empty.
    RICA_STEP_HOOK bool has_head(const PeState& s, std::uint32_t i) noexcept {
      if (i < n_buf) {
        if (!s.inputs[i].empty()) return true;
        work[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
        return false;
      }
      return s.injq_head != s.injq.size();
    }
    static constexpr bool ready(const Packet&) noexcept { return true; }  // no timing: real time
    RICA_STEP_HOOK bool deliver(PeState& s, node_t v, std::uint32_t i, const Packet&) {
      m.deliver_head(s, v, i, tc.ts, hops);
      ++moves;
      return true;
    }
    RICA_STEP_HOOK bool forward(PeState& s, node_t v, std::uint32_t i, const Packet& head, const HopPlan& h) {
      LinkBuffer& dst = m.buffer_at(h.buf);  // over ranks: a ghost (outbox) for another rank's node
      LinkBuffer::Credit& cr = credits[h.out];
      if (!dst.fits(cr, m.config().buffer_words, head.words)) {
        ++s.blocked;
        if (!dst.wait_for_room(cr, head.words)) {  // sleeps on this head until woken
          if (i < n_buf)
            tc.blocked[i >> 6] |= std::uint64_t{1} << (i & 63);
          else
            source_blocked = true;
          return false;
        }
      }
      m.move(s, v, i, h, tc.ts, hops);
      if constexpr (Board) {  // UGAL-G: publish this port's queue, the pushed class's view fresh
        dst.refresh(cr);
        m.publish_board(v, h.port);
      }
      ++moves;
      return true;
    }
    bool more() const noexcept { return moves < batch; }
    bool again(bool moved) const noexcept { return moved && moves < batch; }
    /// If the batch ran out, packets may still move: stay scheduled. Otherwise every input was
    /// tried until nothing moved, so what is left waits for a wake-up (room downstream, a new
    /// arrival). A generating PE whose source-queue head is blocked sleeps too (woken with the room).
    RICA_STEP_HOOK bool end(const PeState& s, node_t v) {
      for (const auto& [peer, in] : tc.notes) {
        const std::uint64_t bit = std::uint64_t{1} << (in & 63);
        auto& word = hops.d.ready(peer)[in >> 6];
        if (word.fetch_or(bit, std::memory_order_acq_rel) == 0) hops.d.signal(peer, tc);
      }
      tc.notes.clear();
      return moves >= batch || (v < m.pes() && s.generating && s.injq_head == s.injq.size());
    }
  };

  /// Whether topology T's routing reads the port-load board (Routed<_, R> with BoardRouting<R>).
  template <class T>
  static constexpr bool reads_board() {
    if constexpr (requires(const T& x) { x.routing; })
      return BoardRouting<std::decay_t<decltype(std::declval<const T&>().routing)>>;
    else
      return false;
  }

  /// One activation of node v (node_step with the async policy): an injection opportunity, then up
  /// to `batch` packet moves, the inputs with work bits (and the source queue) round robin from
  /// s.rr, one head per input per pass. True when v still has work that does not wait for a wake-up.
  template <class T>
  __attribute__((flatten)) bool step_pe(const T& t, node_t v, TaskCtx& tc) {
    Step<reads_board<T>()> e(*this, tc, v);
    return node_step(m, t, v, e);
  }

  /// Fetching a node's state ahead of its step, in stages (hints only; reads nothing but v's own
  /// consumer-side state and, relaxed, its ready mask): how many nodes ahead each stage runs.
  struct Stage {
    enum : std::size_t { state, buffer, ring, slot };
  };
  static constexpr std::array<std::size_t, 4> ahead{7, 4, 2, 1};
  ///  state: its PeState, mask words (ready with write intent: the step exchanges it) and credits;
  ///  buffer: both lines of each input that has or just got packets (work | ready bits), and the
  ///  source queue's head;
  ///  ring: the front entry of those inputs' index rings;  slot: their head packets.
  void prefetch_node(node_t v, std::size_t stage) noexcept {
    const std::size_t mw = std::size_t{v} * m.mask_words();
    if (stage == Stage::state) {
      const char* p = reinterpret_cast<const char*>(&m.pe(v));
      __builtin_prefetch(p);
      __builtin_prefetch(p + 64);
      __builtin_prefetch(p + 128);
      __builtin_prefetch(&ready_words[mw], 1);
      __builtin_prefetch(m.work(v), 1);
      __builtin_prefetch(m.credits(v));
      return;
    }
    if (stage == Stage::buffer) {  // the source queue's head (a heap block of its own per PE)
      const PeState& s = m.pe(v);
      if (s.injq_head < s.injq.size()) __builtin_prefetch(&s.injq[s.injq_head]);
    }
    std::uint64_t bits = m.work(v)[0] | ready_words[mw].load(std::memory_order_relaxed);
    if (m.buffers_per_node() < 64) bits &= (std::uint64_t{1} << m.buffers_per_node()) - 1;
    prefetch_inputs(&m.peer_buffer(v, 0), bits,
                    stage == Stage::buffer ? InputStage::buffer : stage == Stage::ring ? InputStage::ring : InputStage::slot);
  }

  /// One run of a scheduled block: up to 8 rounds over its pending nodes, then yield (post it
  /// again) if work remains.
  template <class T>
  void run_block(const T& t, std::size_t b) {
    AsyncBlock& blk = blocks[b];
    thread_local std::vector<std::uint64_t> blocked;
    thread_local std::vector<std::pair<node_t, std::uint32_t>> notes;
    blocked.resize(m.mask_words());
    notes.clear();
    const int slot = tbb::this_task_arena::current_thread_index();
    if (slot < 0 || static_cast<std::size_t>(slot) >= m.thread_stats().size()) std::abort();  // broken invariant
    TaskCtx tc{b, 0, m.thread_stats()[static_cast<std::size_t>(slot)], blocked, notes};
    const node_t first = static_cast<node_t>(b << block_shift);
    // A stop request (rica/interrupt.hpp; one process only: other ranks would wait for this one)
    // idles the block without running it, its pending bits kept: every block goes idle within
    // one round of each worker, `outstanding` reaches zero and the driver ends the run. One relaxed
    // load per block run, not per hop.
    if constexpr (std::is_same_v<Own, AllNodes>) {
      if (interrupt_requested()) {
        blk.scheduled.store(0, std::memory_order_seq_cst);
        block_idle();
        return;
      }
    }
    for (int round = 0; round < 8; ++round) {
      std::uint64_t mask = tc.local | blk.pending.exchange(0, std::memory_order_seq_cst);
      tc.local = 0;
      if (mask == 0) {
        blk.scheduled.store(0, std::memory_order_seq_cst);
        if (blk.pending.load(std::memory_order_seq_cst) == 0 || blk.scheduled.exchange(1) != 0) {
          block_idle();
          return;
        }
        continue;
      }
      // This round's nodes in order, each step overlapping the fetch of the next ones' state.
      unsigned order[64], n = 0;
      for (; mask; mask &= mask - 1) order[n++] = static_cast<unsigned>(std::countr_zero(mask));
      const auto step_at = [&](std::size_t j) {
        if (step_pe(t, first + order[j], tc)) tc.local |= std::uint64_t{1} << order[j];
      };
      if (deep)
        run_staged(n, ahead, [&](std::size_t j, std::size_t stage) { prefetch_node(first + order[j], stage); }, step_at);
      else  // the buffers fit in the caches: the next node's state only
        run_staged(n, std::array<std::size_t, 1>{1}, [&](std::size_t j, std::size_t) {
          __builtin_prefetch(&m.pe(first + order[j]));
        }, step_at);
    }
    // Still busy after several rounds: yield to other blocks (posted again), stay scheduled.
    if (tc.local) blk.pending.fetch_or(tc.local, std::memory_order_seq_cst);
    sched.post(b);
  }
};

/// The async engine over MPI ranks (runtime/machine/driver_mpi_async.cpp; m.ranks() set): the
/// async driver's entry point hands a machine spread over ranks to it.
void drive_mpi_async(Machine& m, RunStats& st);

}  // namespace rica::detail
