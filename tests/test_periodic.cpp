// M_{x+x} (docs/topologies.md) and the Manhattan street network: links against an
// independent construction, routing against BFS over the explicit graph, classes, orbits, and
// the papers' figures (docs/reproduction.md).
#include "rica/topology/periodic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "rica/core.hpp"

namespace {

using rica::Hop;
using rica::Link;
using rica::node_t;
using rica::PeriodicTopology;
using rica::port_t;
using Adj = std::vector<std::vector<node_t>>;

static_assert(rica::TopologyModel<PeriodicTopology>);

int mod(int a, int m) { return ((a % m) + m) % m; }

// Independent M_{x+x} graph, straight from the spec's C-like code: neighbour sets (duplicates
// merged, self-loops dropped).
Adj mxx_graph(int n) {
  Adj adj(static_cast<std::size_t>(n * n));
  auto id = [n](int x, int y) { return static_cast<node_t>(mod(x, n) + n * mod(y, n)); };
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      std::set<node_t> s{id(x + 1, y), id(x - 1, y), id(x, y + 1), id(x, y - 1)};
      if ((x % 4 == 0 && (y % 4 == 0 || y % 4 == 3)) || (x % 4 == 2 && (y % 4 == 1 || y % 4 == 2))) {
        s.insert({id(x + 8, y), id(x - 8, y), id(x, y + 8), id(x, y - 8)});
      } else if ((x % 4 == 3 && (y % 4 == 0 || y % 4 == 3)) || (x % 4 == 1 && (y % 4 == 1 || y % 4 == 2))) {
        s.insert({id(x + 16, y + 16), id(x - 16, y + 16), id(x + 16, y - 16), id(x - 16, y - 16)});
      } else {
        s.insert({id(x + 2, y + 2), id(x - 2, y + 2), id(x + 2, y - 2), id(x - 2, y - 2)});
      }
      s.erase(id(x, y));
      adj[id(x, y)].assign(s.begin(), s.end());
    }
  return adj;
}

// Independent Manhattan street network: rows x cols, row y runs +x if y even, column x runs +y if
// x even.
Adj msn_graph(int rows, int cols) {
  Adj adj(static_cast<std::size_t>(rows * cols));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x) {
      auto& a = adj[static_cast<std::size_t>(x + cols * y)];
      a.push_back(static_cast<node_t>(mod(x + (y % 2 == 0 ? 1 : -1), cols) + cols * y));
      a.push_back(static_cast<node_t>(x + cols * mod(y + (x % 2 == 0 ? 1 : -1), rows)));
    }
  return adj;
}

std::vector<unsigned> bfs(const Adj& adj, node_t s) {
  std::vector<unsigned> d(adj.size(), ~0u);
  std::vector<node_t> q{s};
  d[s] = 0;
  for (std::size_t h = 0; h < q.size(); ++h)
    for (node_t w : adj[q[h]])
      if (d[w] == ~0u) {
        d[w] = d[q[h]] + 1;
        q.push_back(w);
      }
  return d;
}

struct Stats {
  unsigned diameter = 0;
  double mean = 0;  // ordered pairs, src != dst
  std::uint64_t sum = 0;
};

Stats all_pairs(const Adj& adj) {
  Stats st;
  for (node_t s = 0; s < adj.size(); ++s)
    for (unsigned d : bfs(adj, s)) {
      EXPECT_NE(d, ~0u);
      st.diameter = std::max(st.diameter, d);
      st.sum += d;
    }
  const double n = static_cast<double>(adj.size());
  st.mean = static_cast<double>(st.sum) / (n * (n - 1));
  return st;
}

