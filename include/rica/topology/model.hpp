#pragma once
// What every topology type provides. A topology is a small immutable value type (cheap to copy:
// large tables sit behind shared_ptr<const>), safe to use from any number of threads at once.
//
// Contract (checked by the TopologyModel concept and by tests/test_topology_contract.cpp):
// - nodes(), pes(): PEs are nodes [0, pes()); nodes [pes(), nodes()) are router-only switches.
// - ports(): every out-port and in-port number of every node is < ports().
// - out_link(v, p): the link leaving v through out-port p (peer and the peer's in-port), or an
//   absent Link when v has no such port. Each (peer, in_port) is the end of exactly one link.
// - route(cur, dst, cls): the self-routing decision of the router at `cur` for a packet for PE
//   `dst` that sits in buffer class `cls` (0 for a freshly injected packet). Pure: depends on its
//   arguments only; no allocation. Following it from any PE reaches any other PE, every class
//   returned is < buffer_classes(), and the channel dependency graph over (link, class) is
//   acyclic (Dally-Seitz), so the routing is deadlock-free.
// - buffer_classes(): classes the routing needs (>= 1).
// - label(v): readable node name, e.g. "(3,17)"; spec(): canonical spec string ("dce:n=4,...").
// - shape(): PE coordinate ranges (first fastest), see core.hpp.
// - orbit_count() / orbit(v) / orbit_rep(k): orbits of the nodes under a group of automorphisms
//   that commutes with routing (g maps the route from s to d onto the route from g.s to g.d, with
//   the same classes). orbit_rep(k) lies in orbit k, and PE orbits contain only PEs. The metrics
//   use it to compute exact all-pairs figures from one source per orbit. orbit_count() == 0 means
//   no such group is known.
// - vertex_transitive(): the graph (not necessarily the routing) is vertex-transitive; then the
//   edge connectivity equals the minimum degree (Mader; Hamidoune for digraphs).

#include <concepts>
#include <cstdint>
#include <string>

#include "rica/core.hpp"
#include "rica/topology/family.hpp"  // the optional traits beyond this contract

namespace rica {

template <class T>
concept TopologyModel = requires(const T& t, node_t v, port_t p, class_t c, std::uint32_t k) {
  { t.nodes() } -> std::same_as<node_t>;
  { t.pes() } -> std::same_as<node_t>;
  { t.ports() } -> std::same_as<port_t>;
  { t.out_link(v, p) } -> std::same_as<Link>;
  { t.route(v, v, c) } -> std::same_as<Hop>;
  { t.buffer_classes() } -> std::same_as<class_t>;
  { t.label(v) } -> std::same_as<std::string>;
  { t.spec() } -> std::same_as<std::string>;
  { t.shape() } -> std::same_as<Shape>;
  { t.orbit_count() } -> std::same_as<std::uint32_t>;
  { t.orbit(v) } -> std::same_as<std::uint32_t>;
  { t.orbit_rep(k) } -> std::same_as<node_t>;
  { t.vertex_transitive() } -> std::same_as<bool>;
};

/// Mix-in for topologies with no known routing-preserving symmetry.
struct NoSymmetry {
  [[nodiscard]] std::uint32_t orbit_count() const noexcept { return 0; }
  [[nodiscard]] std::uint32_t orbit(node_t v) const noexcept { return v; }
  [[nodiscard]] node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
};

}  // namespace rica
