// The async driver in one process: PEs as lightweight units of work run in blocks by oneTBB workers,
// real time, real concurrency. Scheduling, the step of a node and the block scheduler are the async
// core's (runtime/machine/async_core.hpp, shared with the driver over MPI ranks); this file adds the start
// and the end of a run.
//
// Termination: the number of scheduled blocks is zero only when no PE has work, and it stays zero
// (blocks are scheduled only by workers running blocks, or by the main thread before the start).
// At that point the main thread reads every PE's state: either the application is done and the
// network empty, or packets remain that nothing can move — a deadlock, reported with the full
// buffers and the waiting cycle.
//
// Observers (rica/observer.hpp) with windows of W microseconds: stop the world. When a window is
// due the main thread pauses the block scheduler (every worker parks between two blocks), reads
// the machine through the MachineView, and resumes; the run's clock stands still over the pause
// (RunClock::skip), so packets in flight are not charged for it. Without observers the main
// thread only waits, as before, and a worker's cost is one relaxed load per block it takes.
#include "async_core.hpp"
#include "driver_registry.hpp"
#include "run_frame.hpp"
#include "rica/interrupt.hpp"

namespace rica::detail {

struct AsyncDriver : AsyncCore<AllNodes> {
  explicit AsyncDriver(Machine& mm) : AsyncCore<AllNodes>(mm, AllNodes{}) {}

  template <class T>
  void run(const T& t, RunStats& st) {
    const EngineConfig& cfg = m.config();
    RunFrame frame(m, RunFrame::Main::monitors);
    arena = &frame.arena();
    start_workers(t, frame.threads());
    m.clock().start();
    frame.start_clock(m.clock().origin());
    start_pes();
    Progress progress_line("packets delivered", m.expected_sends(), !cfg.progress, false);
    auto last_print = std::chrono::steady_clock::now();
    std::uint64_t progress_at_kick = ~std::uint64_t{0};
    obs_from.assign(m.observers().size(), 0);
    while (true) {
      while (!wait_quiet(wait_for())) {
        if (progress_line.enabled() && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
          last_print = std::chrono::steady_clock::now();
          progress_line.update(m.delivered_so_far());
        }
        if (!obs_from.empty()) observe(false);
      }
      // Quiescent: no task runs or is queued, so every PE's state is ours to read. Done, or are
      // packets left? Wake every node that holds packets once: a wake-up lost to the unfenced race
      // in LinkBuffer::pop_and_check is recovered here; if nothing moves after that, it's a deadlock.
      // Stopped from outside (rica/interrupt.hpp): the blocks went idle without running; Machine's
      // run throws `interrupted` and collects nothing.
      if (interrupt_requested()) break;
      std::uint64_t progress = 0;
      for (const ThreadStats& ts : m.thread_stats()) progress += ts.hops + ts.delivered;
      if (!m.packets_left() || progress == progress_at_kick) break;
      if (!obs_from.empty()) observe(false);
      progress_at_kick = progress;
      kick();
    }
    if (!obs_from.empty()) observe(true);  // quiescent: the last windows, no pause needed
    frame.stop_clock(st);
    progress_line.finish();
    stop_workers();
    frame.arena().terminate();
    arena = nullptr;
  }

  /// Where each observer's current window began (ns of the run's clock).
  std::vector<std::uint64_t> obs_from;
  /// An observer's window in ns (its window() is in microseconds on this engine).
  static std::uint64_t window_ns(const Observer& o) noexcept { return o.window() * 1000; }
  /// How long the main thread may wait for quiescence: up to the next window's end, at most 250 ms.
  std::chrono::nanoseconds wait_for() const {
    std::uint64_t wait = 250'000'000;
    if (!obs_from.empty()) {
      const std::uint64_t now = m.clock().now();
      const Observers obs = m.observers();
      for (std::size_t k = 0; k < obs.size(); ++k) {
        const std::uint64_t due = obs_from[k] + window_ns(*obs[k]);
        wait = std::min(wait, due > now ? due - now : 0);
      }
    }
    return std::chrono::nanoseconds(wait);
  }
  /// Every observer whose window has ended sees the machine: the world stopped for the reads
  /// (BlockScheduler::pause) unless `quiet` (no block is scheduled, the run over). `end` is the
  /// clock's time when the workers were parked; the clock skips the pause.
  void observe(bool quiet) {
    const Observers obs = m.observers();
    std::uint64_t now = m.clock().now();
    bool due = quiet;
    for (std::size_t k = 0; k < obs.size() && !due; ++k) due = now >= obs_from[k] + window_ns(*obs[k]);
    if (!due) return;
    const auto asked = std::chrono::steady_clock::now();
    if (!quiet) sched.pause();
    const auto stopped = std::chrono::steady_clock::now();
    now = m.clock().now();
    for (std::size_t k = 0; k < obs.size(); ++k)
      if (quiet ? now > obs_from[k] : now >= obs_from[k] + window_ns(*obs[k])) {
        obs[k]->on_window(MachineView(m, now), obs_from[k], now);
        obs_from[k] = now;
      }
    // The stop, timed: from asking the workers to park until they are let go (the waking itself
    // is the OS's: a futex wake per worker, after this).
    const auto released = std::chrono::steady_clock::now();
    if (!quiet) {
      m.clock().skip(static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(released - stopped).count()));
      sched.resume();
    }
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(released - asked);
    for (Observer* o : obs) o->on_stopped(static_cast<std::uint64_t>(ns.count()));
  }
};

namespace {
void drive_async(Machine& m, RunStats& st) {
  if (m.ranks()) {  // under mpirun (EngineTraits::over_ranks)
    drive_mpi_async(m, st);
    return;
  }
  AsyncDriver d(m);
  // --routing adaptive, valiant, ugal-l, ugal-g, par: the driver runs on Routed<T, R> (Machine::plan).
  visit_routed(m.topology(), m.config().routing, [&](const auto& t) { d.run(t, st); }, m.config().seed);
}

}  // namespace

/// The async engine's entry in the driver registry (rica_engine(async ...) in CMakeLists.txt).
const DriverEntry& builtin_driver_async() {
  static const DriverEntry e{{"async", "real threads, real time, ns", {.windows = true, .over_ranks = true}, 0},
                             drive_async};
  return e;
}

}  // namespace rica::detail