// Links: matches the independent graph; in_port < ports(); every (peer, in_port) is the end of
// exactly one link; for undirected networks out_link(peer, in_port) leads straight back.
void check_links(const PeriodicTopology& t, const Adj& adj, bool symmetric) {
  ASSERT_EQ(t.nodes(), adj.size());
  std::vector<int> hits(std::size_t{t.nodes()} * t.ports(), 0);
  for (node_t v = 0; v < t.nodes(); ++v) {
    std::vector<node_t> peers;
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) continue;
      ASSERT_LT(l.peer, t.nodes());
      ASSERT_LT(l.in_port, t.ports());
      ++hits[std::size_t{l.peer} * t.ports() + l.in_port];
      peers.push_back(l.peer);
      if (symmetric) {
        EXPECT_EQ(t.out_link(l.peer, l.in_port).peer, v) << t.label(v) << " port " << p;
      }
    }
    EXPECT_FALSE(t.out_link(v, t.ports()).present());
    std::vector<node_t> want = adj[v];
    std::sort(peers.begin(), peers.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(peers, want) << t.label(v);
  }
  for (int h : hits) EXPECT_LE(h, 1);
}

// Follows route() from every source in `sources` to every node: each hop takes a present link,
// the hop count equals the BFS distance, classes equal D - remaining distance (so they rise) and
// stay below buffer_classes().
void check_routes(const PeriodicTopology& t, const Adj& adj, const std::vector<node_t>& sources) {
  const unsigned classes = t.buffer_classes();
  for (node_t s : sources) {
    const auto dist = bfs(adj, s);
    for (node_t d = 0; d < t.nodes(); ++d) {
      ASSERT_EQ(t.distance(s, d), dist[d]);
      node_t cur = s;
      unsigned hops = 0;
      int last_class = -1;
      for (Hop h = t.route(cur, d, 0); !h.delivers(); h = t.route(cur, d, h.next_class())) {
        const Link l = t.out_link(cur, h.port());
        ASSERT_TRUE(l.present()) << t.label(cur) << " -> " << t.label(d);
        ASSERT_LT(h.next_class(), classes);
        ASSERT_GT(static_cast<int>(h.next_class()), last_class);
        ASSERT_EQ(h.next_class(), classes - t.distance(cur, d));
        last_class = h.next_class();
        cur = l.peer;
        ASSERT_LE(++hops, t.nodes());
      }
      ASSERT_EQ(cur, d);
      ASSERT_EQ(hops, dist[d]) << t.label(s) << " -> " << t.label(d);
    }
  }
}

std::vector<node_t> all_nodes(const PeriodicTopology& t) {
  std::vector<node_t> v(t.nodes());
  for (node_t i = 0; i < t.nodes(); ++i) v[i] = i;
  return v;
}

// Table statistics from the routing table (one source per residue class).
Stats table_stats(const PeriodicTopology& t) {
  Stats st;
  for (std::uint32_t k = 0; k < t.orbit_count(); ++k)
    for (node_t d = 0; d < t.nodes(); ++d) {
      const unsigned x = t.distance(t.orbit_rep(k), d);
      st.diameter = std::max(st.diameter, x);
      st.sum += x;
    }
  const double n = t.nodes();
  st.mean = static_cast<double>(st.sum) / (t.orbit_count() * (n - 1));
  return st;
}

TEST(FastDiv, MatchesDivision) {
  std::mt19937 rng(7);
  for (std::uint32_t d : {1u, 2u, 3u, 5u, 6u, 7u, 12u, 24u, 100u, 4095u, 4096u, 4097u, 8191u, 8192u, 65535u,
                          (1u << 26) - 1, 1u << 26}) {
    const rica::detail::FastDiv div(d);
    for (std::uint32_t k = 0; k < 2000; ++k) {
      for (std::uint32_t x : {k, (1u << 26) - 1 - k, static_cast<std::uint32_t>(rng() % (1u << 26))})
        ASSERT_EQ(div(x), x / d) << x << " / " << d;
      const std::uint64_t mult = std::uint64_t{d} * (rng() % ((1u << 26) / d + 1));
      for (std::uint64_t x = mult ? mult - 1 : 0; x <= mult + 1 && x < (1u << 26); ++x)
        ASSERT_EQ(div(static_cast<std::uint32_t>(x)), x / d) << x << " / " << d;
    }
  }
}

