#pragma once
// The async engine's block scheduler: which worker runs which scheduled block (runtime/machine/async_core.hpp
// decides when a block is scheduled). Block affinity: worker w owns a contiguous range of blocks
// and runs those first, in round-robin order, so a hop between two nodes of its range stays in its
// core's cache; a worker whose range has nothing scheduled takes one block of another's range
// (stealing), so no scheduled block waits while a worker idles. A worker with nothing to run
// spins briefly, then sleeps on a futex until a block is posted or the scheduler stops.
//
// Each worker's range is one bitmap (bit: block posted and not yet taken) on cache lines of its
// own. post() sets a bit; take/steal clear one with fetch_and, so a posted block is run exactly
// once per post.
//
// Contracts:
//  - the caller posts a block at most once until it is taken (the async core's scheduled flag);
//  - post() and stop() may be called from any thread; work() runs on each worker (oneTBB tasks
//    that loop until stop()); what a thread did before post(b) happens before the run of b
//    (seq_cst read-modify-writes on the bitmap word).
//  - stopping the world between blocks: one thread at a time holds the stop (`pause_`, taken by a
//    compare-exchange): a worker between two blocks (pause_from_worker(), from work()'s `between`)
//    or any other thread (pause()). Either returns holding it once every other worker is parked
//    between two blocks (none runs one), and what every worker did before parking happens before
//    it returns (`parked_`, seq_cst); what the holder does before resume() happens before any
//    worker runs its next block and before the next holder takes the stop (`pause_`, seq_cst). A
//    block runs to its end first, so a stop waits at most one block's run (8 rounds of a block's
//    nodes). Off (never paused), a worker loads one flag per block taken.
//    Waiting (parked, or for the others to park), a thread yields its core for `park_spin` before
//    it sleeps on a futex: a stop is usually shorter (~0.1 ms on 1K nodes), and a worker that
//    slept through one came back 0.2 - 5 ms after resume() (the OS's wake-up), which was most of a
//    window's cost when the driver's main thread stopped the world (docs/runtime.md "Async
//    windows"). Yielding, not spinning: two workers may share a core (a loaded host, or more
//    workers than cores), and a spinning holder kept the worker it waited for off its core (1.4 -
//    1.8 ms a stop against 60 - 120 us yielding); on an idle core a yield returns at once.
#include <atomic>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "spin.hpp"
#include "tsan.hpp"

namespace rica::detail {

class BlockScheduler {
 public:
  /// `blocks` blocks over `workers` workers (at least 1). Not while workers run.
  void init(std::size_t blocks, unsigned workers) {
    workers_ = workers ? workers : 1;
    first_.assign(workers_ + 1, 0);
    base_.assign(workers_ + 1, 0);
    for (unsigned w = 0; w <= workers_; ++w) first_[w] = blocks * w / workers_;
    std::size_t words = 0;
    for (unsigned w = 0; w < workers_; ++w) {
      base_[w] = words;
      const std::size_t n = (first_[w + 1] - first_[w] + 63) / 64;
      words += (n + 7) / 8 * 8;  // a worker's words start on a cache line of their own
    }
    base_[workers_] = words;
    lines_ = std::make_unique<Line[]>(words / 8 + 1);
    owner_.resize(blocks);
    for (unsigned w = 0; w < workers_; ++w)
      for (std::size_t b = first_[w]; b < first_[w + 1]; ++b) owner_[b] = w;
    next_id_.store(0);
    stop_.store(false);
    sleepers_.store(0);
    pause_.store(false);
    parked_.store(0);
    active_.store(0);
  }
  unsigned workers() const noexcept { return workers_; }

  /// Block b is to be run (by its owner, or a thief). Any thread.
  void post(std::size_t b) {
    const unsigned w = owner_[b];
    const std::size_t k = b - first_[w];
    std::atomic<std::uint64_t>& wd = word(base_[w] + k / 64);
    tsan_release(&wd);
    wd.fetch_or(std::uint64_t{1} << (k % 64), std::memory_order_seq_cst);
    if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_all();
  }
  /// Makes every worker's work() return once it finishes the block it runs. Any thread.
  void stop() {
    stop_.store(true, std::memory_order_seq_cst);
    wake_all();
  }

