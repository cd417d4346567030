#pragma once
// The interface of a context-switch policy (rica/os.hpp; docs/os.md "Adding a policy";
// docs/extending.md: a policy from user code, one file, no edit of rica).
//
// At a switch every node whose owner changes runs the same protocol, driven by the OS driver
// (runtime/os/os.cpp) between cycles:
//   1. order: the switch order reaches the node over the I/O network (a binary broadcast tree over
//      the outgoing job's node set, io_hop_cycles per level); the driver takes the outgoing job's
//      application state off the node and calls SwitchPolicyImpl::on_order;
//   2. clear: every cycle the driver asks SwitchPolicyImpl::clear whether the outgoing job's
//      packets are out of the network at this node; the policy takes them out (into the save
//      areas) and says from which cycle the node may restore;
//   3. restore: the incoming job's saved packets (they were in the network) and send queue go back
//      into the node's source queue, and the node resumes.
// A policy sees the machine only through OsView (read-only figures plus halt and sweep) and the
// switch through SwitchState: it cannot reach engine state, and a new policy is a new file (a
// built-in one is one line more in runtime/os/os_policies.cpp).
//
// Contract: packets are never dropped: every packet a policy takes out of the network (sweep) goes
// to exactly one save area (SwitchState::saved(job, node)), from where the driver restores it
// when that job runs on that node again; OsView::net_in/net_out balance across the switch.
// Thread safety: every call here runs on the main thread between cycles, the machine still.

#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rica/os.hpp"
#include "rica/packet.hpp"

namespace rica {

namespace detail {
class Machine;
}

/// What a switch policy may see of the machine and do to it. A view: it owns nothing, and is
/// valid for the run it was handed out in (constructed by the OS driver).
class OsView {
 public:
  explicit OsView(detail::Machine& m) noexcept : m_(&m) {}

  node_t nodes() const noexcept;
  node_t pes() const noexcept;
  port_t ports() const noexcept;
  class_t classes() const noexcept;
  /// Words one input buffer holds (one buffer per in-port and class).
  unsigned buffer_words() const noexcept;
  /// The longest a packet occupies any link, in cycles.
  unsigned max_link_cycles() const noexcept;
  /// The first cycle at which v's out-link `port` is idle (a transmission under way completes).
  std::uint64_t link_free_at(node_t v, port_t port) const noexcept;
  /// The node feeding v's in-port q (no_node: none) and that node's out-port of the link.
  node_t upstream(node_t v, port_t q) const noexcept;
  port_t upstream_port(node_t v, port_t q) const noexcept;
  /// Packets of job j that entered / left the network at node v so far.
  std::uint64_t net_in(unsigned job, node_t v) const noexcept;
  std::uint64_t net_out(unsigned job, node_t v) const noexcept;
  bool halted(node_t v) const noexcept;

  /// Halts node v: it injects, delivers and transmits nothing, and no node sends into it (a
  /// transmission under way completes). The driver resumes it after the restore.
  void halt(node_t v);
  /// Takes every packet out of v's input buffers (credits returned upstream, counted as leaving
  /// the network at v) and hands each to save(p), oldest first per buffer. Returns the count.
  /// Precondition: v is halted and its inputs frozen (no packet on its way in).
  std::uint64_t sweep(node_t v, const std::function<void(const Packet&)>& save);

