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

namespace rica::detail {

struct AsyncDriver : AsyncCore<AllNodes> {
  explicit AsyncDriver(Machine& mm) : AsyncCore<AllNodes>(mm, AllNodes{}) {}

  template <class T>
  void run(const T& t, RunStats& st) {
    const EngineConfig& cfg = m.config();
    const unsigned threads = cfg.threads ? cfg.threads : std::max(1u, std::thread::hardware_concurrency());
    // Workers only (the main thread monitors); allow that many TBB workers process-wide.
    tbb::global_control workers(tbb::global_control::max_allowed_parallelism, threads + 1);
    tbb::task_arena local_arena(static_cast<int>(threads), 0);
    // Arena slot indices run up to max_concurrency (slot 0 may be a master slot even when none is
    // reserved): one ThreadStats per possible slot.
    m.make_thread_stats(static_cast<std::size_t>(threads) + 1);
    for (ThreadStats& ts : m.thread_stats()) ts.job.assign(m.jobs().size(), {});
    arena = &local_arena;
    start_workers(t, threads);
    m.clock().start();
    const auto t0 = m.clock().origin();
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
      bool left = false;
      std::vector<std::uint64_t> wake(blocks.size(), 0);
      for (node_t v = 0; v < m.nodes(); ++v) {
        const PeState& q = m.pe(v);
        bool has = q.injq_head != q.injq.size();
        for (std::uint32_t i = 0; i < m.buffers_per_node() && !has; ++i) has = !q.inputs[i].empty();
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
    stop_workers();
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