  /// Takes the stop (waiting while a worker holds it) and parks every worker between two blocks;
  /// returns when all are parked. Any thread but a worker inside work() (a worker stops the world
  /// with pause_from_worker()); every worker must be in work() (start_workers ran).
  /// Only workers inside work() count: one that has not started yet parks on entering (it loads
  /// pause_ after counting itself in `active_`, both seq_cst, so either this thread sees it
  /// counted or it sees pause_).
  void pause() {
    while (!take_stop()) {  // a worker holds it: wait for its resume()
      const auto until = std::chrono::steady_clock::now() + park_spin;
      while (pause_.load(std::memory_order_seq_cst) && std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      while (pause_.load(std::memory_order_seq_cst)) pause_.wait(true, std::memory_order_seq_cst);
    }
    await_parked(0);
  }
  /// A worker between two blocks (in work()'s `between`): takes the stop and returns true once
  /// every other worker is parked, or returns false at once when another thread holds it (this
  /// worker then parks before its next block).
  bool pause_from_worker() {
    if (!take_stop()) return false;
    await_parked(1);
    return true;
  }
  /// Lets the parked workers go on and gives the stop up. By the thread holding it.
  void resume() {
    pause_.store(false, std::memory_order_seq_cst);
    pause_.notify_all();
  }
  /// How long a parked worker, or a thread waiting for the workers to park, yields its core before
  /// it sleeps on a futex: longer than a stop's reads on a few thousand nodes (docs/runtime.md).
  static constexpr std::chrono::microseconds park_spin{1000};
  /// work()'s default `between`: nothing.
  struct Nothing {
    void operator()() const noexcept {}
  };

  /// A worker's loop: runs posted blocks (`run(b)`) until stop(), and `between()` after each
  /// block (it may stop the world: pause_from_worker()). Called once by each worker.
  template <class Run, class Between = Nothing>
  void work(Run&& run, Between&& between = Nothing{}) {
    const unsigned id = next_id_.fetch_add(1) % workers_;
    std::size_t cursor = first_[id];
    active_.fetch_add(1, std::memory_order_seq_cst);
    struct Leave {
      std::atomic<unsigned>& a;
      ~Leave() { a.fetch_sub(1, std::memory_order_seq_cst); }
    } leave{active_};
    for (;;) {
      if (pause_.load(std::memory_order_seq_cst)) [[unlikely]] {  // a plain load on x86
        park();
        continue;
      }
      std::size_t b;
      if (take(id, cursor, b) || steal(id, b)) {
        run(b);
        between();
        continue;
      }
      if (stop_.load(std::memory_order_acquire)) return;
      // Nothing posted: spin a little (a post usually follows soon under load), then sleep.
      bool found = false;
      for (int spin = 0; spin < 256 && !found; ++spin) {
        spin_pause();
        found = any_posted();
      }
      if (found) continue;
      sleepers_.fetch_add(1, std::memory_order_seq_cst);
      const std::uint32_t e = epoch_.load(std::memory_order_seq_cst);
      if (!any_posted() && !stop_.load(std::memory_order_seq_cst) && !pause_.load(std::memory_order_seq_cst))
        epoch_.wait(e, std::memory_order_seq_cst);  // pause(): sees sleepers_, or this thread sees pause_
      sleepers_.fetch_sub(1, std::memory_order_seq_cst);
    }
  }

 private:
  struct alignas(64) Line {
    std::atomic<std::uint64_t> w[8] = {};
  };
  std::atomic<std::uint64_t>& word(std::size_t i) const noexcept { return lines_[i / 8].w[i % 8]; }
  void wake_all() {
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    epoch_.notify_all();
  }
  /// The stop, free (pause_ false), taken by this thread; what its last holder did before
  /// resume() happens before (the compare-exchange reads resume()'s store).
  bool take_stop() {
    bool free = false;
    return pause_.compare_exchange_strong(free, true, std::memory_order_seq_cst);
  }
  /// The holder of the stop: returns once every worker inside work() but `self` (1: the holder is
  /// one of them) is parked. A sleeping worker is woken to park: one about to sleep counts itself
  /// in sleepers_ before it loads pause_ (both seq_cst, as in post()), so this thread sees it or
  /// it sees pause_. Yields its core for park_spin (the worker it waits for may share it), then
  /// sleeps.
  void await_parked(unsigned self) {
    if (sleepers_.load(std::memory_order_seq_cst) != 0) wake_all();
    const auto until = std::chrono::steady_clock::now() + park_spin;
    for (;;) {
      const unsigned n = parked_.load(std::memory_order_seq_cst);
      if (n + self >= active_.load(std::memory_order_seq_cst)) return;
      if (std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      else
        parked_.wait(n, std::memory_order_seq_cst);
    }
  }
  /// A worker between blocks while pause_ is set: counted as parked until resume(). Yields its
  /// core for park_spin (the holder may share it), then sleeps on pause_.
  void park() {
    if (!pause_.load(std::memory_order_seq_cst)) return;
    parked_.fetch_add(1, std::memory_order_seq_cst);  // releases this worker's writes to the holder
    parked_.notify_all();
    const auto until = std::chrono::steady_clock::now() + park_spin;
    while (pause_.load(std::memory_order_seq_cst))
      if (std::chrono::steady_clock::now() < until)
        std::this_thread::yield();
      else
        pause_.wait(true, std::memory_order_seq_cst);
    parked_.fetch_sub(1, std::memory_order_seq_cst);  // acquired resume()'s writes through pause_
  }
  bool any_posted() const noexcept {
    for (std::size_t i = 0; i < base_[workers_]; ++i)
      if (word(i).load(std::memory_order_relaxed) != 0) return true;
    return false;
  }
  /// Claims bit k of worker w's range (w's word i): true if this thread cleared it.
  bool claim(unsigned w, std::size_t k, std::size_t& b) {
    std::atomic<std::uint64_t>& wd = word(base_[w] + k / 64);
    const std::uint64_t bit = std::uint64_t{1} << (k % 64);
    if (!(wd.fetch_and(~bit, std::memory_order_seq_cst) & bit)) return false;
    tsan_acquire(&wd);
    b = first_[w] + k;
    return true;
  }
  /// The first posted block of worker `id`'s own range at or after `cursor` (cyclically).
  bool take(unsigned id, std::size_t& cursor, std::size_t& b) {
    const std::size_t n = first_[id + 1] - first_[id];
    if (n == 0) return false;
    const std::size_t words = (n + 63) / 64, start = cursor - first_[id];
    for (std::size_t j = 0; j <= words; ++j) {
      const std::size_t i = (start / 64 + j) % words;
      std::uint64_t bits = word(base_[id] + i).load(std::memory_order_relaxed);
      if (j == 0) bits &= ~std::uint64_t{0} << (start % 64);  // below the cursor: on the wrap
      for (; bits; bits &= bits - 1) {
        const std::size_t k = i * 64 + static_cast<std::size_t>(std::countr_zero(bits));
        if (claim(id, k, b)) {
          cursor = b + 1 < first_[id + 1] ? b + 1 : first_[id];
          return true;
        }
      }
    }
    return false;
  }
  /// One posted block of another worker's range.
  bool steal(unsigned id, std::size_t& b) {
    for (unsigned d = 1; d < workers_; ++d) {
      const unsigned w = (id + d) % workers_;
      for (std::size_t i = base_[w]; i < base_[w + 1]; ++i)
        for (std::uint64_t bits = word(i).load(std::memory_order_relaxed); bits; bits &= bits - 1)
          if (claim(w, (i - base_[w]) * 64 + static_cast<std::size_t>(std::countr_zero(bits)), b)) return true;
    }
    return false;
  }

  unsigned workers_ = 1;
  std::vector<std::size_t> first_;  ///< [w]: worker w's first block; [workers]: the block count
  std::vector<std::size_t> base_;   ///< [w]: worker w's first bitmap word; [workers]: all words
  std::unique_ptr<Line[]> lines_;  ///< the bitmap words, 8 per cache line
  std::vector<std::uint32_t> owner_;  ///< [block]: its worker
  std::atomic<unsigned> next_id_{0};
  alignas(64) std::atomic<bool> stop_{false};
  alignas(64) std::atomic<std::uint32_t> sleepers_{0};
  alignas(64) std::atomic<std::uint32_t> epoch_{0};
  alignas(64) std::atomic<bool> pause_{false};       ///< the stop is held (take_stop() .. resume())
  alignas(64) std::atomic<unsigned> parked_{0};      ///< workers in park() now
  alignas(64) std::atomic<unsigned> active_{0};      ///< workers inside work() now
};

}  // namespace rica::detail
