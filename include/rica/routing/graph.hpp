#pragma once
// Generic minimal-adaptive routing for table-routed graphs (`file:` edge lists, shuffle-exchange;
// rica/topology/table.hpp) with an up*/down* escape (Duato). Offered when every arc has its
// reverse (up*/down* needs both directions of a link).
// - Up*/down*: nodes ranked by (BFS level from node 0, id), the BFS spanning tree's order; an
//   arc is up when it leads to a lower rank; a legal route is up arcs then down arcs
//   (GraphUpDown: shortest legal next ports, built when the routing is, once per run).
// - Classes: 0 = adaptive (where a packet is injected), 1 = escape going up, 2 = escape after
//   its first down hop (declared: max(3, the deterministic count)).
// - In class 0 the candidates are every out-port whose peer is one hop closer to the destination
//   (class 0), and the escape is the shortest legal route's next hop (class 1 if it goes up, 2 if
//   down). In classes 1 and 2 there are no candidates: a packet that took the escape stays on it
//   (class 1: the shortest legal route, which may still go up; class 2: down-only).
// Deadlock freedom (Duato): from every class-0 state the escape is offered; escape channels only
// lead to escape channels, class-1 channels lie only on up arcs and class-2 channels only on down
// arcs, so every dependency among escape channels goes 1 -> 1 strictly down the rank order,
// 1 -> 2, or 2 -> 2 strictly up it: the escape channels' (extended) dependency graph is acyclic
// (no indirect dependencies exist: nothing returns from the escape to class 0). No livelock:
// class-0 hops shorten the distance by one, escape hops the legal distance by one.
// Checked exhaustively at small sizes by tests/test_adaptive_routing.cpp (regular and irregular
// graphs). Nodes with more shortest-path ports than CandidateSet::capacity offer the first ones.

#include "rica/routing/candidates.hpp"

namespace rica {

/// The up*/down* tables of a symmetric table-routed graph (runtime/topology/routing_graph.cpp).
struct GraphUpDown {
  /// Per (node, destination PE), [node * pes + dst]: the out-port of a shortest legal route that
  /// may still go up (`fresh`), and of a shortest down-only route (`down`; 0xFF where the
  /// destination is not reachable going down only).
  std::vector<std::uint8_t> fresh, down;
  std::vector<std::uint32_t> first;  ///< first[v]: index of v's port 0 in `up`
  std::vector<std::uint8_t> up;      ///< [first[v] + port]: 1 when the arc leads to a lower rank
  /// Builds the tables. Precondition: graph_symmetric(t).
  static std::shared_ptr<const GraphUpDown> build(const GraphTopology& t);
};
/// Whether every arc u -> v of t has a reverse arc v -> u (parallel arcs counted).
bool graph_symmetric(const GraphTopology& t);

class GraphAdaptive {
 public:
  static constexpr class_t adaptive = 0, escape_up = 1, escape_down = 2;
  explicit GraphAdaptive(const GraphTopology& t) : t_(&t), ud_(GraphUpDown::build(t)) {}
  static bool offered(const GraphTopology& t) { return graph_symmetric(t); }
  /// 3, or the deterministic routing's count if larger (the machine sizes buffers for at least
  /// that many; the classes above 2 stay unused).
  class_t buffer_classes() const noexcept { return std::max<class_t>(3, t_->buffer_classes()); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    if (cur == dst) {
      cs.escape = Hop::deliver();
      return;
    }
    const std::size_t cell = std::size_t{cur} * t_->pes() + dst;
    const std::uint8_t p = cls == escape_down ? ud_->down[cell] : ud_->fresh[cell];
    cs.escape = Hop::forward(p, ud_->up[ud_->first[cur] + p] && cls != escape_down ? escape_up : escape_down);
    if (cls != adaptive) return;
    const unsigned d = dist(cur, dst);
    for (port_t q = 0; q < t_->ports(); ++q) {
      const Link l = t_->out_link(cur, q);
      if (!l.present()) break;  // a node's ports are 0..degree-1
      if (dist(l.peer, dst) + 1u == d) cs.add(q, adaptive);
    }
  }

 private:
  unsigned dist(node_t v, node_t dst) const noexcept {
    const Hop h = t_->route(v, dst, 0);
    return h.delivers() ? 0u : t_->buffer_classes() - h.next_class();
  }
  const GraphTopology* t_;
  std::shared_ptr<const GraphUpDown> ud_;  // shared by copies
};

template <>
struct AdaptiveFor<GraphTopology> {
  using type = GraphAdaptive;
};

}  // namespace rica