TEST(Mxx, BadParameters) {
  EXPECT_THROW(PeriodicTopology::mxx(30), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::mxx(4), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::mxx(0), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::mxx(4100), rica::usage_error);
  try {
    (void)PeriodicTopology::mxx(4);
  } catch (const rica::usage_error& e) {
    EXPECT_STREQ(e.what(), "mxx: parameter 'N' = 4 is out of range [8, 4096]");
  }
  try {
    (void)PeriodicTopology::mxx(30);
  } catch (const rica::usage_error& e) {
    EXPECT_STREQ(e.what(), "mxx: parameter 'N' = 30 must be a multiple of 4");
  }
}

TEST(Mxx, SpecLabelShapeOrbits) {
  const auto t = PeriodicTopology::mxx(32);
  EXPECT_EQ(t.spec(), "mxx:N=32");
  EXPECT_EQ(t.label(3 + 32 * 17), "(3,17)");
  EXPECT_EQ(t.shape(), (rica::Shape{32, 32}));
  EXPECT_EQ(t.nodes(), 1024u);
  EXPECT_EQ(t.pes(), 1024u);
  EXPECT_FALSE(t.vertex_transitive());
  ASSERT_EQ(t.orbit_count(), 16u);
  for (std::uint32_t k = 0; k < 16; ++k) {
    EXPECT_EQ(t.orbit_rep(k), (k % 4) + 32 * (k / 4));
    EXPECT_EQ(t.orbit(t.orbit_rep(k)), k);
  }
  for (node_t v = 0; v < t.nodes(); ++v) EXPECT_EQ(t.orbit(v), (v % 32) % 4 + 4 * ((v / 32) % 4));
}

TEST(Mxx, DegreesAndLinks) {
  // Degrees by node class ("+8", "x16", "x2" residues) at N = 8, 16, 32, 64 (interpretation note 7).
  struct Case {
    int n;
    unsigned plus8, x16, x2, ports;
  };
  for (const Case c : {Case{8, 4, 4, 8, 8}, Case{16, 6, 4, 8, 8}, Case{32, 8, 5, 8, 8}, Case{64, 8, 8, 8, 8}}) {
    SCOPED_TRACE(c.n);
    const auto t = PeriodicTopology::mxx(static_cast<unsigned>(c.n));
    const Adj adj = mxx_graph(c.n);
    EXPECT_EQ(t.ports(), c.ports);
    check_links(t, adj, true);
    auto degree = [&](node_t v) {
      unsigned d = 0;
      for (port_t p = 0; p < t.ports(); ++p) d += t.out_link(v, p).present();
      return d;
    };
    const auto n = static_cast<node_t>(c.n);
    EXPECT_EQ(degree(0), c.plus8);           // (0,0)
    EXPECT_EQ(degree(3), c.x16);             // (3,0)
    EXPECT_EQ(degree(1), c.x2);              // (1,0)
    EXPECT_EQ(degree(1 + n * 1), c.x16);     // (1,1)
    EXPECT_EQ(degree(2 + n * 2), c.plus8);   // (2,2)
    // Port order: torus links first (+x, -x, +y, -y).
    EXPECT_EQ(t.out_link(0, 0).peer, 1u);
    EXPECT_EQ(t.out_link(0, 1).peer, n - 1);
    EXPECT_EQ(t.out_link(0, 2).peer, n);
    EXPECT_EQ(t.out_link(0, 3).peer, n * (n - 1));
  }
}

TEST(Mxx, RoutesAreShortest) {
  for (unsigned n : {8u, 16u, 32u, 64u}) {
    SCOPED_TRACE(n);
    const auto t = PeriodicTopology::mxx(n);
    const Adj adj = mxx_graph(static_cast<int>(n));
    std::vector<node_t> sources;
    if (n <= 32) {
      sources = all_nodes(t);
    } else {  // every residue (8 x 8 block) and a few random sources
      for (node_t y = 0; y < 8; ++y)
        for (node_t x = 0; x < 8; ++x) sources.push_back(x + n * y);
      std::mt19937 rng(1);
      for (int i = 0; i < 16; ++i) sources.push_back(static_cast<node_t>(rng() % t.nodes()));
    }
    check_routes(t, adj, sources);
  }
}

