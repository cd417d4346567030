#pragma once
// Trace-viewer export (docs/runtime.md "Trace-viewer export"): an Observer (rica/observer.hpp) that
// follows a bounded sample of packets hop by hop on the cycle engine, and the OS's halts, and
// writes them with the OS's context switches as Chrome trace-event JSON, the format Perfetto
// (ui.perfetto.dev) and chrome://tracing open.
//
// What a run becomes (one trace "process" per run; one "thread" per node, named by its label):
//  - per followed packet: a slice "queued" on its source node from its generation to its entering
//    the network, then one slice per input buffer it sat in, on that buffer's node, from the cycle
//    its head arrived to the cycle it left (the last, at its destination, ends when it was
//    delivered); one flow per packet joins its slices (the arrows across nodes);
//  - per node, a slice "halted" for each stretch the OS held it (Options::halts, rica os);
//  - per context switch (add_switches), on the thread "OS switches", a slice for the switch and
//    nested slices for its phases (drain: until every port froze; flush: until emptiness was
//    detected; then saving, restoring and resuming until the last node resumed).
// Times are cycles, shown as microseconds on the viewer's axis (1 cycle = 1 us).
//
// Bounded: it follows the first `max_packets` packets that enter the network at or after cycle
// `from` (a packet is first seen at the head of its first buffer) and no others, so the file grows
// with max_packets x hops, not with the run. A packet is seen at every hop: an input buffer gives
// up at most one packet per cycle, so every packet is the head of each buffer it passes at some
// cycle boundary (a stage missed would show in summary()["gaps"], which the tests check is 0).
// Cost: while followed packets are in flight (or halts are watched) every cycle is a window and
// costs one pass over the input buffers' heads (and the nodes' halt flags); afterwards nothing.
//
// The cycle engine only: the async engine calls on_start and on_end only, so a TraceEvents on it
// records nothing (refuse it up front: the CLI does). Thread safety: the observer contract (one run
// at a time, every call on the run's thread); read and write after the run.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/observer.hpp"
#include "rica/os.hpp"

namespace rica {

class TraceEvents : public Observer {
 public:
  struct Options {
    /// Packets followed at most (>= 1).
    std::uint64_t max_packets = defaults::trace_events::packets;
    /// Follow packets that enter the network at or after this cycle (e.g. the warm-up).
    std::uint64_t from = 0;
    /// Record the stretches each node is halted by the OS (costs a pass over the nodes per cycle).
    bool halts = false;
  };
  explicit TraceEvents(Options options);

  void on_start(const MachineView& v) override;
  void on_window(const MachineView& v, std::uint64_t begin, std::uint64_t end) override;
  void on_end(const MachineView& v) override;

  /// The context switches of an OS run (rica::run_jobs's OsStats::switches), as slices.
  void add_switches(const std::vector<SwitchRecord>& switches);

  /// The trace-event objects of this run as process `pid` named `name` (JSON text, comma-separated,
  /// no brackets); the flow ids carry `pid`, so runs in one file keep theirs apart.
  std::string events(unsigned pid, const std::string& name) const;

  /// packets (followed), delivered (of them), hops (their buffer stages), gaps (stages missed:
  /// 0), unfinished (not delivered when the run ended), halts, switches, events, max_packets, from.
  nlohmann::json summary() const;

  /// Writes `runs` (name, trace) as one trace-event JSON file: {"traceEvents": [...],
  /// "displayTimeUnit": "ns", "otherData": {...}}. usage_error naming `what` if it cannot be written.
  static void write(const std::string& path, const std::vector<std::pair<std::string, const TraceEvents*>>& runs,
                    const std::string& what);

 private:
  struct Stage {
    node_t node;
    port_t port;
    class_t cls;
    std::uint64_t arrive, last;  ///< the head's arrival; the last cycle boundary it was seen at
  };
  struct Followed {
    node_t src, dst;
    std::uint32_t seq;
    std::uint64_t generated, entered;
    std::vector<Stage> stages;
    bool delivered = false;
  };
  struct Slice {
    std::uint32_t tid;
    std::uint64_t ts, dur;
    std::string name, cat, args;  ///< args: a JSON object's text, or empty
  };
  Options opt_;
  std::vector<Followed> packets_;
  std::unordered_map<std::uint64_t, std::uint32_t> index_;  ///< (src << 32 | seq) -> packets_ index
  std::vector<std::uint32_t> active_;                        ///< followed packets not yet delivered
  std::vector<std::uint64_t> halted_since_;                  ///< per node; ~0: not halted
  std::vector<Slice> slices_;                                ///< halts and switches
  std::vector<std::string> labels_;                          ///< per node (the thread names)
  std::uint64_t gaps_ = 0, halts_ = 0, switches_ = 0;
  node_t nodes_ = 0;
  port_t ports_ = 0;
  class_t classes_ = 0;
};

}  // namespace rica
