#pragma once
// The run frame: what every driver's run has around its loop, defined once (the async driver, the
// cycle driver and the async driver over MPI ranks): the worker count, oneTBB's parallelism limit
// and the arena, one ThreadStats per arena slot with per-job figures, and the wall clock.
//
// Ownership: a frame lives for one call of a driver's run (the cycle driver calls run twice around
// dynamic faults: the thread statistics are made by the first frame only and kept by the machine).
// Thread safety: constructed and destroyed by the main thread; the arena's workers are the
// driver's business.
#include <chrono>
#include <thread>

#include "machine.hpp"

namespace rica::detail {

class RunFrame {
 public:
  /// Who runs node steps: the workers only while the main thread monitors (async engines), or the
  /// main thread too, in the arena (the cycle engine's barrier loop).
  enum class Main { monitors, steps };

  /// `fresh`: make the machine's thread statistics (false: keep those of an earlier frame).
  RunFrame(Machine& m, Main main, bool fresh = true)
      : threads_(m.config().threads ? m.config().threads : std::max(1u, std::thread::hardware_concurrency())),
        // Workers only (the main thread monitors): allow that many oneTBB workers process-wide
        // besides the main thread, and reserve no master slot.
        limit_(tbb::global_control::max_allowed_parallelism, main == Main::monitors ? threads_ + 1 : threads_),
        arena_(static_cast<int>(threads_), main == Main::monitors ? 0u : 1u),
        t0_(std::chrono::steady_clock::now()) {
    if (!fresh) return;
    // Arena slot indices run up to max_concurrency (slot 0 may be a master slot even when none is
    // reserved): one ThreadStats per possible slot.
    m.make_thread_stats(static_cast<std::size_t>(threads_) + 1);
  }
  RunFrame(const RunFrame&) = delete;
  RunFrame& operator=(const RunFrame&) = delete;

  unsigned threads() const noexcept { return threads_; }
  tbb::task_arena& arena() noexcept { return arena_; }
  /// The wall clock starts now (default: at construction); `origin`: a clock already started.
  void start_clock(std::chrono::steady_clock::time_point origin = std::chrono::steady_clock::now()) { t0_ = origin; }
  /// Adds the wall time since the clock started to st.wall_s.
  void stop_clock(RunStats& st) const {
    st.wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  unsigned threads_;
  tbb::global_control limit_;
  tbb::task_arena arena_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace rica::detail
