#pragma once
// The observer seam (docs/runtime.md "Observing a run"): code that watches a run as it goes —
// telemetry over time, live figures, checks — without touching the engines. An Observer is
// called at window boundaries with a read-only MachineView of the node tables and the ledger.
//
// Contract:
//  - cycle engine: on_window(view, begin, end) runs on the main thread between cycles, the machine
//    still, once per `window()` cycles: [begin, end) is the window that just ended (end - begin ==
//    window(), except across an idle stretch the engine jumped over, which joins the window it
//    began in, and the last window of the run, which ends where the run does). Every figure the
//    view gives is exact at `end`, and identical for any thread count.
//  - async engine: window() is in microseconds; begin, end and now() are ns of the run's clock.
//    The world stops at a window's end: the first worker to finish a block after it parks every
//    other worker between two blocks (runtime/machine/block_scheduler.hpp, pause_from_worker),
//    calls on_window with the machine still, then lets them go on (the main thread does this for
//    the windows due when the run goes quiet, and the last), and the run's clock stands still
//    over the reads (packets in flight are not charged for them). Every figure of the view is
//    exact at `end` (no node runs; every
//    push of a finished block announced); windows are at least window() long, longer by the time
//    a worker takes to finish its block, and the run's last window ends where it does. Chosen
//    over per-thread counters summed at the window: those give the counts but no consistent
//    occupancy or head packet (a buffer is its producer's and consumer's state at once), and
//    would make every counter the hop kernel writes an atomic read from another thread, paid
//    per hop whether watched or not; a pause is paid per window, only when watched
//    (docs/runtime.md "Async windows": its cost measured).
//  - under mpirun observers are refused (usage_error): a view would see one rank's nodes only.
//  - free when unused: with no observer the drivers test one empty list per cycle.
//  - each stop for windows is timed (on_stopped), so what watching costs is measured on any host.
//  - an observer must not keep the view beyond the call, and must not throw across the engine
//    (a usage_error it throws ends the run with that error).
// Thread safety: never two calls at once, each call ordered after the previous one. on_start and
// on_end run on the thread that called rica::run, so do on_window and on_stopped on the cycle
// engine; on the async engine those two run on whichever thread stopped the world (one of the
// engine's workers, or the calling thread), so an observer must not rely on thread-local state.

#include <cstdint>
#include <span>

#include "rica/core.hpp"
#include "rica/packet.hpp"

namespace rica {

namespace detail {
class Machine;
}
class Topology;

/// A read-only view of a machine at a window boundary (valid during the call only).
class MachineView {
 public:
  /// Made by the drivers: the machine `m` as it is at time `now`.
  MachineView(const detail::Machine& m, std::uint64_t now) noexcept : m_(&m), now_(now) {}

  const Topology& topology() const noexcept;
  node_t nodes() const noexcept;
  node_t pes() const noexcept;
  port_t ports() const noexcept;
  class_t classes() const noexcept;
  /// The cycle engine drives the machine (times are cycles; otherwise ns since the start).
  bool cycle_mode() const noexcept;
  /// The current time: the end of the window being reported (cycles or ns).
  std::uint64_t now() const noexcept { return now_; }

  // ---- node tables (per node, link and buffer; cumulative since the start unless "now") ----
  /// Packets sent over v's out-link `port` so far.
  std::uint64_t link_packets(node_t v, port_t port) const noexcept;
  /// Words and packets held now in input buffer (in-port q, class c) of node v.
  std::uint32_t buffer_words(node_t v, port_t q, class_t c) const noexcept;
  std::uint64_t buffer_packets(node_t v, port_t q, class_t c) const noexcept;
  /// Words and packets held now in every input buffer, summed per buffer class: words[c] and
  /// packets[c] for every c < classes() (overwritten; both spans at least classes() long). One pass
  /// over the buffers, for an observer that wants totals rather than each buffer.
  void held_per_class(std::span<std::uint64_t> words, std::span<std::uint64_t> packets) const noexcept;
  /// The head packet of input buffer (in-port q, class c) of node v now, or nullptr when it is
  /// empty (the packet is the buffer's own: read it during the call only).
  const Packet* buffer_head(node_t v, port_t q, class_t c) const noexcept;
  /// Packets waiting now in v's source queue (not yet in the network).
  std::uint64_t source_queue(node_t v) const noexcept;
  /// Times a head packet at v found no room downstream, so far.
  std::uint64_t blocked(node_t v) const noexcept;
  /// Packets PE v injected / had delivered so far.
  std::uint64_t injected(node_t v) const noexcept;
  std::uint64_t delivered(node_t v) const noexcept;
  /// The job running on node v (no_job: none) and whether the OS holds it (a switch).
  std::uint8_t job_at(node_t v) const noexcept;
  bool halted(node_t v) const noexcept;

  // ---- the ledger (whole machine, so far) ----
  struct Totals {
    std::uint64_t delivered = 0;    ///< packets delivered
    std::uint64_t hops = 0;         ///< packet-hops
    std::uint64_t measured = 0;     ///< deliveries of packets generated after the warm-up
    std::uint64_t latency_sum = 0;  ///< of the measured deliveries: generation to delivery
    std::uint64_t net_latency_sum = 0;  ///< of the measured deliveries: entering the network to delivery
    std::uint64_t dropped = 0;      ///< dropped by faults
  };
  Totals totals() const noexcept;

 private:
  const detail::Machine* m_;
  std::uint64_t now_;
};

/// Watches a run (see the contract above). Derive, override what you need, pass to rica::run.
class Observer {
 public:
  /// `window`: cycles per window (cycle engine) or microseconds (async engine), >= 1.
  explicit Observer(std::uint64_t window) : window_(window) {}
  virtual ~Observer() = default;
  std::uint64_t window() const noexcept { return window_; }
  /// Before the first cycle (the machine built, nothing moved).
  virtual void on_start(const MachineView&) {}
  /// The window [begin, end) ended.
  virtual void on_window(const MachineView&, std::uint64_t /*begin*/, std::uint64_t /*end*/) {}
  /// After each stop for windows (this observer's on_window or another's): how long the world stood
  /// still, ns of wall time — async: from a worker asking the others to park until they are let go
  /// (the parking and every observer's reads; a parked worker yields its core and sees the release
  /// at once, unless the stop outlasted BlockScheduler::park_spin and it slept); cycle: every
  /// observer's reads between two cycles. No view. Summed, it is the run's cost of watching it.
  virtual void on_stopped(std::uint64_t /*ns*/) {}
  /// After the last cycle (the machine drained, or stopped: deadlock, livelock).
  virtual void on_end(const MachineView&) {}

 private:
  std::uint64_t window_;
};

/// The observers of one run (not owned).
using Observers = std::span<Observer* const>;

}  // namespace rica
