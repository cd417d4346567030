#pragma once
// Adaptive routing around static faults (`--faults` without at=, `--routing adaptive`), for any
// base topology (rica/topology/faulty.hpp), Duato style:
// - class 0 (where packets are injected): the candidates are every surviving out-port whose peer
//   is one hop closer to the destination on the surviving graph (class 0); the escape is the
//   fault rerouting's table hop (shortest surviving path, up*/down* phase classes), shifted up
//   by one class;
// - classes 1..C: the rerouting's classes + 1, escape only (a packet on the escape stays on it).
// Deadlock freedom: escape channels lead only to escape channels, along the rerouting's routes,
// whose channel dependency graph is acyclic (the up*/down* phases, docs/faults.md); there are no
// indirect dependencies through class 0 (nothing returns to it), and every class-0 state has the
// escape. Every hop is on a shortest surviving path (class-0 hops shorten the distance by one,
// the escape's routes are shortest), so every choice arrives in the shortest surviving distance.
// Dynamic faults (at=CYCLE) are not offered: the routing changes at the failure.
// Checked by tests/test_adaptive_routing.cpp on faulty networks.

#include "rica/routing/candidates.hpp"

namespace rica {

/// Shortest distances on the surviving graph, [node * pes + dst] (runtime/topology/routing_faulty.cpp);
/// 0xFFFF where dst is unreachable (a failed node).
std::shared_ptr<const std::vector<std::uint16_t>> surviving_distances(const FaultyTopology& t);

class FaultyAdaptive {
 public:
  explicit FaultyAdaptive(const FaultyTopology& t) : t_(&t), dist_(surviving_distances(t)) {}
  static bool offered(const FaultyTopology& t) noexcept { return !t.dynamic(); }
  class_t buffer_classes() const noexcept { return static_cast<class_t>(t_->buffer_classes() + 1); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    const Hop e = t_->route(cur, dst, cls > 0 ? static_cast<class_t>(cls - 1) : class_t{0});
    if (e.delivers()) {
      cs.escape = e;
      return;
    }
    cs.escape = Hop::forward(e.port(), static_cast<class_t>(e.next_class() + 1));
    if (cls != 0) return;
    const std::uint16_t* d = dist_->data();
    const std::size_t P = t_->pes();
    const unsigned here = d[std::size_t{cur} * P + dst];
    for (port_t p = 0; p < t_->ports(); ++p) {
      const Link l = t_->out_link(cur, p);
      if (l.present() && d[std::size_t{l.peer} * P + dst] + 1u == here) cs.add(p, 0);
    }
  }

 private:
  const FaultyTopology* t_;
  std::shared_ptr<const std::vector<std::uint16_t>> dist_;  // shared by copies
};

template <>
struct AdaptiveFor<FaultyTopology> {
  using type = FaultyAdaptive;
};

}  // namespace rica
