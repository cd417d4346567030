// Embeddings of rings, linear arrays and complete binary trees (the de Bruijn paper §4):
// placements and the measured dilation / congestion / load, each checked against an
// independent computation (host adjacency, BFS distances, hand-counted small cases).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>
#include <set>

#include "rica/embed.hpp"
#include "rica/faults.hpp"
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

/// Walks the host's routing for every guest arc independently of embed(): each step must be a
/// host link (checked by adjacency), the walk must end on the placed destination; returns the
/// longest walk, the total length and the busiest (node, next node) link.
struct Walk {
  unsigned longest = 0, busiest = 0;
  std::uint64_t total = 0;
};
Walk walk_arcs(const Topology& host, const Guest& g, const std::vector<node_t>& placement) {
  Walk w;
  std::map<std::pair<node_t, node_t>, unsigned> use;
  host.visit([&](const auto& t) {
    for (const auto& [u, v] : g.arcs) {
      const node_t s = placement[u], d = placement[v];
      node_t cur = s;
      class_t cls = 0;
      unsigned len = 0;
      for (;;) {
        const Hop h = t.route(cur, d, cls);
        if (h.delivers()) break;
        const node_t next = t.out_link(cur, h.port()).peer;
        EXPECT_TRUE(adjacent(host, cur, next)) << host.spec() << ": " << cur << " -> " << next;
        w.busiest = std::max(w.busiest, ++use[{cur, next}]);
        cur = next;
        cls = h.next_class();
        if (++len > host.nodes()) {
          ADD_FAILURE() << "routing loop";
          return;
        }
      }
      EXPECT_EQ(cur, d);
      w.longest = std::max(w.longest, len);
      w.total += len;
    }
  });
  return w;
}

// The guest's own structure, counted independently: a double tree of height H has 3 * 2^H - 2
// nodes, 2 (2^(H+1) - 2) edges; the two roots and the 2^H leaves have degree 2, every other node 3.
TEST(Embed, DoubleTreeGuestStructure) {
  for (unsigned H = 1; H <= 6; ++H) {
    const Guest g = parse_guest(fmt::format("double-tree:{}", H), 8, false);
    const node_t leaves = node_t{1} << H;
    ASSERT_EQ(g.nodes, 3 * leaves - 2);
    ASSERT_EQ(g.arcs.size(), 2u * 2 * (2 * leaves - 2));
    std::vector<unsigned> degree(g.nodes, 0);
    std::set<std::pair<node_t, node_t>> arcs(g.arcs.begin(), g.arcs.end());
    ASSERT_EQ(arcs.size(), g.arcs.size()) << "no parallel arcs";
    for (const auto& [u, v] : g.arcs) {
      ASSERT_TRUE(arcs.count({v, u})) << "undirected";
      ++degree[u];
    }
    unsigned two = 0;
    for (node_t v = 0; v < g.nodes; ++v) {
      ASSERT_TRUE(degree[v] == 2 || degree[v] == 3) << v;
      two += degree[v] == 2;
    }
    EXPECT_EQ(two, leaves + 2);
  }
  // The paper's size: 3N/4 - 2 nodes by default (N = 1,024: height 8, 766 nodes).
  EXPECT_EQ(parse_guest("double-tree", 1024, false).nodes, 766u);
  EXPECT_EQ(parse_guest("double-tree", 1024, true).arcs.size(), 2u * (512 - 2));
}

// §4 (8): a double tree of 3N/4 - 2 nodes in the de Bruijn network: dilation 1 (a subgraph),
// directed (both trees' arcs are left shifts) and undirected, n = 3..10.
TEST(Embed, DoubleTreeHasDilationOneInDeBruijn) {
  for (unsigned n = 3; n <= 10; ++n) {
    for (const char* kind : {"debruijn", "ubruijn"}) {
      const Topology host = TopologyRegistry::parse(fmt::format("{}:{}", kind, n));
      const bool oriented = std::string(kind) == "debruijn";
      const Guest guest = parse_guest("double-tree", host.pes(), oriented);
      ASSERT_EQ(guest.nodes, 3 * host.pes() / 4 - 2);
      const EmbedResult r = embed(guest, host);
      EXPECT_EQ(r.map, "debruijn");
      EXPECT_EQ(r.load, 1u) << host.spec();
      EXPECT_EQ(r.dilation, 1u) << host.spec();
      EXPECT_EQ(r.congestion, 1u) << host.spec();
      std::set<node_t> used(r.placement.begin(), r.placement.end());
      EXPECT_EQ(used.size(), guest.nodes) << "one guest node per PE";
      for (const auto& [u, v] : guest.arcs)
        ASSERT_TRUE(adjacent(host, r.placement[u], r.placement[v])) << host.spec() << " arc " << u << "->" << v;
      const Walk w = walk_arcs(host, guest, r.placement);
      EXPECT_EQ(w.longest, r.dilation);
      EXPECT_EQ(w.total, r.arcs);
    }
  }
  // Too big a double tree for the host: a one-line error.
  EXPECT_THROW((void)embed(parse_guest("double-tree:3", 16, false), TopologyRegistry::parse("ubruijn:4")),
               usage_error);
}

