// GraphTopology (explicit graph, table-driven shortest-path routing), the edge-list format and
// the shuffle-exchange network, checked against independent BFS over the graphs as defined.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rica/core.hpp"
#include "rica/topology/table.hpp"

using namespace rica;

static_assert(TopologyModel<GraphTopology>);

namespace {

using Adj = std::vector<std::vector<node_t>>;

std::vector<std::vector<unsigned>> all_pairs_bfs(const Adj& adj) {
  const std::size_t N = adj.size();
  std::vector<std::vector<unsigned>> dist(N, std::vector<unsigned>(N, ~0u));
  for (node_t s = 0; s < N; ++s) {
    auto& d = dist[s];
    std::vector<node_t> q{s};
    d[s] = 0;
    for (std::size_t h = 0; h < q.size(); ++h)
      for (node_t w : adj[q[h]])
        if (d[w] == ~0u) {
          d[w] = d[q[h]] + 1;
          q.push_back(w);
        }
  }
  return dist;
}

Adj adjacency_of(const GraphTopology& t) {
  Adj adj(t.nodes());
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p)
      if (const Link l = t.out_link(v, p); l.present()) adj[v].push_back(l.peer);
  return adj;
}

void expect_links_consistent(const GraphTopology& t) {
  std::set<std::pair<node_t, port_t>> ends;
  std::size_t links = 0;
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p <= t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) continue;
      ASSERT_LT(p, t.ports());
      ++links;
      ASSERT_LT(l.peer, t.nodes());
      ASSERT_LT(l.in_port, t.ports());
      ASSERT_TRUE(ends.insert({l.peer, l.in_port}).second);
    }
  EXPECT_EQ(ends.size(), links);
}

/// Routes every ordered PE pair; checks present links, classes < buffer_classes() and strictly
/// rising, and that the hop count equals the BFS distance `dist[s][d]`. Returns the largest.
unsigned route_all_shortest(const GraphTopology& t, const std::vector<std::vector<unsigned>>& dist) {
  unsigned max_hops = 0;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d) {
      node_t cur = s;
      class_t cls = 0;
      unsigned hops = 0;
      for (;;) {
        const Hop h = t.route(cur, d, cls);
        if (h.delivers()) break;
        const Link l = t.out_link(cur, h.port());
        if (!l.present() || h.next_class() >= t.buffer_classes() || (hops > 0 && h.next_class() <= cls) ||
            hops > t.nodes()) {
          ADD_FAILURE() << t.spec() << ": bad hop at " << cur << " for " << s << "->" << d;
          return max_hops;
        }
        cur = l.peer;
        cls = h.next_class();
        ++hops;
      }
      EXPECT_EQ(cur, d);
      EXPECT_EQ(hops, dist[s][d]) << s << "->" << d;
      max_hops = std::max(max_hops, hops);
    }
  return max_hops;
}

EdgeList parse(const std::string& text, const std::string& origin = "test.txt") {
  std::istringstream in(text);
  return parse_edge_list(in, origin);
}

GraphTopology graph(const std::string& text) { return GraphTopology(parse(text), "file:test.txt"); }

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no usage_error)";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Shuffle-exchange

TEST(ShuffleExchange, LinksDegreeDiameterAndShortestRoutes) {
  for (unsigned n = 2; n <= 10; ++n) {
    const auto t = make_shuffle_exchange(n);
    const node_t N = node_t{1} << n, mask = N - 1;
    ASSERT_EQ(t.nodes(), N);
    EXPECT_EQ(t.pes(), N);
    EXPECT_EQ(t.spec(), "shuffle:n=" + std::to_string(n));
    expect_links_consistent(t);
    // Independent adjacency: shuffle (rotl), unshuffle (rotr), exchange (flip bit 0); no loops.
    Adj ref(N);
    unsigned max_degree = 0;
    for (node_t v = 0; v < N; ++v) {
      std::set<node_t> s{((v << 1) | (v >> (n - 1))) & mask, ((v >> 1) | ((v & 1u) << (n - 1))) & mask, v ^ 1u};
      s.erase(v);
      ref[v].assign(s.begin(), s.end());
      const auto adj = adjacency_of(t);
      EXPECT_EQ(std::set<node_t>(adj[v].begin(), adj[v].end()), s);
      EXPECT_EQ(adj[v].size(), s.size()) << "duplicate link";
      max_degree = std::max<unsigned>(max_degree, static_cast<unsigned>(s.size()));
    }
    EXPECT_EQ(max_degree, n == 2 ? 2u : 3u);  // at n = 2 loops and duplicates leave degree <= 2
    EXPECT_EQ(t.ports(), max_degree);
    const auto dist = all_pairs_bfs(ref);
    unsigned diameter = 0;
    for (const auto& row : dist)
      for (unsigned x : row) diameter = std::max(diameter, x);
    EXPECT_EQ(diameter, 2 * n - 1) << "n=" << n;  // paper: 2 log2 N - 1
    EXPECT_EQ(t.buffer_classes(), diameter);
    EXPECT_EQ(route_all_shortest(t, dist), diameter);
  }
  EXPECT_EQ(make_shuffle_exchange(4).label(5), "0101");
}

