// Embeddings of rings, linear arrays and complete binary trees (the de Bruijn paper §4):
// placements and the measured dilation / congestion / load, each checked against an
// independent computation (host adjacency, BFS distances, hand-counted small cases).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <set>

#include "rica/embed.hpp"
#include "rica/graph.hpp"
#include "rica/registry.hpp"
#include "support.hpp"

namespace rica {
namespace {

bool adjacent(const Topology& t, node_t u, node_t v) {
  for (port_t p = 0; p < t.ports(); ++p)
    if (t.out_link(u, p).peer == v) return true;
  return false;
}

TEST(Embed, DeBruijnSequenceHasEveryWindowOnce) {
  for (unsigned n = 1; n <= 14; ++n) {
    const auto seq = de_bruijn_sequence(n);
    const std::size_t N = std::size_t{1} << n;
    ASSERT_EQ(seq.size(), N);
    std::set<std::uint32_t> windows;
    for (std::size_t i = 0; i < N; ++i) {
      std::uint32_t w = 0;
      for (unsigned j = 0; j < n; ++j) w = (w << 1) | seq[(i + j) % N];
      windows.insert(w);
    }
    EXPECT_EQ(windows.size(), N) << "n=" << n;
  }
}

// §4 (1), (2): an N-node ring and linear array with dilation 1 in B(2,n) and UB(2,n); (7): the
// complete binary tree of N-1 nodes and height n-1 with dilation 1.
TEST(Embed, RingArrayAndTreeHaveDilationOneInDeBruijn) {
  for (unsigned n = 3; n <= 10; ++n) {
    for (const char* kind : {"debruijn", "ubruijn"}) {
      const Topology host = TopologyRegistry::parse(fmt::format("{}:{}", kind, n));
      const bool oriented = std::string(kind) == "debruijn";  // a directed host: one way only
      for (const char* g : {"ring", "array", "tree"}) {
        const Guest guest = parse_guest(g, host.pes(), oriented);
        const EmbedResult r = embed(guest, host);
        EXPECT_EQ(r.map, "debruijn");
        EXPECT_EQ(r.dilation, 1u) << g << " in " << host.spec();
        EXPECT_EQ(r.congestion, 1u) << g << " in " << host.spec();
        EXPECT_EQ(r.load, 1u);
        EXPECT_EQ(r.guest_nodes, std::string(g) == "tree" ? host.pes() - 1 : host.pes());
        for (const auto& [u, v] : guest.arcs)  // independent: every guest arc is a host link
          ASSERT_TRUE(adjacent(host, r.placement[u], r.placement[v])) << g << " arc " << u << "->" << v;
      }
    }
  }
}

// Shuffle-exchange: the same placements need a shuffle and an exchange for some arcs (dilation
// 2, = the largest BFS distance between the placed ends, as the host routes shortest).
TEST(Embed, ShuffleExchangeDilationIsTheBfsDistance) {
  for (unsigned n = 3; n <= 8; ++n) {
    const Topology host = TopologyRegistry::parse(fmt::format("shuffle:{}", n));
    const Graph g = build_graph(host);
    std::vector<std::uint32_t> dist;
    std::vector<node_t> queue;
    for (const char* kind : {"ring", "tree"}) {
      const Guest guest = parse_guest(kind, host.pes(), false);
      const EmbedResult r = embed(guest, host);
      unsigned want = 0;
      for (const auto& [u, v] : guest.arcs) {
        bfs(g, r.placement[u], dist, queue);
        want = std::max(want, dist[r.placement[v]]);
      }
      EXPECT_EQ(r.dilation, want) << kind << " in " << host.spec();
      EXPECT_EQ(r.dilation, 2u) << kind << " in " << host.spec();
    }
  }
}

TEST(Embed, GrayCodeRingInHypercube) {
  const Topology host = TopologyRegistry::parse("hypercube:6");
  const EmbedResult r = embed(parse_guest("ring", 64, false), host);
  EXPECT_EQ(r.map, "gray");
  EXPECT_EQ(r.dilation, 1u);
  EXPECT_EQ(r.congestion, 1u);
}

// Hand-counted: ring:4 on the path mesh:4 by identity. 3 -> 0 goes 3,2,1,0 and 0 -> 3 goes
// 0,1,2,3, so the link 1 -> 2 carries 1 -> 2 and 0 -> 3: congestion 2, dilation 3, mean 12/8.
TEST(Embed, IdentityRingOnAPathByHand) {
  const Topology host = TopologyRegistry::parse("mesh:4");
  const EmbedResult r = embed(parse_guest("ring", 4, false), host);
  EXPECT_EQ(r.map, "identity");
  EXPECT_EQ(r.dilation, 3u);
  EXPECT_EQ(r.congestion, 2u);
  EXPECT_DOUBLE_EQ(r.mean_dilation, 12.0 / 8.0);
  // A larger guest than host: load = ceil(guest / PEs).
  const EmbedResult big = embed(parse_guest("ring:10", 4, true), host, EmbedMap::identity);
  EXPECT_EQ(big.load, 3u);
  const auto st = test::trace_pairs(host, {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 1}, {1, 0}},
                                    false);
  EXPECT_EQ(big.dilation, st.max_hops);
  EXPECT_DOUBLE_EQ(big.mean_dilation, static_cast<double>(st.hops) / 10.0);
}

TEST(Embed, Errors) {
  auto message = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const usage_error& e) {
      return e.what();
    }
    return "(no usage_error)";
  };
  const Topology torus = TopologyRegistry::parse("torus:3x3");
  EXPECT_NE(message([] { (void)parse_guest("star", 8, false); }).find("unknown guest 'star'"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("ring:2", 8, false); }).find("ring"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("tree:0", 8, false); }).find("height"), std::string::npos);
  EXPECT_NE(message([&] { (void)embed(parse_guest("ring", 9, false), torus, EmbedMap::debruijn); }).find("2^n PEs"),
            std::string::npos);
  EXPECT_NE(message([] { (void)embed(parse_guest("tree:2", 8, false), TopologyRegistry::parse("hypercube:3"),
                                     EmbedMap::gray); })
                .find("not trees"),
            std::string::npos);
  EXPECT_NE(message([] { (void)parse_embed_map("best"); }).find("--map"), std::string::npos);
}

}  // namespace
}  // namespace rica
