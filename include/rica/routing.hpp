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
#include "rica/routing/dragonfly.hpp"
#include "rica/routing/fattree.hpp"
#include "rica/routing/faulty.hpp"
#include "rica/routing/graph.hpp"
#include "rica/routing/hyperx.hpp"
#include "rica/routing/spiral.hpp"

namespace rica {

/// The routings a topology type may offer through PacketRoutingFor (rica/routing/candidates.hpp).
inline constexpr std::array<Routing, 4> packet_routings{Routing::valiant, Routing::ugal_l, Routing::ugal_g,
                                                        Routing::par};

namespace detail {
/// f(std::type_identity<R>{}) for R = PacketRoutingFor<T, r>::type when T offers packet routing
/// r (one of First, Rest...), else otherwise().
template <class T, Routing First, Routing... Rest, class F, class G>
decltype(auto) with_packet_routing(Routing r, F&& f, G&& otherwise) {
  if constexpr (HasPacketRouting<T, First>) {
    if (r == First) return f(std::type_identity<typename PacketRoutingFor<T, First>::type>{});
  }
  if constexpr (sizeof...(Rest) == 0)
    return otherwise();
  else
    return with_packet_routing<T, Rest...>(r, f, otherwise);
}
template <class T, class F, class G>
decltype(auto) with_packet_routing(Routing r, F&& f, G&& otherwise) {
  return with_packet_routing<T, Routing::valiant, Routing::ugal_l, Routing::ugal_g, Routing::par>(r, f, otherwise);
}
}  // namespace detail

/// Whether topology t offers routing r (deterministic: always).
inline bool offers(const Topology& t, Routing r) {
  if (r == Routing::deterministic) return true;
  return t.visit([r](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      if (r == Routing::adaptive) return adaptive_t<T>::offered(x);
    }
    return detail::with_packet_routing<T>(
        r, [&](auto id) { return decltype(id)::type::offered(x); }, [] { return false; });
  });
}

/// The names of the routings t offers, e.g. {"deterministic", "adaptive"}.
inline std::vector<std::string> routing_names(const Topology& t) {
  std::vector<std::string> v{"deterministic"};
  if (offers(t, Routing::adaptive)) v.emplace_back(to_string(Routing::adaptive));
  for (Routing r : packet_routings)
    if (offers(t, r)) v.emplace_back(to_string(r));
  return v;
}

/// Throws usage_error "<option>: 'adaptive' is not offered by '<spec>'; offered: ..." unless t
/// offers r; for the dragonfly's non-minimal routings with a `classes=K` below the count they
/// need, the certificate's refusal naming the cycle (certify_dragonfly).
void check_routing(const Topology& t, Routing r, const std::string& option = "--routing");

/// Buffer classes routing r needs on t. Precondition: offers(t, r).
inline class_t routing_classes(const Topology& t, Routing r) {
  if (r == Routing::deterministic) return t.buffer_classes();
  return t.visit([r](const auto& x) -> class_t {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      if (r == Routing::adaptive) return adaptive_t<T>(x).buffer_classes();
    }
    return detail::with_packet_routing<T>(
        r, [&](auto id) -> class_t { return typename decltype(id)::type(x).buffer_classes(); },
        [&]() -> class_t { return x.buffer_classes(); });
  });
}

/// Calls f(t) with the concrete topology (deterministic) or f(Routed<T, R>) (adaptive and the
/// packet routings; `seed` seeds the packet routings' hash). Precondition: offers(t, r).
template <class F>
decltype(auto) visit_routed(const Topology& t, Routing r, F&& f, std::uint64_t seed = 0) {
  return t.visit([&](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (HasAdaptive<T>) {
      if (r == Routing::adaptive) return f(Routed<T, adaptive_t<T>>{&x, adaptive_t<T>(x)});
    }
    return detail::with_packet_routing<T>(
        r,
        [&](auto id) {
          using R = typename decltype(id)::type;
          return f(Routed<T, R>{&x, R(x, seed)});
        },
        [&] { return f(x); });
  });
}

/// The candidate set of routing r at cur (deterministic: the route as the escape, no candidates).
/// Packet routings (valiant, ugal-l, ugal-g, par) route packet p (src, seq; dst must be `dst`),
/// seeded by `seed`; without p, the packet (cur, dst, seq 0). At a deciding router (UGAL: the
/// packet's source router in class 0; PAR: any router in class 0) the minimal hop is the escape
/// and the Valiant hop the candidate (the choice by occupancy is the kernel's); elsewhere the hop
/// it follows. For tools and tests (visits per call).
inline CandidateSet route_candidates(const Topology& t, Routing r, node_t cur, node_t dst, class_t cls,
                                     const Packet* p = nullptr, std::uint64_t seed = 0) {
  CandidateSet cs;
  visit_routed(
      t, r,
      [&](const auto& x) {
        using X = std::decay_t<decltype(x)>;
        if constexpr (requires { x.routing; }) {
          if constexpr (PacketRouting<std::decay_t<decltype(x.routing)>>) {
            Packet own;
            own.src = cur, own.dst = dst;
            const Packet& q = p ? *p : own;
            const unsigned I = x.routing.intermediate(q);
            if (x.routing.decides(cur, q, cls))
              x.routing.candidates(cur, dst, I, cls, cs);
            else
              cs.escape = x.routing.hop(cur, dst, cls, I);
          } else {
            x.routing.candidates(cur, dst, cls, cs);
          }
        } else {
          static_assert(TopologyModel<X>);
          cs.escape = x.route(cur, dst, cls);
        }
      },
      seed);
  return cs;
}

/// One line per routing family beyond deterministic for `rica list`: which topologies offer it and how.
struct RoutingDoc {
  std::string topologies, summary;
  unsigned classes_extra;  ///< buffer classes beyond the deterministic routing's
  std::string name = "adaptive";  ///< the --routing name
};
const std::vector<RoutingDoc>& adaptive_routing_docs();

}  // namespace rica
