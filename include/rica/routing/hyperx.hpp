#pragma once
// Adaptive routing of HyperX (rica/topology/hyperx.hpp) over its K parallel links per router pair
// (HyperXAdaptive): the hop is the deterministic route's (dimension order: the lowest differing
// dimension, to the destination's coordinate), and each of the K parallel links of that hop is a
// candidate in class 0; the escape is the deterministic route's own link (link_choice()).
// Deadlock freedom: every channel a packet may take, candidate or escape, goes up in dimension
// from the channel before it (a route corrects the dimensions in ascending order, whichever
// parallel link it uses), so the dependency graph of all channels is acyclic in one class:
// Dally and Seitz's condition for the whole routing, and Duato's a fortiori. Every choice is
// minimal (one hop per differing coordinate): no livelock. Checked exhaustively at small sizes
// by tests/test_adaptive_routing.cpp and tests/test_hyperx_links.cpp. With K = 1 the one
// candidate is the escape: the deterministic routing.

#include "rica/routing/candidates.hpp"

namespace rica {

class HyperXAdaptive {
 public:
  explicit HyperXAdaptive(const HyperXTopology& t) : t_(&t) {}
  static bool offered(const HyperXTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return 1; }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    const HyperXTopology& t = *t_;
    cs.escape = t.route(cur, dst, cls);
    if (cur < t.pes() || cs.escape.delivers()) return;  // a terminal's one link, or delivery
    const node_t r = cur - t.pes(), dr = dst / t.terminals();
    if (r == dr) return;  // the link to the destination terminal: no choice
    const auto [i, o] = t.next_offset(r, dr);
    const auto first = static_cast<port_t>(t.base(i) + (o - 1) * t.links_per_pair());
    for (unsigned j = 0; j < t.links_per_pair(); ++j) cs.add(static_cast<port_t>(first + j), 0);
  }

 private:
  const HyperXTopology* t_;
};

template <>
struct AdaptiveFor<HyperXTopology> {
  using type = HyperXAdaptive;
};

}  // namespace rica
