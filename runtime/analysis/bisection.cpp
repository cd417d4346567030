// Bisection width (include/rica/bisection.hpp): closed forms where they are the minimum, else
// the best balanced cut METIS finds (an upper bound, said in `method`).
#include "rica/bisection.hpp"

#include <fmt/format.h>
#include <metis.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "rica/graph.hpp"
#include "rica/topology/cube.hpp"

namespace rica {
namespace {

/// METIS runs on networks up to this many nodes (about 4 s and 300 MB at 2^19 on one core).
constexpr node_t max_metis_nodes = node_t{1} << 19;

/// The undirected link multigraph: for every unordered pair {u, v} of distinct nodes the number of
/// links between them (max of the arcs each way, as `links` counts them).
struct LinkGraph {
  std::vector<std::uint32_t> first;        // nodes + 1 offsets
  std::vector<node_t> peer;                // both directions listed
  std::vector<std::uint32_t> weight;       // links between the pair
};

LinkGraph link_graph(const Topology& t) {
  const Graph g = build_graph(t);
  const Graph rev = g.reversed();
  LinkGraph lg;
  lg.first.assign(g.nodes + 1, 0);
  std::vector<node_t> out, in;
  for (node_t u = 0; u < g.nodes; ++u) {
    out.assign(g.target.begin() + g.first[u], g.target.begin() + g.first[u + 1]);
    in.assign(rev.target.begin() + rev.first[u], rev.target.begin() + rev.first[u + 1]);
    std::sort(out.begin(), out.end());
    std::sort(in.begin(), in.end());
    std::size_t i = 0, k = 0;
    while (i < out.size() || k < in.size()) {  // merge: per peer, max(arcs out, arcs in)
      const node_t w = std::min(i < out.size() ? out[i] : no_node, k < in.size() ? in[k] : no_node);
      std::uint32_t co = 0, ci = 0;
      while (i < out.size() && out[i] == w) ++i, ++co;
      while (k < in.size() && in[k] == w) ++k, ++ci;
      if (w == u) continue;  // self-loops cut nothing
      lg.peer.push_back(w);
      lg.weight.push_back(std::max(co, ci));
    }
    lg.first[u + 1] = static_cast<std::uint32_t>(lg.peer.size());
  }
  return lg;
}

std::uint64_t cut_of(const LinkGraph& lg, const std::vector<std::uint8_t>& side) {
  std::uint64_t cut = 0;
  for (node_t u = 0; u + 1 < lg.first.size(); ++u)
    for (std::uint32_t e = lg.first[u]; e < lg.first[u + 1]; ++e)
      if (lg.peer[e] > u && side[u] != side[lg.peer[e]]) cut += lg.weight[e];
  return cut;
}

/// Moves the PEs of the larger side that cost least to the other side until the PEs split
/// floor(N/2) / ceil(N/2).
void balance(const LinkGraph& lg, node_t pes, std::vector<std::uint8_t>& side) {
  node_t on1 = 0;
  for (node_t v = 0; v < pes; ++v) on1 += side[v];
  const node_t want_hi = pes - pes / 2;  // a side may hold at most ceil(N/2)
  const std::uint8_t heavy = on1 > want_hi ? 1 : 0;
  const node_t have = heavy ? on1 : pes - on1;
  if (have <= want_hi) return;
  const node_t excess = have - want_hi;
  std::vector<std::pair<std::int64_t, node_t>> cost;  // (cut increase if moved, PE)
  for (node_t v = 0; v < pes; ++v) {
    if (side[v] != heavy) continue;
    std::int64_t d = 0;
    for (std::uint32_t e = lg.first[v]; e < lg.first[v + 1]; ++e)
      d += side[lg.peer[e]] == heavy ? std::int64_t{lg.weight[e]} : -std::int64_t{lg.weight[e]};
    cost.emplace_back(d, v);
  }
  std::nth_element(cost.begin(), cost.begin() + excess, cost.end());
  for (node_t i = 0; i < excess; ++i) side[cost[i].second] = static_cast<std::uint8_t>(1 - heavy);
}

/// METIS recursive bisection of the link graph, PEs weighted 1 and switches 0, then balanced.
std::pair<std::uint64_t, std::vector<std::uint8_t>> metis_cut(const LinkGraph& lg, node_t nodes, node_t pes,
                                                              std::uint64_t seed) {
  std::vector<idx_t> xadj(lg.first.begin(), lg.first.end()), adjncy(lg.peer.begin(), lg.peer.end()),
      adjwgt(lg.weight.begin(), lg.weight.end()), vwgt(nodes, 0);
  for (node_t v = 0; v < pes; ++v) vwgt[v] = 1;
  idx_t n = static_cast<idx_t>(nodes), ncon = 1, nparts = 2, objval = 0;
  std::vector<idx_t> part(nodes, 0);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = static_cast<idx_t>(seed & 0x7fffffff);
  options[METIS_OPTION_NCUTS] = 4;
  options[METIS_OPTION_UFACTOR] = 1;
  const int rc = METIS_PartGraphRecursive(&n, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                          adjwgt.data(), &nparts, nullptr, nullptr, options, &objval, part.data());
  std::vector<std::uint8_t> side(nodes, 0);
  if (rc != METIS_OK) {  // fall back to the PE-id halves
    for (node_t v = pes / 2; v < pes; ++v) side[v] = 1;
  } else {
    for (node_t v = 0; v < nodes; ++v) side[v] = static_cast<std::uint8_t>(part[v] != 0);
  }
  balance(lg, pes, side);
  return {cut_of(lg, side), std::move(side)};
}

}  // namespace

std::uint64_t cut_links(const Topology& t, const std::vector<std::uint8_t>& side) {
  return cut_of(link_graph(t), side);
}

Bisection bisection_width(const Topology& t, std::uint64_t seed) {
  Bisection b;
  const node_t N = t.pes();
  if (N < 2) return b;
  // Closed forms: meshes and tori with every side equal and even (the cut across one dimension is
  // the minimum; for k = 2 a "ring" is one link, the hypercube's N/2).
  // The family's grid form (rica/topology/family.hpp): meshes, tori, the hypercube (sides of 2).
  std::optional<std::uint64_t> across;  // the cut across the longest even dimension: an upper bound
  if (const auto grid = t.grid_form()) {
    const Shape& shape = grid->sides;
    const bool wraps = grid->wrap;
    const auto kmax = *std::max_element(shape.begin(), shape.end());
    const bool equal = std::all_of(shape.begin(), shape.end(), [&](auto k) { return k == kmax; });
    if (kmax % 2 == 0) {
      const std::uint64_t rings = N / kmax;
      across = rings * (wraps && kmax >= 3 ? 2 : 1);
      if (equal) {
        b.width = *across;
        b.exact = true;
        b.method = kmax == 2 ? "exact: N/2 (hypercube)"
                   : wraps   ? "exact: 2N/k (k-ary d-cube, k even)"
                             : "exact: N/k (k^d mesh, k even)";
        return b;
      }
    }
  }
  if (t.nodes() > max_metis_nodes) {
    if (across) {
      b.width = *across;
      b.method = "upper bound: the cut across the longest even dimension (too large for METIS here)";
    } else {
      b.method = fmt::format("not computed: {} nodes, above the METIS budget of {}", t.nodes(), max_metis_nodes);
    }
    return b;
  }
  const LinkGraph lg = link_graph(t);
  const auto [cut, side] = metis_cut(lg, t.nodes(), N, seed);
  b.width = cut;
  b.method = fmt::format("upper bound: METIS {}.{}.{} recursive bisection, balanced", METIS_VER_MAJOR, METIS_VER_MINOR,
                         METIS_VER_SUBMINOR);
  if (across && *across < b.width) {
    b.width = *across;
    b.method = "upper bound: the cut across the longest even dimension (METIS found no smaller)";
  }
  return b;
}

}  // namespace rica
