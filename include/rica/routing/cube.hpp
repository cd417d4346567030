#pragma once
// Minimal adaptive routing for the orthogonal networks (rica/topology/cube.hpp), Duato style:
// - mesh / torus / k-ary n-cube (CubeAdaptive): every minimal direction of every unfinished
//   dimension (both directions of a ring at the half-way tie) is a candidate in the one adaptive
//   class; the escape is the deterministic dimension-order route in its own classes (mesh: class
//   0; torus: the two dateline classes 0 and 1). Classes: 2 (mesh), 3 (torus).
// - hypercube (HypercubeAdaptive): every differing bit is a candidate in class 1; the escape is
//   e-cube (lowest differing bit first) in class 0. Classes: 2.
// Deadlock freedom (Duato): the escape routing is connected and its channel dependencies, direct
// and indirect (through adaptive channels), follow the dimension order and, within a ring, the
// direction of travel away from / past the dateline: a minimal route never reopens a finished
// dimension, so an indirect dependency never leads back to a lower dimension or an earlier ring
// position of the same class. Checked for every size in tests/test_adaptive_routing.cpp.

#include "rica/routing/candidates.hpp"

namespace rica {

class CubeAdaptive {
 public:
  explicit CubeAdaptive(const CubeTopology& t) : t_(&t), adaptive_(t.buffer_classes()) {}
  static bool offered(const CubeTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return static_cast<class_t>(adaptive_ + 1); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    const CubeTopology& t = *t_;
    cs.escape = t.route(cur, dst, cls);
    if (cs.escape.delivers()) return;
    for (unsigned i = 0; i < t.ndims_; ++i) {
      const node_t c = t.coord(cur, i), d = t.coord(dst, i);
      if (c == d) continue;
      if (!t.ring(i)) {
        cs.add(static_cast<port_t>(2 * i + (d > c ? 0 : 1)), adaptive_);
        continue;
      }
      const node_t fwd = d >= c ? d - c : d + t.k_[i] - c, bwd = t.k_[i] - fwd;
      if (fwd <= bwd) cs.add(static_cast<port_t>(2 * i), adaptive_);
      if (bwd <= fwd) cs.add(static_cast<port_t>(2 * i + 1), adaptive_);
    }
  }

 private:
  const CubeTopology* t_;
  class_t adaptive_;  ///< the adaptive class: one above the escape classes
};

class HypercubeAdaptive {
 public:
  explicit HypercubeAdaptive(const HypercubeTopology& t) : t_(&t) {}
  static bool offered(const HypercubeTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return 2; }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    cs.escape = t_->route(cur, dst, cls);  // e-cube, class 0
    for (node_t diff = cur ^ dst; diff; diff &= diff - 1)
      cs.add(static_cast<port_t>(__builtin_ctz(diff)), 1);
  }

 private:
  const HypercubeTopology* t_;
};

template <>
struct AdaptiveFor<CubeTopology> {
  using type = CubeAdaptive;
};
template <>
struct AdaptiveFor<HypercubeTopology> {
  using type = HypercubeAdaptive;
};

}  // namespace rica
