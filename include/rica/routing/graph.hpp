#pragma once
// Generic minimal-adaptive routing for table-routed graphs (`file:` edge lists, shuffle-exchange;
// rica/topology/table.hpp): every out-port whose peer is one hop closer to the destination is a
// candidate; the escape is the table's next port. Classes are the deterministic routing's
// distance-to-go classes (class of a hop = D - remaining distance before it), unchanged: every
// candidate is a shortest-path hop, so the class rises by exactly one on every hop of every
// route, and every channel dependency goes from class c to class c + 1. The dependency graph of
// all channels is acyclic (no separate escape sub-network is needed; the escape is a candidate
// like any other), and every choice arrives in exactly the distance (no livelock). Nodes with
// more shortest-path ports than CandidateSet::capacity offer the first ones. Included by
// rica/routing.hpp (not on its own).

namespace rica {

class GraphAdaptive {
 public:
  explicit GraphAdaptive(const GraphTopology& t) : t_(&t) {}
  static bool offered(const GraphTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return t_->buffer_classes(); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    cs.escape = t_->route(cur, dst, cls);
    if (cs.escape.delivers()) return;
    // The class of a hop is D - (distance before it), so the distance is D - class (0 at dst).
    const unsigned d = dist(cur, dst);
    for (port_t p = 0; p < t_->ports(); ++p) {
      const Link l = t_->out_link(cur, p);
      if (!l.present()) break;  // a node's ports are 0..degree-1
      if (dist(l.peer, dst) + 1u == d) cs.add(p, cs.escape.next_class());
    }
  }

 private:
  unsigned dist(node_t v, node_t dst) const noexcept {
    const Hop h = t_->route(v, dst, 0);
    return h.delivers() ? 0u : t_->buffer_classes() - h.next_class();
  }
  const GraphTopology* t_;
};

template <>
struct AdaptiveFor<GraphTopology> {
  using type = GraphAdaptive;
};

}  // namespace rica
