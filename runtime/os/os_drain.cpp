// Drain (RWC-1 §4; docs/os.md): every floating packet goes to the nearest PE — the one attached to
// the router holding it — and is saved there, then re-injected when its job runs again.
//
// The order halts the node (no injection, delivery or new transmission; a transmission under way
// completes). An output is frozen once its link is idle; the downstream input sees the freeze one
// cycle later. A node whose outputs and inputs are all frozen sweeps its buffers into its save
// area (save_words_per_cycle). Only neighbour state is consulted: no global barrier.
#include "os_policy.hpp"

namespace rica {

bool drain_frozen(const SwitchState& s, const NodeSwitch& n, std::uint64_t now) {
  const OsView& m = s.machine();
  for (port_t p = 0; p < m.ports(); ++p)
    if (m.link_free_at(n.v, p) > now) return false;
  for (port_t q = 0; q < m.ports(); ++q) {
    const node_t u = m.upstream(n.v, q);
    if (u == no_node || s.owner_before(u) != n.out) continue;
    if (!s.ordered(u)) return false;  // u has not frozen its outputs yet
    if (m.link_free_at(u, m.upstream_port(n.v, q)) + 1 > now) return false;
  }
  return true;
}

std::uint64_t drain_bound(const SwitchState& s) {
  const OsView& m = s.machine();
  std::uint32_t depth_max = 0;
  for (unsigned j : s.outgoing())
    depth_max = std::max(depth_max, SwitchState::tree_depth(static_cast<std::uint32_t>(s.nodes_of(j).size() - 1)));
  const std::uint64_t cap_words = std::uint64_t{m.ports()} * m.classes() * m.buffer_words();
  // The paper's bound: the order's I/O depth, a transmission under way, the freeze signal, and
  // saving plus restoring a full router.
  return std::uint64_t{s.os().io_hop_cycles} * depth_max + m.max_link_cycles() + 1 + 2 * s.words_cost(cap_words);
}

std::uint64_t drain_sweep(SwitchState& s, const NodeSwitch& n, std::uint64_t now, node_t to, std::uint64_t& packets,
                          std::uint64_t& words) {
  SwitchRecord& rec = s.record();
  rec.freeze_cycles = std::max(rec.freeze_cycles, now - s.started_at());
  std::uint64_t w = 0;
  packets += s.machine().sweep(n.v, [&](const Packet& p) {
    s.saved(p.job, to).push_back(p);
    w += p.words;
  });
  words += w;
  return w;
}

namespace detail {
namespace {

class Drain final : public SwitchPolicyImpl {
 public:
  std::uint64_t begin(SwitchState& s) override { return drain_bound(s); }

  void on_order(SwitchState& s, const NodeSwitch& n) override { s.machine().halt(n.v); }

  std::optional<std::uint64_t> clear(SwitchState& s, const NodeSwitch& n, std::uint64_t now, std::uint64_t& packets,
                                     std::uint64_t& words) override {
    if (!drain_frozen(s, n, now)) return std::nullopt;
    return now + s.words_cost(drain_sweep(s, n, now, n.v, packets, words));
  }
};

}  // namespace

std::unique_ptr<SwitchPolicyImpl> make_drain_policy() { return std::make_unique<Drain>(); }

}  // namespace detail
}  // namespace rica