TEST(Mxx, RoutingCommutesWithPeriodTranslations) {
  const auto t = PeriodicTopology::mxx(32);
  std::mt19937 rng(3);
  for (int i = 0; i < 20000; ++i) {
    const auto s = static_cast<node_t>(rng() % t.nodes()), d = static_cast<node_t>(rng() % t.nodes());
    const unsigned gx = 4 * (rng() % 8), gy = 4 * (rng() % 8);
    auto g = [&](node_t v) { return (v % 32 + gx) % 32 + 32 * ((v / 32 + gy) % 32); };
    ASSERT_EQ(t.route(g(s), g(d), 0), t.route(s, d, 0));
    ASSERT_EQ(t.orbit(g(s)), t.orbit(s));
  }
}

// M_{x+x} paper Table 1 (routed with the paper's own non-optimal routing): 256/1024/4096/65536
// nodes -> diameter 7/8/9/15, mean 4.076/5.244/6.445/10.768. Shortest paths never exceed them.
TEST(Mxx, PaperTable1) {
  struct Row {
    unsigned n, paper_diameter;
    double paper_mean;
  };
  for (const Row r : {Row{16, 7, 4.076}, Row{32, 8, 5.244}, Row{64, 9, 6.445}}) {
    const auto t = PeriodicTopology::mxx(r.n);
    const Stats bf = all_pairs(mxx_graph(static_cast<int>(r.n)));
    const Stats tb = table_stats(t);
    EXPECT_EQ(tb.diameter, bf.diameter);
    EXPECT_EQ(tb.sum * r.n * r.n / t.orbit_count(), bf.sum);
    EXPECT_EQ(t.buffer_classes(), bf.diameter);
    EXPECT_LE(bf.diameter, r.paper_diameter);
    EXPECT_EQ(bf.diameter, r.paper_diameter - 1);  // docs/reproduction.md: one less at every size
    EXPECT_LE(bf.mean, r.paper_mean);
    std::printf("mxx:N=%u  %u nodes: diameter %u (paper %u), mean %.4f (paper %.3f), incl. self %.4f\n", r.n,
                r.n * r.n, bf.diameter, r.paper_diameter, bf.mean, r.paper_mean,
                static_cast<double>(bf.sum) / (double(r.n) * r.n * r.n * r.n));
  }
  for (unsigned n : {128u, 256u}) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto t = PeriodicTopology::mxx(n);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const Stats st = table_stats(t);
    std::printf("mxx:N=%u  %u nodes: diameter %u, mean %.4f (table build %.1f ms)\n", n, n * n, st.diameter,
                st.mean, ms);
    if (n == 256) {
      EXPECT_LE(st.diameter, 15u);
      EXPECT_LE(st.mean, 10.768);
    }
    // Spot-check routes against the table distance.
    std::mt19937 rng(n);
    for (int i = 0; i < 2000; ++i) {
      const auto s = static_cast<node_t>(rng() % t.nodes()), d = static_cast<node_t>(rng() % t.nodes());
      node_t cur = s;
      unsigned hops = 0;
      for (Hop h = t.route(cur, d, 0); !h.delivers(); h = t.route(cur, d, h.next_class())) {
        cur = t.out_link(cur, h.port()).peer;
        ++hops;
      }
      ASSERT_EQ(hops, t.distance(s, d));
    }
  }
}

// --- M_{x+x} routed by the paper's rule (route=paper, runtime/topology/mxx_paper.cpp) ---

