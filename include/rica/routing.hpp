#pragma once
// Adaptive routing: a second, opt-in routing a topology may offer beside its deterministic
// route(). An adaptive routing names, for a packet at `cur` for PE `dst` in buffer class `cls`,
// several candidate hops (port, next class) and one escape hop; the hop kernel
// (runtime/machine/machine.hpp, Machine::select) takes the candidate whose downstream buffer is least
// occupied by the producer's credit view among those with room (ties: a seeded per-node rule),
// else the escape hop, on which the packet then waits.
//
// Contract of an adaptive routing R for topology T (checked by tests/test_adaptive_routing.cpp
// for every adaptive routing at small sizes):
// - R(const T&) builds it (once per run; tables allowed here, never per hop);
//   R::offered(const T&) says whether T's parameters admit it (e.g. c-Banyan only for delta 1);
// - candidates(cur, dst, cls, cs) fills cs: cs.escape delivers exactly when cur == dst (then no
//   candidates); candidates are present links, classes < buffer_classes(); pure, no allocation;
// - Duato's condition: the escape hops alone deliver every pair, and the extended channel
//   dependency graph of the escape channels (direct dependencies, and indirect ones through
//   adaptive-only channels) is acyclic; following any choice of candidates delivers every pair in
//   a bounded number of hops (no livelock). Then the routing is deadlock-free.
//
// Deterministic routing never builds a CandidateSet: the drivers are instantiated on the plain
// topology type for `--routing deterministic` and on Routed<T, R> for `--routing adaptive`.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rica/engine.hpp"
#include "rica/routing/candidates.hpp"
#include "rica/topology.hpp"

#include "rica/routing/cube.hpp"
#include "rica/routing/fattree.hpp"
#include "rica/routing/faulty.hpp"
#include "rica/routing/graph.hpp"
#include "rica/routing/spiral.hpp"

namespace rica {

/// Whether topology t offers routing r (deterministic: always).
inline bool offers(const Topology& t, Routing r) {
  if (r == Routing::deterministic) return true;
  return t.visit([](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      return adaptive_t<T>::offered(x);
    } else {
      return false;
    }
  });
}

/// The names of the routings t offers, e.g. {"deterministic", "adaptive"}.
inline std::vector<std::string> routing_names(const Topology& t) {
  std::vector<std::string> v{"deterministic"};
  if (offers(t, Routing::adaptive)) v.emplace_back("adaptive");
  return v;
}

/// Throws usage_error "<option>: 'adaptive' is not offered by '<spec>'; offered: ..." unless t
/// offers r.
void check_routing(const Topology& t, Routing r, const std::string& option = "--routing");

/// Buffer classes routing r needs on t.
inline class_t routing_classes(const Topology& t, Routing r) {
  if (r == Routing::deterministic) return t.buffer_classes();
  return t.visit([](const auto& x) -> class_t {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      return adaptive_t<T>(x).buffer_classes();
    } else {
      return x.buffer_classes();
    }
  });
}

/// Calls f(t) with the concrete topology (deterministic) or f(Routed<T, R>) (adaptive).
/// Precondition: offers(t, r).
template <class F>
decltype(auto) visit_routed(const Topology& t, Routing r, F&& f) {
  return t.visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      if (r == Routing::adaptive) return f(Routed<T, adaptive_t<T>>{&x, adaptive_t<T>(x)});
    }
    return f(x);
  });
}

/// The candidate set of routing r at cur (deterministic: the route as the escape, no candidates).
/// For tools and tests (visits per call).
inline CandidateSet route_candidates(const Topology& t, Routing r, node_t cur, node_t dst, class_t cls) {
  CandidateSet cs;
  visit_routed(t, r, [&](const auto& x) {
    using X = std::decay_t<decltype(x)>;
    if constexpr (requires { x.routing; }) {
      x.routing.candidates(cur, dst, cls, cs);
    } else {
      static_assert(TopologyModel<X>);
      cs.escape = x.route(cur, dst, cls);
    }
  });
  return cs;
}

/// One line per adaptive routing family for `rica list`: which topologies offer it and how.
struct RoutingDoc {
  std::string topologies, summary;
  unsigned classes_extra;  ///< buffer classes beyond the deterministic routing's
};
const std::vector<RoutingDoc>& adaptive_routing_docs();

}  // namespace rica
