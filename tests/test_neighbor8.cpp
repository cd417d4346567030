// Eight-neighbour mesh and torus (docs/topologies.md): links, diagonal-then-straight routing,
// buffer classes, and the paper's closed forms (docs/reproduction.md) computed independently by BFS.
#include "rica/topology/neighbor8.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <vector>

#include "rica/core.hpp"

namespace {

using rica::Hop;
using rica::Link;
using rica::Neighbor8Topology;
using rica::Neighbor8Classes;
using rica::node_t;
using rica::port_t;
using Adj = std::vector<std::vector<node_t>>;

static_assert(rica::TopologyModel<Neighbor8Topology>);

int mod(int a, int m) { return ((a % m) + m) % m; }

// Independent graph: the 8 (or fewer at mesh borders) neighbours of every PE.
Adj graph(int n, bool wrap) {
  Adj adj(static_cast<std::size_t>(n * n));
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      std::set<node_t> s;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dx == 0 && dy == 0) continue;
          int qx = x + dx, qy = y + dy;
          if (wrap) {
            qx = mod(qx, n);
            qy = mod(qy, n);
          } else if (qx < 0 || qx >= n || qy < 0 || qy >= n) {
            continue;
          }
          s.insert(static_cast<node_t>(qx + n * qy));
        }
      adj[static_cast<std::size_t>(x + n * y)].assign(s.begin(), s.end());
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

// Signed displacement along one axis: mesh plain difference; torus the shorter way round, + on a
// tie at n/2.
int disp(int from, int to, int n, bool wrap) {
  int d = to - from;
  if (!wrap) return d;
  d = mod(d, n);
  return 2 * d > n ? d - n : d;
}

int sign(int v) { return (v > 0) - (v < 0); }

TEST(Neighbor8, BadParameters) {
  EXPECT_THROW(Neighbor8Topology(1, false), rica::usage_error);
  EXPECT_THROW(Neighbor8Topology(0, false), rica::usage_error);
  EXPECT_THROW(Neighbor8Topology(2, true), rica::usage_error);
  EXPECT_THROW(Neighbor8Topology(8193, false), rica::usage_error);
  EXPECT_NO_THROW(Neighbor8Topology(2, false));
  EXPECT_NO_THROW(Neighbor8Topology(3, true));
  try {
    Neighbor8Topology t(1, false);
    ADD_FAILURE();
  } catch (const rica::usage_error& e) {
    EXPECT_STREQ(e.what(), "mesh8: parameter 'n' = 1 is out of range [2, 8192]");
  }
  try {
    Neighbor8Topology t(2, true);
    ADD_FAILURE();
  } catch (const rica::usage_error& e) {
    EXPECT_STREQ(e.what(), "torus8: parameter 'n' = 2 is out of range [3, 8192]");
  }
}

TEST(Neighbor8, SpecLabelShape) {
  const Neighbor8Topology m(32, false), t(32, true);
  EXPECT_EQ(m.spec(), "mesh8:n=32");
  EXPECT_EQ(t.spec(), "torus8:n=32");
  EXPECT_EQ(m.label(3 + 32 * 17), "(3,17)");
  EXPECT_EQ(m.shape(), (rica::Shape{32, 32}));
  EXPECT_EQ(m.nodes(), 1024u);
  EXPECT_EQ(m.pes(), 1024u);
  EXPECT_EQ(m.ports(), 8u);
  EXPECT_EQ(m.buffer_classes(), 1u);
  EXPECT_EQ(t.buffer_classes(), 3u);  // wrap-arounds crossed: 0, 1 or 2, at every size
  EXPECT_EQ(Neighbor8Topology(32, true, Neighbor8Classes::distance).buffer_classes(), 16u);
  EXPECT_EQ(Neighbor8Topology(7, true, Neighbor8Classes::distance).buffer_classes(), 3u);
  EXPECT_EQ(Neighbor8Topology(32, true, Neighbor8Classes::distance).spec(), "torus8:n=32,classes=distance");
  EXPECT_FALSE(m.vertex_transitive());
  EXPECT_TRUE(t.vertex_transitive());
  EXPECT_EQ(m.orbit_count(), 0u);
  EXPECT_EQ(t.orbit_count(), 1u);
  EXPECT_EQ(t.orbit(77), 0u);
  EXPECT_EQ(t.orbit_rep(0), 0u);
}

