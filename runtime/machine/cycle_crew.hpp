#pragma once
// The cycle driver's stepping crew: the main thread and `helpers` long-running oneTBB tasks that
// step the chunks of every cycle, with no fork, join or sleep per cycle (a oneTBB parallel_for per
// cycle let its workers fall asleep between cycles, and waking them cost a futex round trip each
// cycle). Between cycles the helpers spin briefly on the cycle's generation number, then sleep on
// it (a futex) until the next cycle or stop().
//
// Protocol, per generation g (one cycle): the main thread resets the done count and publishes g;
// each thread (the main thread too) claims chunks, its own first, then any left, by raising the
// chunk's claim from below g to g with one compare-exchange, so every chunk runs exactly once per
// generation. Thread t owns the chunks [t C / T, (t + 1) C / T) of C chunks and T threads (the same
// nodes on the same core from cycle to cycle), runs them in ascending order, then takes what is
// left of the others' from their ends: a thread slowed down (a busy core, docs/runtime.md) loses
// the tail of its share to the one that finished, instead of holding up the cycle; a helper still in an older generation can claim nothing (every chunk of its
// generation was claimed before the main thread went on). The main thread returns from run_all()
// once every chunk reported done. A helper that never got a thread only means the main thread
// steps its chunks too: nothing waits for a particular helper, except stop().
//
// Contracts: start(), run_all() and stop() on the main thread only; what the main thread did
// before run_all() happens before every chunk run of that generation (release / acquire on the
// generation), and every chunk run before run_all() returns (release / acquire on the done count).
// run_chunk(k) must not throw.
#include <oneapi/tbb/task_arena.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>

#include "spin.hpp"
#include "tsan.hpp"

namespace rica::detail {

class CycleCrew {
 public:
  CycleCrew() = default;
  CycleCrew(const CycleCrew&) = delete;
  CycleCrew& operator=(const CycleCrew&) = delete;
  ~CycleCrew() { stop(); }

  /// `chunks` chunks per generation (at least 1), run by run_chunk(k), shared by `helpers` tasks
  /// enqueued in `arena` (which must outlive stop()) and the main thread.
  void start(tbb::task_arena& arena, unsigned chunks, unsigned helpers, std::function<void(unsigned)> run_chunk) {
    chunks_ = chunks ? chunks : 1;
    threads_ = helpers + 1;
    run_ = std::move(run_chunk);
    claimed_ = std::make_unique<Claim[]>(chunks_);
    helpers_ = helpers;
    tsan_release(&tsan_start_);  // the set-up above happens before every helper (through oneTBB)
    // The task's closure is written inside enqueue(), after the release, and handed over by
    // oneTBB (uninstrumented): its one read is left out of ThreadSanitizer's view, and everything
    // the helper does follows the acquire, in helper_main().
    for (unsigned i = 0; i < helpers_; ++i)
      arena.enqueue([this]() __attribute__((no_sanitize("thread"))) {
        tsan_acquire(&tsan_start_);
        helper_main(this);
      });
  }

  /// Main thread: one generation — every chunk runs once — then returns.
  void run_all() {
    done_.store(0, std::memory_order_relaxed);
    const std::uint64_t g = gen_.fetch_add(1, std::memory_order_seq_cst) + 1;  // seq_cst: Dekker with help()
    if (sleepers_.load(std::memory_order_seq_cst) != 0) gen_.notify_all();
    work(0, g);
    for (unsigned spin = 0; done_.load(std::memory_order_acquire) < chunks_; ++spin)
      if (spin < 4096)
        spin_pause();
      else
        std::this_thread::yield();  // a helper was descheduled mid-chunk (an oversubscribed host)
  }

  /// Main thread: every helper returns; waits until each has (each runs, sooner or later: the
  /// arena has a slot for it). Idempotent.
  void stop() {
    if (helpers_ == 0) return;
    stop_.store(true, std::memory_order_seq_cst);
    gen_.fetch_add(1, std::memory_order_seq_cst);
    gen_.notify_all();
    while (exited_.load(std::memory_order_acquire) < helpers_) std::this_thread::yield();
    helpers_ = 0;
  }

 private:
  struct alignas(64) Claim {
    std::atomic<std::uint64_t> gen{0};  ///< the last generation that claimed this chunk
  };
  /// Claims chunk k for generation g and runs it; false if another thread claimed it first.
  bool claim(unsigned k, std::uint64_t g) {
    std::uint64_t c = claimed_[k].gen.load(std::memory_order_relaxed);
    if (c >= g || !claimed_[k].gen.compare_exchange_strong(c, g, std::memory_order_acq_rel)) return false;
    run_(k);
    done_.fetch_add(1, std::memory_order_release);
    return true;
  }
  /// Claims and runs the chunks of generation g still unclaimed: thread id's own share in order,
  /// then the other threads' shares, each from its end (where its owner comes last).
  void work(unsigned id, std::uint64_t g) {
    const unsigned t = id % threads_;
    for (unsigned k = first(t); k < first(t + 1); ++k) claim(k, g);
    for (unsigned j = 1; j < threads_; ++j) {
      const unsigned o = (t + j) % threads_;
      for (unsigned k = first(o + 1); k-- > first(o);)
        if (!claim(k, g)) break;  // its owner got this far: the rest of its share is claimed
    }
  }
  /// The first chunk of thread t's share.
  unsigned first(unsigned t) const noexcept {
    return static_cast<unsigned>(std::uint64_t{chunks_} * t / threads_);
  }
  [[gnu::noinline]] static void helper_main(CycleCrew* crew) {
    crew->help(crew->next_id_.fetch_add(1, std::memory_order_relaxed) + 1);
    crew->exited_.fetch_add(1, std::memory_order_release);
  }
  /// A helper's loop: each new generation's chunks until stop().
  void help(unsigned id) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t g = gen_.load(std::memory_order_acquire);
      for (unsigned spin = 0; g == seen && spin < 8192; ++spin) {  // the next cycle is usually microseconds away
        spin_pause();
        g = gen_.load(std::memory_order_acquire);
      }
      if (g == seen) {
        sleepers_.fetch_add(1, std::memory_order_seq_cst);
        if (gen_.load(std::memory_order_seq_cst) == seen) gen_.wait(seen, std::memory_order_seq_cst);
        sleepers_.fetch_sub(1, std::memory_order_seq_cst);
        continue;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      seen = g;
      work(id, g);
    }
  }

  unsigned chunks_ = 1, helpers_ = 0, threads_ = 1;
  std::function<void(unsigned)> run_;
  std::unique_ptr<Claim[]> claimed_;
  std::atomic<unsigned> next_id_{0};
  alignas(64) std::atomic<std::uint64_t> gen_{0};
  alignas(64) std::atomic<unsigned> done_{0};
  alignas(64) std::atomic<unsigned> sleepers_{0};
  std::atomic<unsigned> exited_{0};
  std::atomic<bool> stop_{false};
  /// ThreadSanitizer's start edge (runtime/machine/tsan.hpp): released by start() only, acquired by each
  /// helper first; no helper releases it, so helpers are ordered only by the atomics above.
  char tsan_start_ = 0;
};

}  // namespace rica::detail