 private:
  detail::Machine* m_;
};

/// One node's part in a switch.
struct NodeSwitch {
  node_t v;
  std::uint8_t out, in;  ///< outgoing and incoming job on this node (no_job: none)
  std::uint32_t depth;   ///< depth in the outgoing job's I/O tree
  enum Phase : std::uint8_t { wait_order, clearing, restoring, resumed } phase = wait_order;
  std::uint64_t order_at = 0, resume_at = 0;
};

/// What a policy sees of the switch under way (owned by the OS driver; main thread only).
class SwitchState {
 public:
  virtual ~SwitchState() = default;
  virtual OsView& machine() = 0;
  virtual const OsView& machine() const = 0;
  virtual const OsConfig& os() const = 0;
  /// First cycle of the switch.
  virtual std::uint64_t started_at() const = 0;
  virtual SwitchRecord& record() = 0;
  /// Jobs running before the switch that do not run after it.
  virtual const std::vector<unsigned>& outgoing() const = 0;
  /// A job's node set in I/O-tree order (node i's parent is (i - 1) / 2). A job stream gives a
  /// finished job's id to a later job (rica/os_stream.hpp): anything a policy keeps per id across
  /// switches must be checked against this set.
  virtual const std::vector<node_t>& nodes_of(unsigned job) const = 0;
  /// The job that owned node v before the switch (no_job: none).
  virtual std::uint8_t owner_before(node_t v) const = 0;
  /// The switch order has reached node v.
  virtual bool ordered(node_t v) const = 0;
  /// The save area of (job, node): packets out of the network, restored when the job runs there.
  virtual std::vector<Packet>& saved(unsigned job, node_t v) = 0;
  /// Cycles to move `words` between a PE and its memory.
  std::uint64_t words_cost(std::uint64_t words) const {
    const unsigned r = os().save_words_per_cycle;
    return (words + r - 1) / r;
  }
  static std::uint32_t tree_depth(std::uint32_t index) {
    return static_cast<std::uint32_t>(std::bit_width(index + 1u)) - 1;
  }
};

class SwitchPolicyImpl {
 public:
  virtual ~SwitchPolicyImpl() = default;
  /// A switch begins (before any order arrives); returns the bound its duration should meet
  /// (0: none).
  virtual std::uint64_t begin(SwitchState&) { return 0; }
  /// Once per cycle of the switch, before the nodes advance (`now`: the cycle about to start).
  virtual void advance(SwitchState&, std::uint64_t /*now*/) {}
  /// The order reached node n, which runs a job that is leaving.
  virtual void on_order(SwitchState&, const NodeSwitch&) {}
  /// Node n (owner leaving): if its outgoing job's packets are out of the network here, take
  /// what is left into the save areas, add the counts, and return the cycle from which n may
  /// restore; std::nullopt to be asked again next cycle.
  virtual std::optional<std::uint64_t> clear(SwitchState&, const NodeSwitch& n, std::uint64_t now,
                                             std::uint64_t& packets, std::uint64_t& words) = 0;
};

using SwitchPolicyFactory = std::function<std::unique_ptr<SwitchPolicyImpl>()>;
/// Registers a policy (name, one-line doc); returns its selector. Before any run, single-threaded.
/// A name already registered, or not a valid name, is a usage_error.
SwitchPolicy register_switch_policy(const std::string& name, const std::string& doc, SwitchPolicyFactory make);

/// Static registration from user code: a namespace-scope
/// `static rica::SwitchPolicyRegistration reg{"name", "doc", factory};` (docs/extending.md).
struct SwitchPolicyRegistration {
  SwitchPolicyRegistration(const std::string& name, const std::string& doc, SwitchPolicyFactory make)
      : policy(register_switch_policy(name, doc, std::move(make))) {}
  SwitchPolicy policy;
};

/// Drain's building blocks, for policies that vary it: node n may sweep (its outputs idle, every
/// upstream neighbour of the same job ordered, with its link idle one cycle ago); the paper's
/// bound on a drain's duration.
bool drain_frozen(const SwitchState& s, const NodeSwitch& n, std::uint64_t now);
std::uint64_t drain_bound(const SwitchState& s);
/// Drain's sweep once node n is frozen: records the freeze time, moves n's buffered packets into
/// the save areas of node `to` (n itself for drain), adds the counts; returns the words saved.
std::uint64_t drain_sweep(SwitchState& s, const NodeSwitch& n, std::uint64_t now, node_t to, std::uint64_t& packets,
                          std::uint64_t& words);

}  // namespace rica
