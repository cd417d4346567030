#pragma once
// Topology families from user code (docs/extending.md). A registered family is listed by
// `rica list` and accepted by name wherever a topology spec is (every subcommand, Python).
//
// The factory returns any rica::Topology:
// - a GraphTopology built from an EdgeList in code (rica/topology/table.hpp): shortest-path table
//   routing, one table lookup per hop and no indirect call; nodes x PEs bytes of table, at most
//   GraphTopology::table_limit nodes;
// - a UserTopology (rica/topology/user.hpp): the user's own routing rule as a callable, one
//   indirect call per hop (no allocation); links in a table built once; the routing checked at
//   construction (delivery, classes, acyclic channel dependencies) when PEs x nodes <= 4096^2;
// - or a composition of built-in families (ProductTopology, HierTopology).
// Contract: its spec() parses back to the same network, so give GraphTopology and UserTopology
// the canonical "name:key=value,..." text.

#include <utility>

#include "rica/registry.hpp"
#include "rica/topology/user.hpp"

namespace rica {

/// Adds a family. Call before any run, from one thread. usage_error when the name is malformed
/// (check_registered_name), taken, or the entry has no factory.
void register_topology(TopologyEntry entry);

/// Static registration: a namespace-scope `static const rica::TopologyRegistration reg{{...}};`.
struct TopologyRegistration {
  explicit TopologyRegistration(TopologyEntry entry) { register_topology(std::move(entry)); }
};

}  // namespace rica
