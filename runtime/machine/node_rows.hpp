#pragma once
// Where each node's rows start in the machine's per-port tables (input link buffers, credits,
// upstream nodes, link counters, the cycle engine's port state): memory per port in use, not per
// port built (issue 43).
//
// An indirect network numbers its terminals (the PEs) first and its routers after them (dragonfly,
// Slim Fly, fat trees, the multistage networks): a PE uses one port where a router has dozens, so
// giving every node the routers' width spent nearly all of a high-radix machine's memory on ports
// that carry nothing (dragonfly:h=16: 31 KB per PE). The rows come in two widths: nodes below
// `split` have `narrow` ports, the others `wide`. A direct network (every node alike) has one
// width: split == nodes, narrow == wide == the topology's ports, the layout of old (row v*ports).
//
// A value type, fixed at allocation; any thread may read it.
#include <cstddef>
#include <cstdint>

#include "rica/assert.hpp"
#include "rica/core.hpp"

namespace rica::detail {

struct NodeRows {
  node_t nodes = 0;
  node_t split = 0;  ///< nodes below have `narrow` ports, the others `wide`
  port_t narrow = 0, wide = 0;
  std::size_t shift = 0;  ///< split * (wide - narrow): row(v) = v * wide - shift from split on
  std::size_t total = 0;  ///< rows over all nodes (the tables' length in ports)

  /// Every node `ports` wide (a direct network, or a machine over MPI ranks).
  static NodeRows uniform(node_t nodes, port_t ports) noexcept { return two(nodes, nodes, ports, ports); }
  /// Nodes [0, split) `narrow` ports wide, [split, nodes) `wide`. Precondition: narrow <= wide.
  static NodeRows two(node_t nodes, node_t split, port_t narrow, port_t wide) noexcept {
    RICA_ASSERT(narrow <= wide && split <= nodes, "NodeRows: narrow rows wider than wide ones");
    NodeRows r;
    r.nodes = nodes;
    r.split = split;
    r.narrow = narrow;
    r.wide = wide;
    r.shift = std::size_t{split} * (wide - narrow);
    r.total = std::size_t{nodes} * wide - r.shift;
    return r;
  }
  bool is_uniform() const noexcept { return narrow == wide; }
  /// The first row (port index into a per-port table) of node v.
  std::size_t row(node_t v) const noexcept {
    return v < split ? std::size_t{v} * narrow : std::size_t{v} * wide - shift;
  }
  /// Ports node v has rows for: every port a link leaves or arrives on is below it.
  port_t width(node_t v) const noexcept { return v < split ? narrow : wide; }
  /// The node whose rows hold row r (r < total).
  node_t node_of(std::size_t r) const noexcept {
    const std::size_t b = std::size_t{split} * narrow;
    if (r < b) return static_cast<node_t>(r / narrow);
    return static_cast<node_t>(split + (r - b) / wide);
  }
};

}  // namespace rica::detail
