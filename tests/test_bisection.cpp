// Bisection width (include/rica/bisection.hpp): the closed forms against brute force over every
// balanced split of small direct networks, and the METIS upper bound never below the minimum.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "rica/bisection.hpp"
#include "rica/graph.hpp"
#include "rica/registry.hpp"

namespace rica {
namespace {

/// The minimum over every split of the PEs of a direct network into floor(N/2) / ceil(N/2)
/// (PE 0 on side 0, so each split is counted once), by counting the cut links of the explicit
/// graph directly (independent of runtime/analysis/bisection.cpp's link graph).
std::uint64_t brute_force(const Topology& t) {
  const node_t N = t.pes();
  EXPECT_EQ(t.nodes(), N) << "brute force is for direct networks";
  EXPECT_LE(N, 20u);
  const Graph g = build_graph(t);
  // links between u < v: max(arcs u->v, arcs v->u)
  std::vector<std::vector<std::uint32_t>> arcs(N, std::vector<std::uint32_t>(N, 0));
  for (node_t u = 0; u < N; ++u)
    for (std::uint32_t e = g.first[u]; e < g.first[u + 1]; ++e) ++arcs[u][g.target[e]];
  std::uint64_t best = ~std::uint64_t{0};
  const std::uint32_t half = N / 2;
  for (std::uint32_t mask = 0; mask < (1u << N); mask += 2) {  // bit 0 (PE 0) clear: side 0
    const auto ones = static_cast<std::uint32_t>(std::popcount(mask));
    if (ones != half && ones != N - half) continue;
    std::uint64_t cut = 0;
    for (node_t u = 0; u < N; ++u)
      for (node_t v = u + 1; v < N; ++v)
        if (((mask >> u) & 1) != ((mask >> v) & 1)) cut += std::max(arcs[u][v], arcs[v][u]);
    best = std::min(best, cut);
  }
  return best;
}

TEST(Bisection, ClosedFormsEqualBruteForce) {
  for (const char* spec : {"hypercube:2", "hypercube:3", "hypercube:4", "torus:4x4", "mesh:4x4", "torus:2x2x2x2",
                           "mesh:2x2x2", "torus:6", "mesh:8"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const Bisection b = bisection_width(t);
    EXPECT_TRUE(b.exact) << spec << ": " << b.method;
    EXPECT_EQ(b.width, brute_force(t)) << spec << ": " << b.method;
  }
}

TEST(Bisection, ClosedFormsAtScale) {
  EXPECT_EQ(bisection_width(TopologyRegistry::parse("hypercube:10")).width, 512u);
  EXPECT_EQ(bisection_width(TopologyRegistry::parse("torus:32x32")).width, 64u);
  EXPECT_EQ(bisection_width(TopologyRegistry::parse("mesh:32x32")).width, 32u);
  EXPECT_EQ(bisection_width(TopologyRegistry::parse("torus:8x8x8")).width, 128u);
}

TEST(Bisection, UpperBoundIsABalancedCutNeverBelowTheMinimum) {
  for (const char* spec : {"cbanyan:n=2", "cbanyan:n=2,S=3", "ccc:n=2,S=3", "ubruijn:4", "debruijn:4", "shuffle:4",
                           "mesh8:4", "torus8:4", "msn:4x4", "torus:3x5", "mesh:3x4", "mxx:8", "comega:n=2", "torus:3x6"}) {
    const Topology t = TopologyRegistry::parse(spec);
    if (t.pes() > 20 || t.nodes() != t.pes()) continue;
    const Bisection b = bisection_width(t);
    const std::uint64_t best = brute_force(t);
    EXPECT_GE(b.width, best) << spec << ": " << b.method;
    EXPECT_LE(b.width, best + best / 2 + 1) << spec << ": METIS far from the minimum, " << b.method;
    if (!b.exact) { EXPECT_NE(b.method.find("upper bound"), std::string::npos) << spec; }
  }
}

TEST(Bisection, IndirectNetworksSplitThePesWithSwitchesFree) {
  // Omega with 2^n PEs: the two halves of the PEs; any cut found is an upper bound >= 1.
  for (const char* spec : {"omega:4", "fattree:4"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const Bisection b = bisection_width(t);
    EXPECT_FALSE(b.exact);
    EXPECT_GE(b.width, 1u) << spec;
    // A cut of the given size exists: the PE-id halves with every switch on side 0 cut at least
    // as many links as METIS's best (METIS never does worse than that naive split here).
    std::vector<std::uint8_t> side(t.nodes(), 0);
    for (node_t v = t.pes() / 2; v < t.pes(); ++v) side[v] = 1;
    EXPECT_LE(b.width, cut_links(t, side)) << spec;
  }
}

}  // namespace
}  // namespace rica