// §4 (11): the de Bruijn network emulates the shuffle-exchange network. Node v on PE v: a shuffle
// is one de Bruijn arc, an exchange v - v^1 two (right shift, left shift) on UB(2,n): dilation 2,
// the BFS distance, so the host's routing finds it.
TEST(Embed, ShuffleExchangeGuestInDeBruijn) {
  for (unsigned n = 3; n <= 10; ++n) {
    const Topology host = TopologyRegistry::parse(fmt::format("ubruijn:{}", n));
    const Guest guest = parse_guest("shuffle-exchange", host.pes(), false);
    ASSERT_EQ(guest.nodes, host.pes());
    // Independent edge count: N/2 exchange edges and N - 2 shuffle edges (0 and 1..1 are fixed
    // points of rotl), one fewer for even n (0101.. and 1010.. are each other's rotation).
    EXPECT_EQ(guest.arcs.size(), 2u * (host.pes() / 2 + host.pes() - 2 - (n % 2 == 0 ? 1 : 0))) << n;
    const EmbedResult r = embed(guest, host);
    EXPECT_EQ(r.map, "debruijn");
    EXPECT_EQ(r.dilation, 2u) << host.spec();
    EXPECT_EQ(r.load, 1u);
    const Graph g = build_graph(host);
    std::vector<std::uint32_t> dist;
    std::vector<node_t> queue;
    unsigned bfs_max = 0;
    for (const auto& [u, v] : guest.arcs) {
      bfs(g, r.placement[u], dist, queue);
      bfs_max = std::max(bfs_max, dist[r.placement[v]]);
      // A shuffle arc (v -> rotl v or back) is a host link.
      const node_t mask = host.pes() - 1, rot = ((u << 1) | (u >> (n - 1))) & mask;
      if (v == rot) {
        ASSERT_TRUE(adjacent(host, r.placement[u], r.placement[v]));
      }
    }
    EXPECT_EQ(bfs_max, 2u);
    const Walk w = walk_arcs(host, guest, r.placement);
    EXPECT_EQ(w.longest, r.dilation);
    EXPECT_DOUBLE_EQ(static_cast<double>(w.total) / static_cast<double>(r.arcs), r.mean_dilation);
    EXPECT_EQ(w.busiest, r.congestion);
  }
  // On the shuffle-exchange network itself, identity: every guest arc is a host link.
  for (unsigned n = 3; n <= 8; ++n) {
    const Topology host = TopologyRegistry::parse(fmt::format("shuffle:{}", n));
    const EmbedResult r = embed(parse_guest("shuffle-exchange", host.pes(), false), host, EmbedMap::identity);
    EXPECT_EQ(r.dilation, 1u) << host.spec();
    EXPECT_EQ(r.congestion, 1u) << host.spec();
  }
  EXPECT_EQ(parse_guest("shuffle-exchange:2", 4, false).arcs.size(), 6u);  // 01 - 10 merged
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

// Mesh and torus guests: their structure counted independently (every grid neighbour pair an
// edge, nothing else), the product of Gray codes placing them on a hypercube with dilation and
// congestion 1, the identity placing them on a host of their own shape with dilation 1, and an
// odd-sized mesh on de Bruijn measured by the independent walk.
TEST(Embed, MeshAndTorusGuests) {
  for (const char* spec : {"mesh:4x8", "torus:8x4", "mesh:3x5", "torus:3x3"}) {
    const Guest g = parse_guest(spec, 64, false);
    const bool wrap = g.kind == Guest::Kind::torus;
    std::set<std::pair<node_t, node_t>> arcs(g.arcs.begin(), g.arcs.end());
    EXPECT_EQ(arcs.size(), g.arcs.size()) << spec << ": a repeated arc";
    std::set<std::pair<node_t, node_t>> expect;
    for (node_t u = 0; u < g.nodes; ++u)
      for (node_t v = 0; v < g.nodes; ++v) {
        const node_t ux = u % g.rows, uy = u / g.rows, vx = v % g.rows, vy = v / g.rows;
        const auto near = [&](node_t a, node_t b, node_t k) { return (a + 1) % k == b || (b + 1) % k == a; };
        const bool step_x = uy == vy && (wrap ? near(ux, vx, g.rows) : ux + 1 == vx || vx + 1 == ux);
        const bool step_y = ux == vx && (wrap ? near(uy, vy, g.cols) : uy + 1 == vy || vy + 1 == uy);
        if (u != v && (step_x || step_y)) expect.emplace(u, v);
      }
    EXPECT_EQ(arcs, expect) << spec;
  }
  EXPECT_EQ(parse_guest("mesh", 64, false).spec, "mesh:8x8");
  EXPECT_EQ(parse_guest("torus", 32, false).spec, "torus:8x4");
  for (const char* spec : {"mesh:8x8", "torus:8x8", "mesh:4x16", "torus:16x4"}) {
    const Topology cube = TopologyRegistry::parse("hypercube:6");
    const Guest g = parse_guest(spec, 64, false);
    const EmbedResult r = embed(g, cube);
    EXPECT_EQ(r.map, "gray") << spec;
    EXPECT_EQ(r.dilation, 1u) << spec;
    EXPECT_EQ(r.congestion, 1u) << spec;
    EXPECT_EQ(std::set<node_t>(r.placement.begin(), r.placement.end()).size(), 64u) << spec;
    EXPECT_EQ(walk_arcs(cube, g, r.placement).longest, 1u) << spec;
  }
  for (const auto& [guest, host] : {std::pair{"mesh:8x8", "mesh:8x8"}, std::pair{"torus:8x8", "torus:8x8"}}) {
    const EmbedResult r = embed(parse_guest(guest, 64, false), TopologyRegistry::parse(host));
    EXPECT_EQ(r.map, "identity");
    EXPECT_EQ(r.dilation, 1u) << guest;
  }
  const Topology db = TopologyRegistry::parse("ubruijn:6");
  const Guest g = parse_guest("mesh:7x9", 64, false);
  const EmbedResult r = embed(g, db, EmbedMap::identity);
  const Walk w = walk_arcs(db, g, r.placement);
  EXPECT_EQ(r.dilation, w.longest);
  EXPECT_EQ(r.congestion, w.busiest);
  EXPECT_DOUBLE_EQ(r.mean_dilation, static_cast<double>(w.total) / static_cast<double>(g.arcs.size()));
}

// Under faults: no guest node stays on a failed PE (checked against the faulty network's own
// failed set), exactly those that were on one move, to the next live PE; the arcs are routed on
// the faulty network (the independent walk over it agrees); failed links alone move nothing.
TEST(Embed, UnderFaultsGuestsLeaveFailedPesAndArcsAreRerouted) {
  const Topology host = TopologyRegistry::parse("ubruijn:6");
  const Guest ring = parse_guest("ring", 64, false);
  const EmbedResult intact = embed(ring, host);
  for (const char* faults : {"nodes=3", "links=5", "nodes=2,links=3"}) {
    SCOPED_TRACE(faults);
    const EmbedResult r = embed(ring, host, EmbedMap::automatic, faults, 7);
    const Topology faulty = with_faults(host, faults, 7);
    const auto failed = failed_nodes(faulty);
    const std::set<node_t> dead(failed.begin(), failed.end());
    EXPECT_EQ(r.failed_pes, dead.size());
    unsigned moved = 0;
    for (node_t i = 0; i < ring.nodes; ++i) {
      EXPECT_FALSE(dead.count(r.placement[i])) << "guest node " << i << " on failed PE " << r.placement[i];
      if (dead.count(intact.placement[i])) {
        ++moved;
        node_t next = intact.placement[i];
        do next = (next + 1) % host.pes();
        while (dead.count(next));
        EXPECT_EQ(r.placement[i], next);
      } else {
        EXPECT_EQ(r.placement[i], intact.placement[i]);
      }
    }
    EXPECT_EQ(r.moved, moved);
    const Walk w = walk_arcs(faulty, ring, r.placement);
    EXPECT_EQ(r.dilation, w.longest);
    EXPECT_EQ(r.congestion, w.busiest);
    EXPECT_GE(r.dilation, intact.dilation);
  }
  // An array of N-1 nodes with one failed PE: some rotation of the host's de Bruijn cycle leaves
  // the failed PE out (the de Bruijn paper's §4 claim (3)): nothing moves, dilation 1; the
  // placement is that rotation of the cycle.
  const Guest array = parse_guest("array:63", 64, false);
  const std::vector<node_t> cycle = embed(parse_guest("ring:64", 64, true), host).placement;
  for (std::uint64_t seed : {1, 2, 3}) {
    const EmbedResult a = embed(array, host, EmbedMap::automatic, "nodes=1", seed);
    const auto failed = failed_nodes(with_faults(host, "nodes=1", seed));
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(a.moved, 0u);
    EXPECT_EQ(a.dilation, 1u);
    EXPECT_EQ(a.load, 1u);
    for (node_t i = 0; i < array.nodes; ++i) {
      EXPECT_EQ(a.placement[i], cycle[(i + a.rotation) % 64]);
      EXPECT_NE(a.placement[i], failed[0]);
    }
  }
  EXPECT_EQ(embed(ring, host, EmbedMap::automatic, "links=5", 7).moved, 0u);
  EXPECT_EQ(embed(ring, host, EmbedMap::automatic, "", 7).dilation, intact.dilation);
  EXPECT_THROW((void)embed(ring, host, EmbedMap::automatic, "links=2,at=100", 7), usage_error);
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
  EXPECT_NE(message([] { (void)parse_guest("double-tree:0", 8, false); }).find("height"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("shuffle-exchange:1", 8, false); }).find("2..24"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("star", 8, false); }).find("double-tree[:H], shuffle-exchange[:n]"),
            std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("torus:2x8", 8, false); }).find("each side at least 3"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("mesh:8", 8, false); }).find("RxC"), std::string::npos);
  EXPECT_NE(message([] { (void)parse_guest("mesh", 12, false); }).find("needs a size RxC"), std::string::npos);
  EXPECT_NE(message([] { (void)embed(parse_guest("mesh:3x3", 16, false), TopologyRegistry::parse("hypercube:4"),
                                     EmbedMap::gray); })
                .find("2^a x 2^b"),
            std::string::npos);
  EXPECT_NE(message([] { (void)parse_embed_map("best"); }).find("--map"), std::string::npos);
}

