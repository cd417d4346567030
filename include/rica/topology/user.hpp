#pragma once
// A user's own topology with its own routing rule, without editing rica (docs/extending.md):
// the type-erased member of the Topology variant, beside `file:` (GraphTopology, table routing).
//
// The user describes the network once (UserTopologyDesc): node and PE counts, ports, buffer
// classes, the links (a callable out_link(v, p) or a list of arcs) and the routing as a callable
// route(cur, dst, cls) -> Hop. The links are copied into a table at construction, so out_link()
// costs one table lookup and no indirect call, like every other family.
//
// Cost per hop: exactly one indirect call (the std::function holding the user's routing; no
// allocation, no virtual call, no lock). The built-in families inline route() into the engines'
// hop loops instead; a UserTopology is for a routing rule that has no place in rica's tree. Use
// GraphTopology when a shortest-path table is the routing (no call at all per hop).
//
// Contract of the routing callable (the TopologyModel contract of model.hpp, plus):
// - Pure and deterministic: the result depends on (cur, dst, cls) only. The cycle engine's
//   results are reproducible only if it is.
// - Thread-safe: the engines call it concurrently from several threads through a const
//   reference, so it must not mutate shared state without synchronisation (captured values and
//   read-only tables are fine).
// - Must not throw during a run and must not allocate on its hot path (it is called per hop).
// - cls is 0 for a freshly injected packet; a forward hop's next_class is the class of the
//   downstream buffer, < buffer_classes.
//
// Validation (usage_error, one line "user topology '<spec>': ..."): at construction the counts,
// the links (peer < nodes, in-port < ports, each (peer, in-port) the end of exactly one link)
// and the callables; and, for networks with pes * nodes <= check_auto_limit (unless the
// description opts out), check_routing(): every ordered pair of distinct PEs is delivered over
// present links, with classes below buffer_classes, within `nodes` hops, and the channel
// dependency graph over (link, class) is acyclic (Dally-Seitz: deadlock-free). Errors name the
// first bad pair (destinations in increasing order, then sources).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// A user's routing: the decision of the router at `cur` for a packet for PE `dst` sitting in
/// buffer class `cls`. Called once per hop, concurrently from several threads (see above).
using UserRouting = std::function<Hop(node_t cur, node_t dst, class_t cls)>;
/// A user's links: the link leaving node v through out-port p < ports, or an absent Link{}.
/// Called once per (v, p) at construction only (from the constructing thread).
using UserLinks = std::function<Link(node_t v, port_t p)>;

/// Everything a UserTopology is made of. Give the links either as `links` (with `ports`) or as
/// `arcs` (ports then computed: out-ports of a node are its arcs in list order, in-ports are
/// numbered in order of (source node, source port), as for `file:`), not both.
struct UserTopologyDesc {
  std::string spec;                 ///< canonical spec ("uring:n=8"); for a registered family it must parse back
  node_t nodes = 0;                 ///< nodes [0, pes) are PEs, [pes, nodes) router-only switches
  node_t pes = 0;                   ///< 0 = every node is a PE
  port_t ports = 0;                 ///< with `links`: out- and in-ports per node (>= 1); with `arcs`: ignored
  class_t buffer_classes = 1;       ///< classes the routing uses (>= 1)
  UserLinks links;                  ///< either this ...
  std::vector<std::pair<node_t, node_t>> arcs;  ///< ... or directed arcs u -> v
  UserRouting routing;              ///< required
  std::vector<std::string> labels;  ///< optional node labels (empty or one per node; "" = the id)
  Shape shape;                      ///< optional PE coordinate ranges (product = pes); default {pes}
  bool check_routing = true;        ///< run check_routing() at construction when pes * nodes <= check_auto_limit

  // The traits a built-in family declares (rica/topology/family.hpp), all optional: the same
  // powers from user code. Each is the user's promise; rica checks what it can (sizes, ranges).
  /// Orbits of the nodes under automorphisms that commute with routing (model.hpp's contract):
  /// empty, or one orbit number per node, numbered 0..K-1 with every number used and PE orbits
  /// holding PEs only. The metrics and channel load then examine one source per orbit.
  std::vector<std::uint32_t> orbits;
  /// The orbit group maps every link (v, p) onto (g.v, p): channel load by orbit (else every source).
  bool symmetry_keeps_ports = false;
  /// The family's partition rule (rica/partition_layout.hpp): the layout for a request, or a
  /// usage_error naming what is wrong; empty = the generic search. Called from one thread.
  std::function<PartitionLayout(const Topology& self, const PartitionRequest& r)> partition;
  std::optional<GridForm> grid;                   ///< a product of paths / rings (metrics, bisection)
  std::optional<BitAddressing> bit_addressing;    ///< node = column + columns * address
  std::string embedding;                          ///< `embed --map auto` for this family ("" = identity)
};