// The paper's "Routing for node type x16a" (§2.2), transcribed for the x16 node at (3, 0): the
// first move for the offset (dx, dy) (signed, minimal on the torus).
std::pair<int, int> paper_x16a(int dx, int dy) {
  auto a = [](int v) { return std::abs(v); };
  if ((a(dx + 1) > (16 + 4) && a(dy) > 4) || (a(dx + 1) > (8 + 4) && a(dy) > (8 + 4)) ||
      (a(dx + 1) > 4 && a(dy) > (16 + 4)))
    return {dx >= 0 ? 16 : -16, dy >= 0 ? 16 : -16};  // funx16()
  if (a(dx + 1) <= 4 && a(dy) <= 4) {
    if (a(dx) + a(dy) <= 3) {  // funMesh()
      if (dx == 0) return {0, dy > 0 ? 1 : -1};
      return {dx > 0 ? 1 : -1, 0};
    }
    return dx < -dy ? std::pair{-1, 0} : std::pair{0, 1};  // to x2b / x2c
  }
  return {1, 0};  // to +8a
}

int signed_offset(int d, int n) {
  d = mod(d, n);
  return d > n / 2 ? d - n : d;
}

// At every x16 node of the paper's class x16a (translates of (3, 0) by multiples of 4, and by
// (2, 2)), the first hop is the paper's own rule, for every destination.
TEST(MxxPaperRoute, X16NodesFollowThePaperVerbatim) {
  for (int n : {32, 64}) {
    const auto t = PeriodicTopology::mxx(static_cast<unsigned>(n), rica::MxxRoute::paper);
    for (auto [sx, sy] : {std::pair{3, 0}, std::pair{1, 2}, std::pair{n - 1, n - 4}}) {
      const node_t s = static_cast<node_t>(sx + n * sy);
      for (int ty = 0; ty < n; ++ty)
        for (int tx = 0; tx < n; ++tx) {
          if (tx == sx && ty == sy) continue;
          const auto [mx, my] = paper_x16a(signed_offset(tx - sx, n), signed_offset(ty - sy, n));
          const node_t want = static_cast<node_t>(mod(sx + mx, n) + n * mod(sy + my, n));
          const Hop h = t.route(s, static_cast<node_t>(tx + n * ty), 0);
          ASSERT_FALSE(h.delivers());
          ASSERT_EQ(t.out_link(s, h.port()).peer, want) << "N=" << n << " from (" << sx << "," << sy << ") to (" << tx
                                                        << "," << ty << ")";
        }
    }
  }
}

// Every pair of every size N = 8..64 (and 128 from every residue): the route is loop-free (at
// most 4N hops), takes links of the independent graph, its classes rise by one per hop from
// D - length and stay below D = buffer_classes() (so the channel dependency graph is acyclic),
// and its length is the table's distance and at least the BFS distance. The build follows
// every (residue, offset) and would throw on a loop; this checks it from outside.
TEST(MxxPaperRoute, DeliversEveryPairLoopFreeWithRisingClasses) {
  for (unsigned n = 8; n <= 128; n += (n < 64 ? 4 : 64)) {
    SCOPED_TRACE(n);
    const auto t = PeriodicTopology::mxx(n, rica::MxxRoute::paper);
    EXPECT_EQ(t.spec(), "mxx:N=" + std::to_string(n) + ",route=paper");
    const Adj adj = mxx_graph(static_cast<int>(n));
    const unsigned classes = t.buffer_classes();
    unsigned diameter = 0;
    for (node_t s : n <= 24 ? all_nodes(t) : std::vector<node_t>{0, 1, 2, 3, n, n + 1, n + 2, n + 3, 2 * n, 2 * n + 1,
                                                                 2 * n + 2, 2 * n + 3, 3 * n, 3 * n + 1, 3 * n + 2, 3 * n + 3}) {
      const auto dist = bfs(adj, s);
      for (node_t d = 0; d < t.nodes(); ++d) {
        node_t cur = s;
        unsigned hops = 0;
        const unsigned len = t.distance(s, d);
        for (Hop h = t.route(cur, d, 0); !h.delivers(); h = t.route(cur, d, h.next_class())) {
          const node_t next = t.out_link(cur, h.port()).peer;
          ASSERT_TRUE(std::find(adj[cur].begin(), adj[cur].end(), next) != adj[cur].end());
          ASSERT_EQ(h.next_class(), classes - len + hops);
          ASSERT_LT(h.next_class(), classes);
          cur = next;
          ASSERT_LE(++hops, 4 * n) << "loop from " << t.label(s) << " to " << t.label(d);
        }
        ASSERT_EQ(cur, d);
        ASSERT_EQ(hops, len);
        ASSERT_GE(hops, dist[d]);
        diameter = std::max(diameter, hops);
      }
    }
    EXPECT_EQ(diameter, classes);  // the residues' sources see every route (translations by 4)
  }
}

