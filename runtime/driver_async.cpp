// The async driver: PEs as lightweight units of work scheduled by oneTBB in blocks, real time,
// real concurrency. It decides only order; every packet moves through Machine's hop kernel.
//
// Scheduling (spec/performance-notes.md): PEs are grouped in blocks of `block` consecutive PEs.
// A block has an atomic pending mask (bit i: PE i of the block has work) and a scheduled flag;
// one task per active block runs its pending PEs, each for a bounded batch of packet moves, and
// re-enqueues itself while work remains. A PE belongs to one block and a block runs on one task
// at a time, so a PE never runs on two threads at once. A PE whose every head packet is blocked
// sleeps (no pending bit) until the downstream consumer frees room and wakes it.
//
// Termination: the number of outstanding block tasks is zero only when no PE has work, and it
// stays zero (tasks are created only by tasks or before the start). At that point the main thread
// reads every PE's state: either the application is done and the network empty, or packets remain
// that nothing can move — a deadlock, reported with the full buffers and the waiting cycle.
#include "machine.hpp"
#include "tsan.hpp"

namespace rica::detail {

struct alignas(64) Block {
  std::atomic<std::uint64_t> pending{0};
  std::atomic<std::uint32_t> scheduled{0};
};

struct AsyncDriver {
  Machine& m;
  std::vector<Block> blocks;
  unsigned block_shift = 6;
  node_t block_mask = 63;
  std::atomic<std::int64_t> outstanding{0};
  tbb::task_arena* arena = nullptr;
  std::function<void(std::size_t)> block_runner;  // runs one block task (set by run<T>)

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

  /// The hop kernel's driver policy: no timing (real time); a pop may owe the upstream producer
  /// a wake-up; a push is announced at the end of the activation.
  struct Policy {
    AsyncDriver& d;
    TaskCtx& tc;
    void popped(node_t v, std::uint32_t i, unsigned /*words*/, bool wake) {
      if (wake) d.signal(d.m.pe_[v].upstream[i / d.m.classes_], tc);
    }
    void stamp(Packet&, const Packet&, node_t, port_t) const noexcept {}
    void pushed(node_t peer, std::uint32_t in) { tc.notes.emplace_back(peer, in); }
  };

