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
#include "async_core.hpp"
#include "driver_registry.hpp"
#include "run_frame.hpp"

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
      std::uint64_t progress = 0;
      for (const ThreadStats& ts : m.thread_stats()) progress += ts.hops + ts.delivered;
      if (!m.packets_left() || progress == progress_at_kick) break;
      progress_at_kick = progress;
      kick();
    }
    frame.stop_clock(st);
    progress_line.finish();
    stop_workers();
    frame.arena().terminate();
    arena = nullptr;
  }
};

namespace {
void drive_async(Machine& m, RunStats& st) {
  if (m.ranks()) {  // under mpirun (EngineTraits::over_ranks)
    drive_mpi_async(m, st);
    return;
  }
  AsyncDriver d(m);
  // --routing adaptive, valiant, ugal-l: the driver runs on Routed<T, R> (Machine::plan).
  visit_routed(m.topology(), m.config().routing, [&](const auto& t) { d.run(t, st); }, m.config().seed);
}

}  // namespace

/// The async engine's entry in the driver registry (rica_engine(async ...) in CMakeLists.txt).
const DriverEntry& builtin_driver_async() {
  static const DriverEntry e{{"async", "real threads, real time, ns", {.over_ranks = true}, 0},
                             drive_async};
  return e;
}

}  // namespace rica::detail