// Table 1 beside the paper's routing as we generalise it: the diameters and means we get (our
// generalisation of the rules the paper leaves out; docs/reproduction.md), pinned so a change
// of the rule is seen; the paper's x16 rule alone cannot be checked against Table 1.
TEST(MxxPaperRoute, Table1Figures) {
  struct Row {
    unsigned n, paper_diameter, minimal_diameter, ours_diameter;
    double paper_mean, ours_mean;
  };
  for (const Row r : {Row{16, 7, 6, 8, 4.076, 4.3520}, Row{32, 8, 7, 9, 5.244, 5.4963}, Row{64, 9, 8, 11, 6.445, 6.8264}}) {
    const auto t = PeriodicTopology::mxx(r.n, rica::MxxRoute::paper);
    const Stats st = table_stats(t);
    const Stats minimal = table_stats(PeriodicTopology::mxx(r.n));
    EXPECT_EQ(minimal.diameter, r.minimal_diameter);
    EXPECT_EQ(st.diameter, r.ours_diameter);
    EXPECT_NEAR(st.mean, r.ours_mean, 5e-5);
    EXPECT_GE(st.sum, minimal.sum);
    std::printf("mxx:N=%u,route=paper  %u nodes: diameter %u (paper %u, minimal %u), mean %.4f (paper %.3f, minimal %.4f)\n",
                r.n, r.n * r.n, st.diameter, r.paper_diameter, minimal.diameter, st.mean, r.paper_mean, minimal.mean);
  }
}

TEST(MxxPaperRoute, RefusedAboveN1024) {
  EXPECT_THROW(PeriodicTopology::mxx(2048, rica::MxxRoute::paper), rica::usage_error);
}

TEST(Msn, BadParameters) {
  EXPECT_THROW(PeriodicTopology::msn(5, 4), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::msn(4, 5), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::msn(2, 4), rica::usage_error);
  EXPECT_THROW(PeriodicTopology::msn(4, 8192), rica::usage_error);
  try {
    (void)PeriodicTopology::msn(5, 4);
  } catch (const rica::usage_error& e) {
    EXPECT_STREQ(e.what(), "msn: parameter 'rows' = 5 must be even");
  }
}

TEST(Msn, SpecLinksOrbits) {
  const auto t = PeriodicTopology::msn(4, 6);  // 4 rows, 6 columns
  EXPECT_EQ(t.spec(), "msn:4x6");
  EXPECT_EQ(t.shape(), (rica::Shape{6, 4}));
  EXPECT_EQ(t.ports(), 2u);
  EXPECT_TRUE(t.vertex_transitive());
  EXPECT_EQ(t.orbit_count(), 4u);
  for (std::uint32_t k = 0; k < 4; ++k) EXPECT_EQ(t.orbit_rep(k), (k % 2) + 6 * (k / 2));
  // (0,0): row 0 runs +x, column 0 runs +y; (1,1): row 1 runs -x, column 1 runs -y.
  EXPECT_EQ(t.out_link(0, 0), (Link{1, 0}));
  EXPECT_EQ(t.out_link(0, 1), (Link{6, 1}));
  EXPECT_EQ(t.out_link(7, 0), (Link{6, 0}));
  EXPECT_EQ(t.out_link(7, 1), (Link{1, 1}));
  for (auto [r, c] : {std::pair{4, 4}, std::pair{4, 6}, std::pair{6, 4}, std::pair{8, 8}, std::pair{6, 10}}) {
    const auto m = PeriodicTopology::msn(static_cast<unsigned>(r), static_cast<unsigned>(c));
    check_links(m, msn_graph(r, c), false);
  }
}

