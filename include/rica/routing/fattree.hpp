#pragma once
// Adaptive up-link choice on the binary fat tree (rica/topology/indirect.hpp): while the
// destination is not below the current switch both up-links are candidates; the way down is
// unique. The escape is the deterministic route (up-port by the destination-mod-k rule). Every
// route still goes up only, then down only (up*/down*): the channel dependencies lead from
// level l to level l+1 on the way up and from l to l-1 on the way down, never from down to up,
// so the dependency graph of all channels is acyclic with the one class. Any up-path reaches a
// common ancestor at the same level as the deterministic one, so routes stay shortest.

#include "rica/routing/candidates.hpp"

namespace rica {

class FatTreeAdaptive {
 public:
  explicit FatTreeAdaptive(const FatTreeTopology& t) : t_(&t) {}
  static bool offered(const FatTreeTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return 1; }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    const FatTreeTopology& t = *t_;
    cs.escape = t.route(cur, dst, cls);
    if (cur < t.pes() || cs.escape.delivers()) return;
    const unsigned l = t.level(cur);
    if ((dst >> (l + 1)) == (t.index(cur) >> l)) return;  // below: the one way down
    cs.add(2, 0);
    cs.add(3, 0);
  }

 private:
  const FatTreeTopology* t_;
};

template <>
struct AdaptiveFor<FatTreeTopology> {
  using type = FatTreeAdaptive;
};

}  // namespace rica
