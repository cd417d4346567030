#pragma once
// Embedding a guest graph into a host topology (the de Bruijn paper §4: rings, linear arrays,
// complete binary trees, double trees and the shuffle-exchange graph in de Bruijn and
// shuffle-exchange networks). Guest nodes are placed
// on host PEs, every guest arc is routed by the host's own routing, and the embedding is
// measured: dilation (longest routed guest arc), congestion (most guest arcs over one host
// link), load (most guest nodes on one PE), expansion (host PEs / guest nodes).

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rica/topology.hpp"

namespace rica {

/// A guest graph: nodes 0..nodes-1 and directed arcs (an undirected edge is two arcs).
struct Guest {
  /// canonical: "ring:N", "array:N", "tree:H", "double-tree:H", "shuffle-exchange:n", "mesh:RxC", "torus:RxC"
  std::string spec;
  enum class Kind : std::uint8_t { ring, array, tree, double_tree, shuffle_exchange, mesh, torus } kind = Kind::ring;
  unsigned height = 0;  ///< tree, double-tree: H; shuffle-exchange: n (address bits)
  std::uint32_t rows = 0, cols = 0;  ///< mesh, torus: R x C, node x + R y at column x, row y (first coordinate fastest)
  node_t nodes = 0;
  std::vector<std::pair<node_t, node_t>> arcs;
};

/// "ring[:N]", "array[:N]" (a linear array), "tree[:H]" (complete binary tree of height H,
/// 2^(H+1) - 1 nodes, node k's children 2k+1 and 2k+2). N defaults to host_pes and H to
/// log2(host_pes) - 1 (the paper's N - 1 node tree).
/// "double-tree[:H]": two complete binary trees of height H joined at their 2^H leaves, 3 * 2^H - 2
/// nodes: tree A is nodes 0 .. 2^(H+1) - 2 in heap order (leaves 2^H - 1 .. 2^(H+1) - 2); tree B
/// has the same heap shape, its internal heap index i (< 2^H - 1) being node 2^(H+1) - 1 + i and
/// its leaf heap index i being A's node i (leaf i of A is leaf i of B). H defaults to
/// log2(host_pes) - 2 (the paper's 3N/4 - 2 node double tree).
/// "shuffle-exchange[:n]": 2^n nodes, shuffle edges v - rotl(v) (self-loops of 0 and 2^n - 1
/// dropped) and exchange edges v - v^1; n defaults to log2(host_pes). Parallel edges are merged.
/// "mesh[:RxC]" / "torus[:RxC]": the R x C grid (torus: with wrap-around edges; each side >= 3
/// for a torus so no edge doubles), node x + R y; the default is the square sqrt(P) x sqrt(P)
/// when host_pes is a square, else 2^ceil(n/2) x 2^floor(n/2) when it is 2^n.
/// oriented: one arc per edge (i -> i+1, parent -> child, v -> rotl(v), even -> odd) instead of
/// both. Throws usage_error naming what is wrong.
[[nodiscard]] Guest parse_guest(std::string_view spec, node_t host_pes, bool oriented);

/// Placement of guest nodes on host PEs.
enum class EmbedMap : std::uint8_t {
  automatic,  ///< debruijn on de Bruijn and shuffle-exchange hosts, gray on hypercubes, else identity
  identity,   ///< guest node i on PE i mod P
  debruijn,   ///< 2^n PEs: rings/arrays along a de Bruijn sequence (consecutive windows are
              ///< shift neighbours), trees in heap order (node k on PE k+1: children 2v, 2v+1),
              ///< double trees: tree A as a tree, tree B's depth-d node of path x on PE
              ///< (1^(H-d) 0^(n-H-1) 1) x (both trees' arcs are left shifts; needs H <= n-2),
              ///< shuffle-exchange: node v on PE v
  gray,       ///< rings/arrays on the reflected Gray code (hypercube neighbours); a 2^a x 2^b mesh or
              ///< torus as the product of two Gray codes (PE gray(x) | gray(y) << a)
};
[[nodiscard]] EmbedMap parse_embed_map(std::string_view name);
[[nodiscard]] std::string_view to_string(EmbedMap m) noexcept;

struct EmbedResult {
  std::string guest, host, map;     ///< map: the placement used (never "automatic")
  node_t guest_nodes = 0, host_pes = 0;
  std::uint64_t arcs = 0;           ///< guest arcs routed
  unsigned dilation = 0;            ///< host links of the longest routed guest arc
  double mean_dilation = 0;
  unsigned congestion = 0;          ///< guest arcs over the busiest host link (per direction)
  unsigned load = 0;                ///< guest nodes on the fullest PE
  double expansion = 0;             ///< host PEs / guest nodes
  std::vector<node_t> placement;    ///< guest node -> host PE
  std::string faults;               ///< the fault spec applied ("" = intact host)
  std::uint32_t failed_pes = 0;     ///< PEs failed by it (spares that took over excluded)
  std::uint32_t moved = 0;          ///< guest nodes re-placed off a failed PE
  node_t rotation = 0;              ///< ring/array under faults: where on the host cycle node 0 sits
};

/// Places and routes; throws usage_error when the map does not fit the host or guest.
[[nodiscard]] EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map = EmbedMap::automatic);

/// The same on `host` with the faults of `faults` (rica/faults.hpp: links=K,nodes=K,file:PATH;
/// drawn with `seed`; at= refused: an embedding is static). The map is chosen and computed on the
/// intact host, then every guest node on a failed PE moves to the next live PE in address order
/// (cyclic; `moved` counts them, `load` shows the doubling up), and every guest arc is routed by
/// the faulty network's own rerouting (the tables of docs/faults.md) around failed links and
/// nodes. A ring or array laid along the map's Hamiltonian cycle of the host (its placement of
/// ring:P) may start anywhere on it: every rotation is tried and the one with the fewest moved
/// nodes, then the lowest dilation, congestion and mean dilation is kept (`rotation`).
/// usage_error when the faults disconnect the surviving PEs. An empty spec is embed().
[[nodiscard]] EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map, const std::string& faults,
                                std::uint64_t seed);

[[nodiscard]] nlohmann::json to_json(const EmbedResult& r);

/// A binary de Bruijn sequence of order n (length 2^n, lexicographically least; FKM algorithm):
/// its 2^n cyclic windows of n bits, read MSB first, are every n-bit word once.
[[nodiscard]] std::vector<std::uint8_t> de_bruijn_sequence(unsigned n);

}  // namespace rica