// Links against the independent graph and the port table of the header; each (peer, in_port) is
// the end of one link; the in-port is the direction of travel, and the opposite port leads back.
// Link counts: mesh 4n^2 - 6n + 2 undirected (average degree (8n^2 - 12n + 4) / n^2), torus 4N.
TEST(Neighbor8, Links) {
  const int dir[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  const port_t opposite[8] = {1, 0, 3, 2, 7, 6, 5, 4};
  for (bool wrap : {false, true})
    for (int n = wrap ? 3 : 2; n <= 9; ++n) {
      SCOPED_TRACE(n);
      const Neighbor8Topology t(static_cast<unsigned>(n), wrap);
      const Adj adj = graph(n, wrap);
      std::vector<int> hits(t.nodes() * 8u, 0);
      std::uint64_t directed = 0;
      for (node_t v = 0; v < t.nodes(); ++v) {
        const int x = static_cast<int>(v) % n, y = static_cast<int>(v) / n;
        std::vector<node_t> peers;
        for (port_t p = 0; p < 8; ++p) {
          const Link l = t.out_link(v, p);
          int qx = x + dir[p][0], qy = y + dir[p][1];
          if (!wrap && (qx < 0 || qx >= n || qy < 0 || qy >= n)) {
            EXPECT_FALSE(l.present());
            continue;
          }
          ASSERT_TRUE(l.present());
          EXPECT_EQ(l.peer, static_cast<node_t>(mod(qx, n) + n * mod(qy, n)));
          EXPECT_EQ(l.in_port, p);
          EXPECT_EQ(t.out_link(l.peer, opposite[p]).peer, v);
          ++hits[l.peer * 8u + l.in_port];
          peers.push_back(l.peer);
          ++directed;
        }
        EXPECT_FALSE(t.out_link(v, 8).present());
        std::sort(peers.begin(), peers.end());
        EXPECT_EQ(peers, adj[v]);
      }
      for (int h : hits) EXPECT_LE(h, 1);
      const auto nn = static_cast<std::uint64_t>(n);
      if (wrap)
        EXPECT_EQ(directed / 2, 4 * nn * nn);
      else
        EXPECT_EQ(directed / 2, 4 * nn * nn - 6 * nn + 2);
    }
}

// Every ordered pair: diagonal for min(|dx|,|dy|) hops, then straight; length max(|dx|,|dy|)
// (wrapped on the torus) = the BFS distance; every hop takes a present link; classes: mesh 0,
// torus: wrap scheme = wrap-arounds crossed so far per axis (counted here from the hops taken);
// distance scheme = D - remaining distance (strictly rising); always < buffer_classes().
TEST(Neighbor8, Routes) {
  for (bool wrap : {false, true})
    for (Neighbor8Classes scheme : {Neighbor8Classes::wrap, Neighbor8Classes::distance})
    for (int n : {2, 3, 4, 5, 6, 7, 8, 9, 12, 16}) {
      if (wrap && n < 3) continue;
      if (!wrap && scheme == Neighbor8Classes::distance) continue;
      SCOPED_TRACE(testing::Message() << (wrap ? "torus " : "mesh ") << n
                                      << (scheme == Neighbor8Classes::wrap ? " wrap" : " distance"));
      const Neighbor8Topology t(static_cast<unsigned>(n), wrap, scheme);
      const Adj adj = graph(n, wrap);
      const int D = n / 2;
      for (node_t s = 0; s < t.nodes(); ++s) {
        const auto dist = bfs(adj, s);
        for (node_t d = 0; d < t.nodes(); ++d) {
          const int sx = static_cast<int>(s) % n, sy = static_cast<int>(s) / n;
          const int dx = disp(sx, static_cast<int>(d) % n, n, wrap);
          const int dy = disp(sy, static_cast<int>(d) / n, n, wrap);
          const int diag = std::min(std::abs(dx), std::abs(dy));
          const int len = std::max(std::abs(dx), std::abs(dy));
          ASSERT_EQ(static_cast<unsigned>(len), dist[d]);
          node_t cur = s;
          int hops = 0, last_class = -1, wraps = 0;
          for (Hop h = t.route(cur, d, 0); !h.delivers(); h = t.route(cur, d, h.next_class())) {
            const Link l = t.out_link(cur, h.port());
            ASSERT_TRUE(l.present());
            // Expected direction of this hop.
            const int ex = hops < diag ? sign(dx) : (std::abs(dx) > std::abs(dy) ? sign(dx) : 0);
            const int ey = hops < diag ? sign(dy) : (std::abs(dy) > std::abs(dx) ? sign(dy) : 0);
            const int cx = static_cast<int>(cur) % n, cy = static_cast<int>(cur) / n;
            const int lx = static_cast<int>(l.peer) % n, ly = static_cast<int>(l.peer) / n;
            ASSERT_EQ(disp(cx, lx, n, wrap), ex) << "hop " << hops;
            ASSERT_EQ(disp(cy, ly, n, wrap), ey) << "hop " << hops;
            ASSERT_LT(h.next_class(), t.buffer_classes());
            wraps += (std::abs(lx - cx) > 1) + (std::abs(ly - cy) > 1);
            if (wrap && scheme == Neighbor8Classes::wrap) {
              ASSERT_EQ(static_cast<int>(h.next_class()), wraps);
              ASSERT_LE(wraps, 2);
            } else if (wrap) {
              ASSERT_EQ(static_cast<int>(h.next_class()), D - (len - hops));
              ASSERT_GT(static_cast<int>(h.next_class()), last_class);
            } else {
              ASSERT_EQ(h.next_class(), 0u);
            }
            last_class = h.next_class();
            cur = l.peer;
            ASSERT_LE(++hops, static_cast<int>(t.nodes()));
          }
          ASSERT_EQ(cur, d);
          ASSERT_EQ(hops, len);
        }
      }
    }
}

// The path commutes with translations (the torus is vertex-transitive); so do the distance
// classes. Wrap classes depend on where the wrap-arounds are, so only the port is compared.
TEST(Neighbor8, TorusRoutingCommutesWithTranslations) {
  const int n = 10;
  const Neighbor8Topology t(n, true, Neighbor8Classes::distance), w(n, true);
  for (node_t s = 0; s < t.nodes(); s += 7)
    for (node_t d = 0; d < t.nodes(); ++d)
      for (int gx : {1, 4})
        for (int gy : {0, 3}) {
          auto g = [&](node_t v) {
            return static_cast<node_t>(mod(static_cast<int>(v) % n + gx, n) + n * mod(static_cast<int>(v) / n + gy, n));
          };
          ASSERT_EQ(t.route(g(s), g(d), 0), t.route(s, d, 0));
          ASSERT_EQ(w.route(g(s), g(d), 0).delivers(), w.route(s, d, 0).delivers());
          if (!w.route(s, d, 0).delivers()) {
            ASSERT_EQ(w.route(g(s), g(d), 0).port(), w.route(s, d, 0).port());
          }
        }
}

// Paper closed forms by BFS over the explicit graph, ordered pairs src != dst (the paper's
// convention, interpretation note 5):
// mesh: D = n - 1, d = (7n^2 + 2) / (15n);
// torus: D = floor(n/2), d = n/3 for odd n, n(2n^2 + 1) / (6(n^2 - 1)) for even n (docs/reproduction.md;
// the paper's eq. 38 gives n/3 for every n). Over all n^2 pairs with self = 0 the odd-n torus mean
// is (n^2 - 1) / (3n) instead, so n/3 is the src != dst convention.
TEST(Neighbor8, ClosedForms) {
  for (bool wrap : {false, true})
    for (int n = 3; n <= 9; ++n) {
      SCOPED_TRACE(testing::Message() << (wrap ? "torus " : "mesh ") << n);
      const Adj adj = graph(n, wrap);
      unsigned diameter = 0;
      std::int64_t sum = 0;
      for (node_t s = 0; s < adj.size(); ++s)
        for (unsigned x : bfs(adj, s)) {
          diameter = std::max(diameter, x);
          sum += x;
        }
      const std::int64_t nn = n, N = nn * nn, pairs = N * (N - 1);
      if (!wrap) {
        EXPECT_EQ(diameter, static_cast<unsigned>(n - 1));
        EXPECT_EQ(15 * nn * sum, (7 * nn * nn + 2) * pairs);  // sum / pairs == (7n^2+2)/(15n)
      } else {
        EXPECT_EQ(diameter, static_cast<unsigned>(n / 2));
        EXPECT_EQ(Neighbor8Topology(static_cast<unsigned>(n), true, Neighbor8Classes::distance).buffer_classes(), diameter);
        if (n % 2 == 1) {
          EXPECT_EQ(3 * sum, nn * pairs);      // d = n/3 over src != dst
          EXPECT_EQ(3 * nn * sum, (N - 1) * N * N);  // (n^2-1)/(3n) over all N^2 pairs
        } else {
          EXPECT_EQ(6 * (N - 1) * sum, nn * (2 * N + 1) * pairs);
        }
      }
    }
}

}  // namespace