// The automorphisms behind vertex_transitive(): with translations by (2,0) and (0,2) they move
// any node to any other.
TEST(Msn, VertexTransitive) {
  for (auto [rows, cols] : {std::pair{4, 4}, std::pair{6, 8}, std::pair{10, 6}}) {
    const Adj adj = msn_graph(rows, cols);
    auto id = [&](int x, int y) { return static_cast<node_t>(mod(x, cols) + cols * mod(y, rows)); };
    auto is_auto = [&](auto g) {
      std::set<std::pair<node_t, node_t>> arcs;
      for (node_t v = 0; v < adj.size(); ++v)
        for (node_t w : adj[v]) arcs.emplace(v, w);
      for (auto [v, w] : arcs)
        if (!arcs.count({g(v), g(w)})) return false;
      return true;
    };
    auto xy = [&](node_t v) { return std::pair{static_cast<int>(v) % cols, static_cast<int>(v) / cols}; };
    EXPECT_TRUE(is_auto([&](node_t v) { auto [x, y] = xy(v); return id(x + 1, -y); }));
    EXPECT_TRUE(is_auto([&](node_t v) { auto [x, y] = xy(v); return id(-x, y + 1); }));
    EXPECT_TRUE(is_auto([&](node_t v) { auto [x, y] = xy(v); return id(x + 2, y); }));
    EXPECT_TRUE(is_auto([&](node_t v) { auto [x, y] = xy(v); return id(x, y + 2); }));
    EXPECT_FALSE(is_auto([&](node_t v) { auto [x, y] = xy(v); return id(x + 1, y); }));
  }
}

TEST(Msn, RoutesAreShortest) {
  for (auto [r, c] : {std::pair{4, 4}, std::pair{8, 8}, std::pair{16, 16}, std::pair{4, 10}, std::pair{6, 4}}) {
    SCOPED_TRACE(std::to_string(r) + "x" + std::to_string(c));
    const auto t = PeriodicTopology::msn(static_cast<unsigned>(r), static_cast<unsigned>(c));
    check_routes(t, msn_graph(r, c), all_nodes(t));
  }
}

// de Bruijn paper: Manhattan street network diameter sqrt(N) + 1 and mean distance
// (N^1.5 + 2N - 8) / (2N - 2) (ordered pairs, src != dst), square R x R. Both hold exactly for
// R a multiple of 4 only; for R = 2 mod 4 the BFS diameter is R (one less) and the mean is lower
// (6x6: 3.714 against 4.000; 10x10: 5.838 against 6.020).
TEST(Msn, PaperFormulas) {
  for (int r : {4, 6, 8, 10, 12, 16}) {
    const Stats st = all_pairs(msn_graph(r, r));
    const auto t = PeriodicTopology::msn(static_cast<unsigned>(r), static_cast<unsigned>(r));
    EXPECT_EQ(t.buffer_classes(), st.diameter);
    EXPECT_EQ(table_stats(t).sum * static_cast<std::uint64_t>(r * r), st.sum * t.orbit_count());
    const double n = r * r;
    const double formula = (std::pow(n, 1.5) + 2 * n - 8) / (2 * n - 2);
    std::printf("msn:%dx%d: diameter %u (sqrt(N)+1 = %d), mean %.6f (formula %.6f)\n", r, r, st.diameter, r + 1,
                st.mean, formula);
    if (r % 4 == 0) {
      EXPECT_EQ(st.diameter, static_cast<unsigned>(r + 1));
      // Exact: sum * (2N - 2) == (N^1.5 + 2N - 8) * N (N - 1).
      const std::uint64_t nn = static_cast<std::uint64_t>(r) * r;
      EXPECT_EQ(st.sum * (2 * nn - 2), (nn * static_cast<std::uint64_t>(r) + 2 * nn - 8) * nn * (nn - 1));
    } else {
      EXPECT_EQ(st.diameter, static_cast<unsigned>(r));
      EXPECT_LT(st.mean, formula);
    }
  }
}

}  // namespace