  explicit AsyncDriver(Machine& mm) : m(mm) {
    block_shift = static_cast<unsigned>(std::countr_zero(m.cfg_.block));
    block_mask = m.cfg_.block - 1;
    blocks = std::vector<Block>((m.nodes_ + m.cfg_.block - 1) / m.cfg_.block);
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
  void enqueue_block(std::size_t b) {
    outstanding.fetch_add(1, std::memory_order_relaxed);
    tsan_release(&tsan_token);
    arena->enqueue([this, b] {
      tsan_acquire(&tsan_token);
      block_runner(b);
    });
  }

  /// One activation of node v: an injection opportunity, then up to `batch` packet moves, taking
  /// the inputs (and the source queue) round robin, one head packet per input per pass.
  /// Returns true when v still has work that does not wait for a wake-up.
  template <class T>
  bool step_pe(const T& t, node_t v, TaskCtx& tc) {
    PeState& s = m.pe_[v];
    ThreadStats& ts = tc.ts;
    const bool is_pe = v < m.pes_;
    if (is_pe) m.app_turn(s, v, true);
    const std::uint32_t n_buf = m.n_buf_;
    const std::uint32_t n_in = n_buf + 1;  // the last "input" is the source queue
    std::fill(tc.skip.begin(), tc.skip.begin() + n_in, 0);
    for (std::uint32_t w = 0; w < m.mask_words_; ++w) s.work[w] |= s.ready[w].exchange(0, std::memory_order_acquire);
    auto has_work = [&](std::uint32_t i) { return (s.work[i >> 6] >> (i & 63)) & 1u; };
    auto drop_work = [&](std::uint32_t i) { s.work[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); };
    Policy pol{*this, tc};
    unsigned moves = 0;
    const unsigned batch = m.cfg_.batch;
    while (moves < batch) {
      bool progressed = false;
      for (std::uint32_t k = 0; k < n_in && moves < batch; ++k) {
        std::uint32_t idx = s.rr + k;
        if (idx >= n_in) idx -= n_in;
        if (tc.skip[idx]) continue;
        if (idx < n_buf) {
          if (!has_work(idx)) continue;
          if (s.inputs[idx].empty()) {
            drop_work(idx);
            continue;
          }
        } else if (s.injq_head == s.injq.size()) {
          continue;
        }
        const Packet& head = m.head(s, idx);
        const HopPlan h = m.plan(t, v, head);
        if (h.delivers) {
          m.deliver_head(s, v, idx, ts, pol);
        } else {
          LinkBuffer& dst = m.buffer(h.peer, h.in);
          LinkBuffer::Credit& cr = s.credits[h.out];
          if (!dst.fits(cr, head.words)) {
            ++s.blocked;
            if (!dst.wait_for_room(cr, head.words)) {  // sleeps on this head until woken
              tc.skip[idx] = 1;
              continue;
            }
          }
          m.move(s, v, idx, h, ts, pol);
        }
        ++moves;
        progressed = true;
      }
      s.rr = (s.rr + 1) % n_in;
      if (!progressed) break;
    }
    // If the batch ran out, packets may still move: stay scheduled. Otherwise every input was tried
    // until nothing moved, so what is left waits for a wake-up (room downstream, a new arrival).
    const bool more = moves >= batch;
    for (const auto& [peer, in] : tc.notes) {
      const std::uint64_t bit = std::uint64_t{1} << (in & 63);
      auto& word = m.pe_[peer].ready[in >> 6];
      if (word.fetch_or(bit, std::memory_order_acq_rel) == 0) signal(peer, tc);
    }
    tc.notes.clear();
    // A generating PE whose source-queue head is blocked sleeps too (woken with the room).
    return more || (is_pe && s.generating && s.injq_head == s.injq.size());
  }

  template <class T>
  void run_block(const T& t, std::size_t b) {
    Block& blk = blocks[b];
    thread_local std::vector<std::uint8_t> skip;
    thread_local std::vector<std::pair<node_t, std::uint32_t>> notes;
    skip.resize(std::size_t{m.n_buf_} + 1);
    notes.clear();
    const int slot = tbb::this_task_arena::current_thread_index();
    if (slot < 0 || static_cast<std::size_t>(slot) >= m.tstats_.size()) std::abort();  // broken invariant
    TaskCtx tc{b, 0, m.tstats_[static_cast<std::size_t>(slot)], skip, notes};
    const node_t first = static_cast<node_t>(b << block_shift);
    for (int round = 0; round < 8; ++round) {
      std::uint64_t mask = tc.local | blk.pending.exchange(0, std::memory_order_seq_cst);
      tc.local = 0;
      if (mask == 0) {
        blk.scheduled.store(0, std::memory_order_seq_cst);
        if (blk.pending.load(std::memory_order_seq_cst) == 0 || blk.scheduled.exchange(1) != 0) {
          outstanding.fetch_sub(1, std::memory_order_release);
          return;
        }
        continue;
      }
      while (mask) {
        const unsigned i = static_cast<unsigned>(std::countr_zero(mask));
        mask &= mask - 1;
        if (step_pe(t, first + i, tc)) tc.local |= std::uint64_t{1} << i;
      }
    }
    // Still busy after several rounds: yield to other blocks (FIFO re-enqueue), stay scheduled.
    if (tc.local) blk.pending.fetch_or(tc.local, std::memory_order_seq_cst);
    outstanding.fetch_add(1, std::memory_order_relaxed);
    tsan_release(&tsan_token);
    arena->enqueue([this, b] {
      tsan_acquire(&tsan_token);
      block_runner(b);
    });
    outstanding.fetch_sub(1, std::memory_order_release);
  }

  template <class T>
  void run(const T& t, RunStats& st) {
    const EngineConfig& cfg = m.cfg_;
    const unsigned threads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
    // Workers only (the main thread monitors); allow that many TBB workers process-wide.
    tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads + 1);
    tbb::task_arena local_arena(static_cast<int>(threads), 0);
    // Arena slot indices run up to max_concurrency (slot 0 may be a master slot even when none is
    // reserved): one ThreadStats per possible slot.
    m.make_thread_stats(static_cast<std::size_t>(threads) + 1);
    for (ThreadStats& ts : m.tstats_) ts.job.assign(m.jobs_.size(), {});
    arena = &local_arena;
    block_runner = [this, &t](std::size_t b) { run_block(t, b); };
    m.clock_.start();
    const auto t0 = m.clock_.origin();
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      const node_t first = static_cast<node_t>(b * cfg.block);
      const node_t last = std::min<node_t>(m.pes_, static_cast<node_t>(first + cfg.block));
      if (first >= m.pes_) break;
      const unsigned n = last - first;
      // Workers already run and may have scheduled this block: use the same protocol as signal().
      blocks[b].pending.fetch_or(n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1));
      if (blocks[b].scheduled.exchange(1) == 0) enqueue_block(b);  // else a running task has it
    }
    std::uint64_t expected = 0;  // packets the applications will send, if they know (progress total)
    for (const JobRt& j : m.jobs_) expected += j.app->max_sends_per_pe() * j.size;
    Progress progress_line("packets delivered", expected, !cfg.progress, false);
    auto last_print = std::chrono::steady_clock::now();
    std::uint64_t progress_at_kick = ~std::uint64_t{0};
    while (true) {
      unsigned spin = 0;
      while (outstanding.load(std::memory_order_acquire) != 0) {
        if (++spin < 100) {
          std::this_thread::yield();
          continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        if (progress_line.enabled() && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
          last_print = std::chrono::steady_clock::now();
          std::uint64_t d = 0;
          for (node_t v = 0; v < m.pes_; ++v) d += m.pe_[v].delivered_now.load(std::memory_order_relaxed);
          progress_line.update(d);
        }
      }
      // Quiescent: no task runs or is queued, so every PE's state is ours to read. Done, or are
      // packets left? Wake every node that holds packets once: a wake-up lost to the unfenced race
      // in LinkBuffer::pop_and_check is recovered here; if nothing moves after that, it's a deadlock.
      std::uint64_t progress = 0;
      for (const ThreadStats& ts : m.tstats_) progress += ts.hops + ts.delivered;
      bool left = false;
      std::vector<std::uint64_t> wake(blocks.size(), 0);
      for (node_t v = 0; v < m.nodes_; ++v) {
        const PeState& q = m.pe_[v];
        bool has = q.injq_head != q.injq.size();
        for (std::uint32_t i = 0; i < m.n_buf_ && !has; ++i) has = !q.inputs[i].empty();
        if (has) {
          left = true;
          wake[v >> block_shift] |= std::uint64_t{1} << (v & block_mask);
        }
      }
      if (!left || progress == progress_at_kick) break;
      progress_at_kick = progress;
      for (std::size_t b = 0; b < blocks.size(); ++b)
        if (wake[b]) signal_remote(b, wake[b]);
    }
    const auto t1 = std::chrono::steady_clock::now();
    progress_line.finish();
    st.wall_s = std::chrono::duration<double>(t1 - t0).count();
    local_arena.terminate();
    arena = nullptr;
  }
};

void drive_async(Machine& m, RunStats& st) {
  AsyncDriver d(m);
  // --routing adaptive: the driver runs on Routed<T, R> (the hop kernel selects among candidates).
  visit_routed(m.topology(), m.config().routing, [&](const auto& t) { d.run(t, st); });
}

}  // namespace rica::detail