// The de Bruijn paper §9: the product of two de Bruijn networks contains meshes and 2D tori,
// since each factor contains linear arrays and rings. --map product lays them out with dilation 1.
TEST(Embed, ProductMapLaysMeshesAndToriOnTheFactorsArraysAndRings) {
  const Topology host = TopologyRegistry::parse("product:(ubruijn:4)*(ubruijn:4)");
  for (const char* g : {"mesh:16x16", "torus:16x16", "mesh:5x9"}) {
    const Guest guest = parse_guest(g, host.pes(), false);
    const EmbedResult r = embed(guest, host, EmbedMap::product);
    EXPECT_EQ(r.map, "product");
    EXPECT_EQ(r.dilation, 1u) << g;
    EXPECT_EQ(r.load, 1u) << g;
    for (const auto& [u, v] : guest.arcs) ASSERT_TRUE(adjacent(host, r.placement[u], r.placement[v])) << g;
  }
  const Topology mixed = TopologyRegistry::parse("product:(hypercube:3)*(ubruijn:4)");
  EXPECT_EQ(embed(parse_guest("torus:8x16", mixed.pes(), false), mixed, EmbedMap::product).dilation, 1u);
  EXPECT_THROW((void)embed(parse_guest("mesh", 64, false), TopologyRegistry::parse("ubruijn:6"), EmbedMap::product),
               usage_error);
  EXPECT_THROW((void)embed(parse_guest("tree:3", 256, false), host, EmbedMap::product), usage_error);
  EXPECT_THROW((void)embed(parse_guest("mesh:17x4", 256, false), host, EmbedMap::product), usage_error);
}

}  // namespace
}  // namespace rica