TEST(ShuffleExchange, LargestAndErrors) {
  const auto t = make_shuffle_exchange(13);
  EXPECT_EQ(t.nodes(), 8192u);
  EXPECT_EQ(t.buffer_classes(), 25);  // diameter 2n - 1
  for (unsigned n : {1u, 14u}) {
    const std::string m = error_of([n] { make_shuffle_exchange(n); });
    EXPECT_NE(m.find("'n'"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 13]"), std::string::npos) << m;
  }
}

// ---------------------------------------------------------------------------------------------
// Edge-list files

TEST(EdgeListFile, UndirectedRingParsedAndRouted) {
  const auto g = parse("# a ring of 5\n\nnodes 5\n0 1\n1 2   # trailing comment\n 2 3\n3 4\n4 0\nlabel 2  middle node \n");
  EXPECT_EQ(g.nodes, 5u);
  EXPECT_EQ(g.pes, 5u);
  EXPECT_EQ(g.arcs.size(), 10u);  // each line both ways, in file order
  EXPECT_EQ(g.arcs[0], (std::pair<node_t, node_t>{0, 1}));
  EXPECT_EQ(g.arcs[1], (std::pair<node_t, node_t>{1, 0}));
  const GraphTopology t(g, "file:ring.txt");
  EXPECT_EQ(t.spec(), "file:ring.txt");
  EXPECT_EQ(t.ports(), 2);
  EXPECT_EQ(t.shape(), (Shape{5}));
  EXPECT_EQ(t.label(2), "middle node");
  EXPECT_EQ(t.label(3), "3");
  EXPECT_FALSE(t.vertex_transitive());
  EXPECT_EQ(t.orbit_count(), 0u);
  expect_links_consistent(t);
  // Out-ports in file order: node 0 has 0->1 (line 4) then 0->4 (line 8).
  EXPECT_EQ(t.out_link(0, 0).peer, 1u);
  EXPECT_EQ(t.out_link(0, 1).peer, 4u);
  EXPECT_FALSE(t.out_link(0, 2).present());
  // In-ports in order of (source node, source port): node 0 hears from 1 first, then 4.
  EXPECT_EQ(t.out_link(1, 0), (Link{0, 0}));  // 1's ports: 1->0 (line 4), 1->2 (line 5)
  EXPECT_EQ(t.out_link(1, 1).peer, 2u);
  EXPECT_EQ(t.out_link(4, 1), (Link{0, 1}));
  const auto dist = all_pairs_bfs(adjacency_of(t));
  EXPECT_EQ(route_all_shortest(t, dist), 2u);
  EXPECT_EQ(t.buffer_classes(), 2);
  // Ties go to the lowest port: on an even ring the antipode is 2 hops either way.
  const auto even = graph("0 1\n1 2\n2 3\n3 0\n");
  EXPECT_EQ(even.route(0, 2, 0).port(), 0);
  EXPECT_EQ(even.route(0, 2, 0).next_class(), 0);  // D - 2
  EXPECT_EQ(even.route(1, 2, 0).next_class(), 1);  // D - 1
}

TEST(EdgeListFile, DirectedRingAndRouterNodes) {
  const auto ring = graph("directed\n0 1\n1 2\n2 3\n3 4\n4 0\n");
  EXPECT_EQ(ring.ports(), 1);
  EXPECT_EQ(ring.buffer_classes(), 4);
  EXPECT_EQ(route_all_shortest(ring, all_pairs_bfs(adjacency_of(ring))), 4u);
  // A star of 4 PEs around router-only node 4 (declared after the links: order is free).
  const auto star = graph("0 4\n1 4\n2 4\n3 4\npes 4\nnodes 5\n");
  EXPECT_EQ(star.nodes(), 5u);
  EXPECT_EQ(star.pes(), 4u);
  EXPECT_EQ(star.ports(), 4);
  EXPECT_EQ(star.shape(), (Shape{4}));
  EXPECT_EQ(route_all_shortest(star, all_pairs_bfs(adjacency_of(star))), 2u);
  EXPECT_EQ(star.route(4, 3, 1), Hop::forward(3, 1));
  // One PE: nothing to route, but at least one buffer class.
  const auto one = graph("pes 1\n0 1\n");
  EXPECT_EQ(one.buffer_classes(), 1);
  EXPECT_TRUE(one.route(0, 0, 0).delivers());
}

TEST(EdgeListFile, GraphKeepsParallelArcsDropsSelfLoops) {
  EdgeList g;
  g.nodes = g.pes = 2;
  g.arcs = {{0, 1}, {0, 0}, {0, 1}, {1, 0}};
  const GraphTopology t(g, "custom");
  EXPECT_EQ(t.out_link(0, 0), (Link{1, 0}));
  EXPECT_EQ(t.out_link(0, 1), (Link{1, 1}));
  EXPECT_FALSE(t.out_link(0, 2).present());
  EXPECT_EQ(t.ports(), 2);
  expect_links_consistent(t);
  EXPECT_EQ(t.spec(), "custom");
}

TEST(EdgeListFile, MalformedInputNamesTheLine) {
  struct Case {
    const char* text;
    const char* expect;  // substrings of the message
    const char* expect2;
  };
  const Case cases[] = {
      {"0 1\n1 2\n2 x\n", "t.txt:3:", "'x'"},
      {"0 1\n\n# c\nfoo 3\n", "t.txt:4:", "unknown keyword 'foo'"},
      {"nodes 3\n0 1\n1 5\n", "t.txt:3:", "node id 5 is out of range [0, 2]"},
      {"0 1\n1 2 3\n", "t.txt:2:", "two node ids"},
      {"0 1\n1 1\n", "t.txt:2:", "self-loop"},
      {"0 1\nnodes 2\nnodes 3\n", "t.txt:3:", "twice"},
      {"nodes 0\n0 1\n", "t.txt:1:", "[1, 8192]"},
      {"nodes 9000\n0 1\n", "t.txt:1:", "[1, 8192]"},
      {"0 9000\n", "t.txt:1:", "[0, 8191]"},
      {"pes 4\n0 1\n", "t.txt:1:", "'pes' = 4"},
      {"directed 1\n0 1\n", "t.txt:1:", "'directed'"},
      {"label 0\n0 1\n", "t.txt:1:", "label"},
      {"-1 2\n", "t.txt:1:", "'-1'"},
      {"# nothing\n", "t.txt:", "no links"},
  };
  for (const auto& c : cases) {
    const std::string m = error_of([&] { parse(c.text, "t.txt"); });
    EXPECT_NE(m.find(c.expect), std::string::npos) << c.text << " -> " << m;
    EXPECT_NE(m.find(c.expect2), std::string::npos) << c.text << " -> " << m;
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
  }
}

TEST(EdgeListFile, DisconnectedGraphsRejected) {
  std::string m = error_of([] { graph("0 1\n2 3\n"); });
  EXPECT_NE(m.find("file:test.txt"), std::string::npos) << m;
  EXPECT_NE(m.find("not strongly connected"), std::string::npos) << m;
  m = error_of([] { graph("directed\n0 1\n1 2\n"); });  // a one-way chain
  EXPECT_NE(m.find("not strongly connected"), std::string::npos) << m;
  // An isolated PE (declared by nodes) is unreachable; an unused router-only node is harmless.
  m = error_of([] { graph("nodes 4\n0 1\n1 2\n2 0\n"); });
  EXPECT_NE(m.find("PE"), std::string::npos) << m;
  EXPECT_EQ(graph("nodes 4\npes 3\n0 1\n1 2\n2 0\n").nodes(), 4u);
}

TEST(EdgeListFile, LoadFromFile) {
  const auto path = (std::filesystem::temp_directory_path() / "rica_test_table_ring.txt").string();
  {
    std::ofstream out(path);
    out << "# ring of 6 with a chord\n0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n0 3\n";
  }
  const auto t = load_edge_list_file(path);
  EXPECT_EQ(t.spec(), "file:" + path);
  EXPECT_EQ(t.nodes(), 6u);
  EXPECT_EQ(route_all_shortest(t, all_pairs_bfs(adjacency_of(t))), 3u);  // e.g. 1 -> 4
  {
    std::ofstream out(path);
    out << "0 1\n1 zz\n";
  }
  std::string m = error_of([&] { load_edge_list_file(path); });
  EXPECT_NE(m.find(path + ":2:"), std::string::npos) << m;
  std::filesystem::remove(path);
  m = error_of([&] { load_edge_list_file(path); });
  EXPECT_NE(m.find(path), std::string::npos) << m;
  EXPECT_NE(m.find("cannot read"), std::string::npos) << m;
}
