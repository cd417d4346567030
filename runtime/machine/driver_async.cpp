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
// Observers (rica/observer.hpp) with windows of W microseconds: stop the world. A worker that
// finishes a block after a window's end takes the stop (BlockScheduler::pause_from_worker: every
// other worker parks between two blocks), reads the machine through the MachineView, and resumes;
// the run's clock stands still over the reads (RunClock::skip), so packets in flight are not
// charged for them. The worker, not the main thread: a stop taken by the main thread needed it
// woken at the window's end and the workers woken after, and those wake-ups, not the reads, were
// most of a window's cost (docs/runtime.md "Async windows"). The main thread stops the world only
// at quiescence (the last windows). Without observers a worker's cost is one relaxed load per
// block it takes (the pause flag) and no check between blocks.
//
// Who touches what: the windows' state (obs_from, next_due's writes, closed, failure) and every
// observer call belong to the thread holding the stop; next_due is read, relaxed, by every worker
// between blocks (a stale value costs one stop that finds nothing due). The run's clock is written
// (skip) by the stop's holder only, while every other worker is parked; the main thread does not
// read it during the run.
#include <exception>

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
    obs_from.assign(m.observers().size(), 0);
    update_due();
    if (obs_from.empty())
      start_workers(t, frame.threads());
    else
      start_workers(t, frame.threads(), [this] { window_check(); });
    m.clock().start();
    frame.start_clock(m.clock().origin());
    start_pes();
    Progress progress_line("packets delivered", m.expected_sends(), !cfg.progress, false);
    auto last_print = std::chrono::steady_clock::now();
    std::uint64_t progress_at_kick = ~std::uint64_t{0};
    while (true) {
      while (!wait_quiet(std::chrono::milliseconds(250))) {
        if (progress_line.enabled() && std::chrono::steady_clock::now() - last_print > std::chrono::milliseconds(250)) {
          last_print = std::chrono::steady_clock::now();
          progress_line.update(m.delivered_so_far());
        }
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
    if (!obs_from.empty()) observe(true);  // quiescent: the last windows
    frame.stop_clock(st);
    progress_line.finish();
    stop_workers();
    frame.arena().terminate();
    arena = nullptr;
    if (failure) std::rethrow_exception(failure);  // an observer threw (on a worker, or here)
  }

  /// Where each observer's current window began (ns of the run's clock). The stop's holder's.
  std::vector<std::uint64_t> obs_from;
  /// The earliest end of an observer's window (ns of the run's clock; ~0: none, or closed).
  /// Written by the stop's holder, read relaxed by every worker between two blocks.
  std::atomic<std::uint64_t> next_due{~std::uint64_t{0}};
  /// No more windows (the last ones read, or an observer threw). The stop's holder's.
  bool closed = false;
  /// What an observer threw, rethrown by run() once the workers are stopped.
  std::exception_ptr failure;
  /// An observer's window in ns (its window() is in microseconds on this engine).
  static std::uint64_t window_ns(const Observer& o) noexcept { return o.window() * 1000; }
  /// next_due from obs_from. By the stop's holder (or before the workers start).
  void update_due() {
    std::uint64_t due = ~std::uint64_t{0};
    const Observers obs = m.observers();
    if (!closed)
      for (std::size_t k = 0; k < obs.size(); ++k) due = std::min(due, obs_from[k] + window_ns(*obs[k]));
    next_due.store(due, std::memory_order_relaxed);
  }
  /// A worker between two blocks: if a window has ended, stop the world and read it.
  void window_check() {
    if (m.clock().now() < next_due.load(std::memory_order_relaxed)) return;
    const auto asked = std::chrono::steady_clock::now();
    if (!sched.pause_from_worker()) return;  // another thread holds the stop: this worker parks
    read_windows(false, asked);
    sched.resume();
  }
  /// The main thread at quiescence: the windows due (the run's last ones when `last`), with the
  /// world stopped (no block runs then, but a worker may be between two blocks).
  void observe(bool last) {
    const auto asked = std::chrono::steady_clock::now();
    sched.pause();
    read_windows(last, asked);
    if (last) {
      closed = true;
      update_due();
    }
    sched.resume();
  }
  /// With the stop held: every observer whose window has ended (every one when `last`: the run
  /// is over) sees the machine. `asked`: when the stop was asked for; the clock skips the reads
  /// (not the parking, in which the workers finished their blocks), except at the end. Each stop
  /// that read a window is timed (Observer::on_stopped: asked .. released). An exception from an
  /// observer ends the windows and is rethrown by run().
  void read_windows(bool last, std::chrono::steady_clock::time_point asked) {
    if (closed) return;
    const Observers obs = m.observers();
    const auto stopped = std::chrono::steady_clock::now();
    const std::uint64_t now = m.clock().now();
    bool read = last;
    try {
      for (std::size_t k = 0; k < obs.size(); ++k)
        if (last ? now > obs_from[k] : now >= obs_from[k] + window_ns(*obs[k])) {
          read = true;
          obs[k]->on_window(MachineView(m, now), obs_from[k], now);
          obs_from[k] = now;
        }
      update_due();
      const auto released = std::chrono::steady_clock::now();
      if (!last)
        m.clock().skip(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::nanoseconds>(released - stopped).count()));
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(released - asked);
      if (read)
        for (Observer* o : obs) o->on_stopped(static_cast<std::uint64_t>(ns.count()));
    } catch (...) {
      if (!failure) failure = std::current_exception();
      closed = true;
      update_due();
    }
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
