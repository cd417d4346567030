#pragma once
// Topologies built from others (docs/topologies.md): the Cartesian product G1 x G2 and the
// two-level hierarchy (cluster network + inter-cluster network). Both require direct networks
// (every node a PE). Their per-hop route() visits the child topologies' variant (a switch, not a
// virtual call); their member functions are defined inline in rica/topology.hpp.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

class Topology;

/// Node (v1, v2) = v1 + N1 * v2. Out-ports [0, p1) are G1's, [p1, p1+p2) G2's (same for in-ports).
/// Routing: G1's routing until v1 = d1, then G2's. Classes: G1 phase [0, c1), G2 phase
/// [c1, c1+c2); a packet whose class is below c1 when it starts the G2 phase starts it fresh.
class ProductTopology {
 public:
  ProductTopology(const Topology& a, const Topology& b);
  node_t nodes() const noexcept { return n1_ * n2_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return static_cast<port_t>(p1_ + p2_); }
  Link out_link(node_t v, port_t p) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  class_t buffer_classes() const noexcept { return classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const;
  std::uint32_t orbit_count() const noexcept { return k1_ * k2_; }
  std::uint32_t orbit(node_t v) const noexcept;
  node_t orbit_rep(std::uint32_t k) const noexcept;
  bool vertex_transitive() const noexcept;
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  /// Both factors' orbit groups keep ports, so does their product.
  bool symmetry_keeps_ports() const noexcept;
  std::optional<ProductFactors> product_factors() const noexcept { return ProductFactors{a_.get(), b_.get()}; }
  const Topology& first() const noexcept { return *a_; }
  const Topology& second() const noexcept { return *b_; }

 private:
  std::shared_ptr<const Topology> a_, b_;
  node_t n1_, n2_;
  port_t p1_, p2_;
  class_t c1_, c2_;
  class_t classes_;  ///< computed and range-checked in the constructor (never wraps)
  std::uint32_t k1_, k2_;  // orbit counts, 0 when either child has no symmetry (then both 0)
};

/// N2 clusters of N1 nodes; node = local + N1 * cluster. Every cluster is a copy of G1 (out-ports
/// [0, p1)); the interface node `iface` of each cluster also has G2's links to the interface
/// nodes of the other clusters (out-ports [p1, p1+p2)).
/// Routing: G1 to the interface node, G2 between clusters, G1 to the destination. Classes: three
/// phases [0, c1), [c1, c1+c2), [c1+c2, 2c1+c2), so the channel dependencies are layered.
class HierTopology : private NoSymmetry {
 public:
  HierTopology(const Topology& cluster, const Topology& global, node_t iface);
  node_t nodes() const noexcept { return n1_ * n2_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return static_cast<port_t>(p1_ + p2_); }
  Link out_link(node_t v, port_t p) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  class_t buffer_classes() const noexcept { return classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {n1_, n2_}; }
  using NoSymmetry::orbit;
  using NoSymmetry::orbit_count;
  using NoSymmetry::orbit_rep;
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();

 private:
  std::shared_ptr<const Topology> a_, b_;
  node_t n1_, n2_, iface_;
  port_t p1_, p2_;
  class_t c1_, c2_;
  class_t classes_;  ///< computed and range-checked in the constructor (never wraps)
};

}  // namespace rica
