#pragma once
// Embedding a guest graph into a host topology (the de Bruijn paper §4: rings, linear arrays,
// complete binary trees, double trees and the shuffle-exchange graph in de Bruijn and
// shuffle-exchange networks). Guest nodes are placed
// on host PEs, every guest arc is routed by the host's own routing, and the embedding is
// measured: dilation (longest routed guest arc), congestion (most guest arcs over one host
// link), load (most guest nodes on one PE), expansion (host PEs / guest nodes).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rica/topology.hpp"

namespace rica {

// The defaults and limits of `rica embed --map search` (the embedding's own, beside its API).
namespace defaults::embed {
/// Guest nodes placed (tentatively) before a search gives up, per search (per fault with
/// --every-fault): a second or two at most on 64-PE hosts.
inline constexpr std::uint64_t search_budget = 1'000'000;
inline constexpr std::uint64_t search_budget_max = std::uint64_t{1} << 40;  ///< --search-budget in [1, 2^40]
}  // namespace defaults::embed

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
  product,    ///< a mesh or torus guest on a product host A*B of two direct networks: row x on A's
              ///< own placement of array:R (ring:R for a torus), column y on B's of array:C (ring:C);
              ///< PE a + |A| b (the de Bruijn paper §9: the product of two de Bruijn networks
              ///< contains meshes and tori because each factor contains arrays and rings)
  search,     ///< any guest: an exact, bounded search for a dilation-1, load-1 placement on the
              ///< (faulty) host's live links (rica/embed_search.hpp); says when none exists or
              ///< when it gave up
};
[[nodiscard]] EmbedMap parse_embed_map(std::string_view name);
[[nodiscard]] std::string_view to_string(EmbedMap m) noexcept;

/// What a search found (rica/embed_search.hpp).
enum class SearchStatus : std::uint8_t {
  found,    ///< a placement exists (returned, checked arc by arc)
  none,     ///< the search was exhaustive: no dilation-1, load-1 placement exists
  gave_up,  ///< the budget ran out first: nothing is proved
};
[[nodiscard]] std::string_view to_string(SearchStatus s) noexcept;

/// `--every-fault`: one search per single fault of the host (every link between two PEs, or
/// every PE), on the host's PE graph with that one fault.
struct EveryFaultResult {
  std::string kind;                 ///< "links" or "nodes"
  std::uint64_t faults = 0;         ///< single faults tried
  std::uint64_t found = 0, none = 0, gave_up = 0;
  std::uint64_t repaired = 0;       ///< node faults a spare repaired (searched on the intact host)
  std::uint64_t steps_max = 0, steps_total = 0;
  std::uint64_t budget = 0;         ///< steps per fault
  /// The faults without a placement: ("link U V" or "node V", none or gave up), in fault order.
  std::vector<std::pair<std::string, SearchStatus>> missing;
};

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
  /// --map search: its status (placement and figures only when found), steps used and budget.
  std::optional<SearchStatus> search;
  std::uint64_t search_steps = 0, search_budget = 0;
  std::optional<EveryFaultResult> every_fault;  ///< --every-fault (then no single placement)
  /// A placement was made and measured (false: a search without one, or --every-fault).
  [[nodiscard]] bool placed() const noexcept { return !placement.empty(); }
};

/// Places and routes; throws usage_error when the map does not fit the host or guest.
/// EmbedMap::search searches with `search_budget` steps (>= 1).
[[nodiscard]] EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map = EmbedMap::automatic,
                                std::uint64_t search_budget = defaults::embed::search_budget);

/// The same on `host` with the faults of `faults` (rica/faults.hpp: links=K,nodes=K,file:PATH;
/// drawn with `seed`; at= refused: an embedding is static). The map is chosen and computed on the
/// intact host, then every guest node on a failed PE moves to the next live PE in address order
/// (cyclic; `moved` counts them, `load` shows the doubling up), and every guest arc is routed by
/// the faulty network's own rerouting (the tables of docs/faults.md) around failed links and
/// nodes. A ring or array laid along the map's Hamiltonian cycle of the host (its placement of
/// ring:P) may start anywhere on it: every rotation is tried and the one with the fewest moved
/// nodes, then the lowest dilation, congestion and mean dilation is kept (`rotation`).
/// usage_error when the faults disconnect the surviving PEs. An empty spec is embed().
/// EmbedMap::search instead searches the faulty host's live PEs and links (no moving, no rotation).
[[nodiscard]] EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map, const std::string& faults,
                                std::uint64_t seed, std::uint64_t search_budget = defaults::embed::search_budget);

/// `--every-fault`: EmbedMap::search on `host` once per single fault of `faults`, which must be
/// exactly "links=1" or "nodes=1" (usage_error otherwise).
[[nodiscard]] EmbedResult embed_every_fault(const Guest& guest, const Topology& host, const std::string& faults,
                                            std::uint64_t search_budget = defaults::embed::search_budget);

[[nodiscard]] nlohmann::json to_json(const EmbedResult& r);

/// A binary de Bruijn sequence of order n (length 2^n, lexicographically least; FKM algorithm):
/// its 2^n cyclic windows of n bits, read MSB first, are every n-bit word once.
[[nodiscard]] std::vector<std::uint8_t> de_bruijn_sequence(unsigned n);

}  // namespace rica
