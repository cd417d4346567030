#pragma once
// The machine's OS part: which job runs on each node, which nodes the OS holds (halted), the
// switch epoch each node resumed in, the nodes the OS acted on since the driver last looked, and
// the OS layer's hook into the cycle engine (runtime/os/os.cpp). Not API.
//
// Invariants:
//  - written only between cycles by the main thread (the machine still); read by node tasks
//    during a cycle (job_at, halted, accepts), so a read never races a write;
//  - a halted node injects, delivers and transmits nothing, and no node sends into it;
//  - a node sends only to a neighbour resumed in the same switch epoch (accepts()), so no packet
//    enters a node whose inputs are not yet ready after a switch;
//  - every node whose OS state changed is in touched() until the driver takes it (take_touched),
//    so the cycle driver steps it even if it had no work.

#include <cstdint>
#include <vector>

#include "rica/assert.hpp"
#include "rica/packet.hpp"

namespace rica::detail {

/// The OS layer's hooks into the cycle engine (runtime/os/os.cpp). after_cycle, busy, holding and
/// held run on the main thread between cycles (the machine is still); on_switched_out runs on
/// node v's task.
struct CycleHook {
  virtual ~CycleHook() = default;
  /// Cycle `cycle` has finished: switches advance here.
  virtual void after_cycle(std::uint64_t cycle) = 0;
  /// Work the engine cannot see (saved packets and contexts, switches under way).
  virtual bool busy() const = 0;
  /// A switch is under way: nodes may be held for a long time, so a stall is not a deadlock.
  virtual bool holding() const = 0;
  /// A packet of a job switched out at v reached v, its destination: the OS saves it (flush).
  virtual void on_switched_out(node_t v, const Packet& p) = 0;
  /// Packets the OS holds outside the machine (save areas, switched-out send queues): counted
  /// with the network's in conservation.
  virtual std::uint64_t held() const = 0;
};

/// The cycle engine's link timing as the OS layer reads it: implemented by the cycle driver, which
/// owns the links' busy times and attaches itself while it exists (OsState::attach_links).
struct LinkClock {
  /// The first cycle at which v's out-link `port` is idle. Main thread, between cycles.
  virtual std::uint64_t link_free_at(node_t v, port_t port) const noexcept = 0;

 protected:
  ~LinkClock() = default;
};

class OsState {
 public:
  /// Every node runs nothing, none halted, all in epoch 0.
  void reset(node_t nodes) {
    node_job_.assign(nodes, no_job);
    halted_.assign(nodes, 0);
    epoch_.assign(nodes, 0);
    touched_.clear();
  }

  // ---- reads (any thread) ----
  /// The job whose application runs on node v (no_job: none).
  std::uint8_t job_at(node_t v) const noexcept { return node_job_[v]; }
  bool halted(node_t v) const noexcept { return halted_[v] != 0; }
  /// Node v may send into `peer` now: the peer is not held and resumed in v's switch epoch.
  bool accepts(node_t peer, node_t v) const noexcept { return !halted_[peer] && epoch_[peer] == epoch_[v]; }
  CycleHook* hook() const noexcept { return hook_; }
  /// The first cycle at which v's out-link `port` is idle (precondition: a cycle driver runs).
  std::uint64_t link_free_at(node_t v, port_t port) const noexcept {
    RICA_ASSERT(links_ != nullptr, "link_free_at() with no cycle driver attached");
    return links_->link_free_at(v, port);
  }

  // ---- writes (main thread, between cycles) ----
  /// Node v now runs job j (no_job: nothing). `touch`: the driver must look at v again.
  void set_job(node_t v, std::uint8_t j, bool touch = true) {
    node_job_[v] = j;
    if (touch) touched_.push_back(v);
  }
  void touch(node_t v) { touched_.push_back(v); }
  void halt(node_t v) {
    halted_[v] = 1;
    touched_.push_back(v);
  }
  /// Resumes v in switch epoch `e`.
  void resume(node_t v, std::uint32_t e) {
    halted_[v] = 0;
    epoch_[v] = e;
    touched_.push_back(v);
  }
  void set_hook(CycleHook* h) noexcept { hook_ = h; }
  /// The cycle driver attaches its link timing while it exists (nullptr: detaches).
  void attach_links(const LinkClock* c) noexcept { links_ = c; }
  /// Hands every node touched since the last call to f(v), then forgets them.
  template <class F>
  void take_touched(F&& f) {
    for (node_t v : touched_) f(v);
    touched_.clear();
  }

 private:
  std::vector<std::uint8_t> node_job_;  ///< [node]
  std::vector<std::uint8_t> halted_;    ///< [node]
  std::vector<std::uint32_t> epoch_;    ///< [node]: the switch at which each node last resumed
  std::vector<node_t> touched_;
  CycleHook* hook_ = nullptr;
  const LinkClock* links_ = nullptr;
};

}  // namespace rica::detail
