#pragma once
// The interface of a context-switch policy (rica/os.hpp; docs/os.md "Adding a policy").
//
// At a switch every node whose owner changes runs the same protocol, driven by the OS driver
// (runtime/os.cpp) between cycles:
//   1. order: the switch order reaches the node over the I/O network (a binary broadcast tree over
//      the outgoing job's node set, io_hop_cycles per level); the driver takes the outgoing job's
//      application state off the node (Machine::switch_out) and calls Policy::on_order;
//   2. clear: every cycle the driver asks Policy::clear whether the outgoing job's packets are out
//      of the network at this node; the policy takes them out (into the save areas) and says from
//      which cycle the node may restore;
//   3. restore: the incoming job's saved packets (they were in the network) and send queue go back
//      into the node's source queue, the node resumes (Machine::resume).
// A policy acts on the machine only through Machine's public operations and the save areas; it
// never writes engine state directly, and a new policy is a new file registered in
// runtime/os_policies.cpp (no edit of the Machine, the driver or the other policies).
//
// Contract: packets are never dropped: every packet a policy takes out of the network goes to
// exactly one save area (saved(job, node)), from where the driver restores it when that job runs
// on that node again; the bookkeeping Machine::net_out/net_in balances across the switch.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "machine.hpp"
#include "rica/os.hpp"

namespace rica::detail {

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
  virtual Machine& machine() = 0;
  virtual const Machine& machine() const = 0;
  virtual const OsConfig& os() const = 0;
  /// First cycle of the switch.
  virtual std::uint64_t started_at() const = 0;
  virtual SwitchRecord& record() = 0;
  /// Jobs running before the switch that do not run after it.
  virtual const std::vector<unsigned>& outgoing() const = 0;
  /// A job's node set in I/O-tree order (node i's parent is (i - 1) / 2).
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
SwitchPolicy register_switch_policy(const std::string& name, const std::string& doc, SwitchPolicyFactory make);
std::unique_ptr<SwitchPolicyImpl> make_switch_policy(SwitchPolicy p);

/// Static registration from user code: a namespace-scope
/// `static rica::detail::SwitchPolicyRegistration reg{"name", "doc", factory};` (docs/extending.md).
struct SwitchPolicyRegistration {
  SwitchPolicyRegistration(const std::string& name, const std::string& doc, SwitchPolicyFactory make)
      : policy(register_switch_policy(name, doc, std::move(make))) {}
  SwitchPolicy policy;
};

/// The built-in policies (runtime/os_drain.cpp, runtime/os_flush.cpp, runtime/os_drain_pe.cpp).
std::unique_ptr<SwitchPolicyImpl> make_drain_policy();
std::unique_ptr<SwitchPolicyImpl> make_flush_policy();
std::unique_ptr<SwitchPolicyImpl> make_drain_pe_policy();

/// Drain's building blocks, for policies that vary it: node n may sweep (its outputs idle, every
/// upstream neighbour of the same job ordered, with its link idle one cycle ago); the paper's
/// bound on a drain's duration.
bool drain_frozen(const SwitchState& s, const NodeSwitch& n, std::uint64_t now);
std::uint64_t drain_bound(const SwitchState& s);
/// Drain's sweep once node n is frozen: records the freeze time, moves n's buffered packets into
/// the save areas of node `to` (n itself for drain), adds the counts; returns the words saved.
std::uint64_t drain_sweep(SwitchState& s, const NodeSwitch& n, std::uint64_t now, node_t to, std::uint64_t& packets,
                          std::uint64_t& words);

}  // namespace rica::detail