/// A topology whose routing is a user callable. Immutable value type: copies share one
/// description behind shared_ptr<const>, so copying is cheap and every member function is safe
/// to call from any number of threads at once (route() as safe as the user's callable).
/// Symmetry and the other traits as the description declares them (none by default: metrics and
/// channel load then examine every source).
class UserTopology {
 public:
  /// Largest pes * nodes for which the constructor checks the routing by itself (4096 x 4096).
  static constexpr std::uint64_t check_auto_limit = std::uint64_t{1} << 24;
  /// Largest nodes * ports link table (entries of 8 bytes: 1 GiB).
  static constexpr std::uint64_t link_table_limit = std::uint64_t{1} << 27;

  /// Builds the link table and validates the description (and the routing, see the top of this
  /// file). Throws usage_error with a one-line message naming the spec.
  explicit UserTopology(UserTopologyDesc desc);

  node_t nodes() const noexcept { return d_->nodes; }
  node_t pes() const noexcept { return d_->pes; }
  port_t ports() const noexcept { return d_->ports; }
  Link out_link(node_t v, port_t p) const noexcept {
    return p < d_->ports ? d_->table[std::size_t{v} * d_->ports + p] : Link{};
  }
  /// One indirect call: the user's routing.
  Hop route(node_t cur, node_t dst, class_t cls) const { return d_->routing(cur, dst, cls); }
  class_t buffer_classes() const noexcept { return d_->classes; }
  std::string label(node_t v) const;
  std::string spec() const { return d_->spec; }
  Shape shape() const { return d_->shape; }
  std::uint32_t orbit_count() const noexcept { return static_cast<std::uint32_t>(d_->orbit_reps.size()); }
  std::uint32_t orbit(node_t v) const noexcept { return d_->orbit_reps.empty() ? v : d_->orbits[v]; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return d_->orbit_reps.empty() ? k : d_->orbit_reps[k]; }
  /// One orbit of PEs, all nodes PEs.
  bool vertex_transitive() const noexcept { return d_->orbit_reps.size() == 1; }

  /// Traits from the description (rica/topology/family.hpp).
  bool symmetry_keeps_ports() const noexcept { return d_->symmetry_keeps_ports; }
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  std::optional<GridForm> grid_form() const { return d_->grid; }
  std::optional<BitAddressing> bit_addressing() const noexcept { return d_->bit_addressing; }
  std::string_view auto_embedding(bool /*linear_guest*/) const noexcept { return d_->embedding; }

  /// Follows the routing for every ordered pair of distinct PEs (memoised per destination: at
  /// most pes * nodes * buffer_classes route calls) and checks the channel dependency graph.
  /// Throws usage_error naming the first bad pair: a hop through an absent port, a class >=
  /// buffer_classes, delivery at the wrong node, a route longer than nodes() hops or a loop,
  /// or a cycle of channel dependencies (naming a channel on it and a pair whose route uses it).
  /// Any size; may take long on large networks. Thread-safe (reads only).
  void check_routing() const;

 private:
  struct Desc {
    std::string spec;
    node_t nodes = 0, pes = 0;
    port_t ports = 0;
    class_t classes = 1;
    std::vector<Link> table;  // [v * ports + p]; absent links where a node lacks the port
    UserRouting routing;      // never empty
    std::vector<std::string> labels;
    Shape shape;
    std::vector<std::uint32_t> orbits, orbit_reps;  // both empty, or per node / per orbit
    bool symmetry_keeps_ports = false;
    std::function<PartitionLayout(const Topology&, const PartitionRequest&)> partition;
    std::optional<GridForm> grid;
    std::optional<BitAddressing> bit_addressing;
    std::string embedding;
  };
  std::shared_ptr<const Desc> d_;  // never null
};

}  // namespace rica
