#pragma once
// An exact, bounded search for a dilation-1, load-1 placement of a guest graph in a host (`rica
// embed --map search`, the de Bruijn paper §4 (5), (6), (9), (10): rings and complete binary
// trees that survive one failed node or link). Every guest arc must lie on a live host link
// between two distinct live PEs: a subgraph of the host isomorphic to the guest.
//
// The search is a depth-first backtracking over guest nodes (DFS order of the guest, each node
// after the first placed on a free host neighbour of its already placed parent), with sound
// pruning only: a host node must keep as many free neighbours as its guest node has unplaced
// neighbours; a ring or array must still find its remaining nodes, and a ring its way back, in
// the free part of the host reachable from its open end; a ring root that failed is excluded
// from later roots (a ring through it would have been found from it). So it is exhaustive: when
// it ends without a placement none exists ("none", a proof), and when it exceeds its budget of
// placements tried it says so ("gave up") and proves nothing. A found placement is checked arc by
// arc before it is returned.
//
// Thread-safety: the functions are pure; PeGraph values are read-only during a search.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rica/embed.hpp"
#include "rica/topology.hpp"

namespace rica {

/// The direct PE-to-PE arcs of a host (switches and self-loops left out), with failed PEs and
/// links removed. Adjacency lists are sorted and distinct.
struct PeGraph {
  node_t pes = 0;
  std::vector<std::vector<node_t>> out, in, both;  ///< both: out ∪ in (undirected neighbours)
  std::vector<std::uint8_t> live;                  ///< 0: a failed PE (it has no arcs)
  [[nodiscard]] bool has_arc(node_t u, node_t v) const;
  /// Removes every arc u -> v and v -> u (a failed link). No effect when there is none.
  void remove_link(node_t u, node_t v);
  /// Fails PE v: it and all its arcs are gone.
  void remove_node(node_t v);
};

/// The PE graph of `t` (a FaultyTopology's failed links are absent; `failed` PEs are removed).
[[nodiscard]] PeGraph pe_graph(const Topology& t, const std::vector<node_t>& failed = {});

struct SearchResult {
  SearchStatus status = SearchStatus::none;
  std::vector<node_t> placement;  ///< guest node -> PE (found only)
  std::uint64_t steps = 0;        ///< guest nodes placed (tentatively) during the search
};

/// Searches a placement of `guest` on `host` in at most `budget` steps (budget >= 1).
/// Stops with rica::interrupted on Ctrl-C (rica/interrupt.hpp).
[[nodiscard]] SearchResult search_placement(const Guest& guest, const PeGraph& host, std::uint64_t budget);

/// One search per single fault of the host: every link between two PEs (`links`) or every PE.
[[nodiscard]] EveryFaultResult search_every_fault(const Guest& guest, const Topology& host, bool links,
                                                  std::uint64_t budget);

}  // namespace rica
