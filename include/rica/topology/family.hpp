#pragma once
// What a topology family knows about itself beyond the TopologyModel contract (model.hpp): its
// registry entries, and optional traits the analyses use. Each trait is a member the family
// declares in its own header and defines in its own files; code elsewhere asks for it by
// capability (`requires { t.trait(...); }` through the accessors below), never by the family's
// type, so a new family gets every analysis by declaring members, and a family that declares
// none is still correct (the analyses fall back to their generic, exhaustive methods).
//
// The traits (all optional; none runs per hop):
// - static std::vector<TopologyEntry> registry_entries();  its spec names, docs, factories
//   (rica/registry.hpp). The built-in families are gathered from the variant's list (generated
//   from CMakeLists.txt's rica_topology_family() lines), user families register theirs
//   (rica/user_topology.hpp).
// - bool symmetry_keeps_ports() const;  the orbit group (orbit_count() > 0) maps every link
//   (v, p) onto (g.v, p), same out-port, so one source per orbit gives each link's load (channel
//   load). Absent = false: loads are summed over every source (always correct, slower).
// - std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest&)
//   const;  the family's own partition rule (rica/partition_layout.hpp); nullopt = use the
//   generic search. Refuses a request it cannot meet with usage_error.
// - std::optional<GridForm> grid_form() const;  the network is a product of paths / rings.
// - std::optional<ProductFactors> product_factors() const;  the network is G1 x G2.
// - std::optional<BitAddressing> bit_addressing() const;  node = column + columns * address,
//   flipping any one address bit is one link (process maps, embeddings).
// - std::string_view auto_embedding(bool linear_guest) const;  the embedding `embed --map auto`
//   picks ("debruijn", "gray"), empty = identity; linear_guest: a ring, array, mesh or torus
//   (what the Gray code, or a product of two, places).
// - void replace_failed_pes(std::vector<node_t>& failed, std::vector<node_t>& replaced) const;
//   spare PEs that take failed PEs' places (--faults).
// - void check_routing(Routing r, const std::string& option) const;  refuses an offered routing
//   the family's parameters cannot carry (usage_error naming `option`).

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "rica/core.hpp"

namespace rica {

class Topology;
struct TopologyEntry;     // rica/registry.hpp
struct PartitionRequest;  // rica/partition.hpp
struct PartitionLayout;   // rica/partition_layout.hpp
enum class Routing : std::uint8_t;  // rica/engine.hpp

/// A grid of paths (or rings): node id mixed radix over `sides`, first fastest; a side k >= 3 is
/// a ring when `wrap`. The metrics compute exact figures from the sides and bisection a closed
/// form; `decompose` says when the metrics use the factors instead of tracing routes.
struct GridForm {
  enum class Decompose : std::uint8_t {
    always,            ///< distances add over the factors (the routing is dimension order)
    without_symmetry,  ///< only when the orbits would not fit the exact budget
    never,             ///< the family's orbits are exact already; the grid serves bisection only
  };
  Shape sides;
  bool wrap = false;
  Decompose decompose = Decompose::always;
};

/// The Cartesian product G1 x G2 (node (v1, v2) = v1 + N1 v2; G1's routing first). The pointers
/// live as long as the family value that returned them.
struct ProductFactors {
  const Topology* first = nullptr;
  const Topology* second = nullptr;
};

/// Node = column + columns * address; flipping any one bit of the address is one link.
struct BitAddressing {
  node_t columns = 1;
  std::string_view name;  ///< of the Gray-code embedding this allows ("gray", "ring-gray")
};

namespace family {

template <class T>
bool symmetry_keeps_ports(const T& t) {
  if constexpr (requires { t.symmetry_keeps_ports(); }) return t.symmetry_keeps_ports();
  else return false;
}
template <class T>
std::optional<GridForm> grid_form(const T& t) {
  if constexpr (requires { t.grid_form(); }) return t.grid_form();
  else return std::nullopt;
}
template <class T>
std::optional<ProductFactors> product_factors(const T& t) {
  if constexpr (requires { t.product_factors(); }) return t.product_factors();
  else return std::nullopt;
}
template <class T>
std::optional<BitAddressing> bit_addressing(const T& t) {
  if constexpr (requires { t.bit_addressing(); }) return t.bit_addressing();
  else return std::nullopt;
}
template <class T>
std::string_view auto_embedding(const T& t, bool linear_guest) {
  if constexpr (requires { t.auto_embedding(linear_guest); }) return t.auto_embedding(linear_guest);
  else return {};
}

}  // namespace family

/// The members every family repeats, from its counts: a family derives from
/// `FamilyBase<Self>` and sets nodes_, pes_, ports_, classes_ in its constructor (CRTP: no virtual
/// call, the accessors inline). Shape defaults to {pes}, no symmetry, not vertex-transitive;
/// a family redeclares any of them to say more.
template <class Self>
class FamilyBase {
 public:
  [[nodiscard]] node_t nodes() const noexcept { return nodes_; }
  [[nodiscard]] node_t pes() const noexcept { return pes_; }
  [[nodiscard]] port_t ports() const noexcept { return ports_; }
  [[nodiscard]] class_t buffer_classes() const noexcept { return classes_; }
  [[nodiscard]] Shape shape() const { return {pes_}; }
  [[nodiscard]] std::uint32_t orbit_count() const noexcept { return 0; }
  [[nodiscard]] std::uint32_t orbit(node_t v) const noexcept { return v; }
  [[nodiscard]] node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
  [[nodiscard]] bool vertex_transitive() const noexcept { return false; }

 protected:
  node_t nodes_ = 0, pes_ = 0;
  port_t ports_ = 0;
  class_t classes_ = 1;
};

}  // namespace rica
