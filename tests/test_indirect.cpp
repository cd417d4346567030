// Omega network and binary fat tree (docs/topologies.md; docs/reproduction.md: fat tree mean 17.00 /
// 35.00 switches traversed, Omega 10 / 19 stages).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "rica/core.hpp"
#include "rica/topology/indirect.hpp"

namespace {

using rica::FatTreeTopology;
using rica::Hop;
using rica::Link;
using rica::node_t;
using rica::OmegaTopology;
using rica::port_t;

// All present links as (from, out_port) -> Link.
template <class T>
std::vector<std::pair<std::pair<node_t, port_t>, Link>> all_links(const T& t) {
  std::vector<std::pair<std::pair<node_t, port_t>, Link>> out;
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present()) out.push_back({{v, p}, l});
    }
  return out;
}

// Common contract check: peers in range, in-ports < ports(), each (peer, in_port) the end of
// exactly one link, and nothing out of range answers.
template <class T>
void check_link_consistency(const T& t) {
  std::set<std::pair<node_t, port_t>> ends;
  for (const auto& [from, l] : all_links(t)) {
    ASSERT_LT(l.peer, t.nodes());
    ASSERT_LT(l.in_port, t.ports());
    ASSERT_NE(l.peer, from.first) << "self-loop";
    ASSERT_TRUE(ends.insert({l.peer, l.in_port}).second)
        << t.label(l.peer) << " in-port " << l.in_port << " is the end of two links";
  }
  EXPECT_FALSE(t.out_link(t.nodes(), 0).present());
  EXPECT_FALSE(t.out_link(0, t.ports()).present());
}

struct RouteResult {
  bool arrived = false;
  unsigned switches = 0;
  std::vector<node_t> path;
};

template <class T>
RouteResult follow(const T& t, node_t src, node_t dst, bool keep_path = false) {
  RouteResult r;
  node_t cur = src;
  rica::class_t cls = 0;
  if (keep_path) r.path.push_back(cur);
  for (unsigned step = 0; step <= 4 * t.nodes(); ++step) {
    const Hop h = t.route(cur, dst, cls);
    if (h.delivers()) {
      r.arrived = (cur == dst);
      return r;
    }
    if (h.next_class() != 0 || h.port() >= t.ports()) return r;
    const Link l = t.out_link(cur, h.port());
    if (!l.present()) return r;
    cur = l.peer;
    cls = h.next_class();
    if (cur >= t.pes()) ++r.switches;
    if (keep_path) r.path.push_back(cur);
  }
  return r;
}

// BFS over the directed link graph, starting at PE src; returns hop distance and the number of
// shortest paths to every node, not passing through other PEs (PEs are endpoints only).
template <class T>
std::pair<std::vector<unsigned>, std::vector<std::uint64_t>> bfs(const T& t, node_t src) {
  constexpr unsigned inf = ~0u;
  std::vector<unsigned> dist(t.nodes(), inf);
  std::vector<std::uint64_t> count(t.nodes(), 0);
  std::deque<node_t> q{src};
  dist[src] = 0;
  count[src] = 1;
  while (!q.empty()) {
    const node_t v = q.front();
    q.pop_front();
    if (v < t.pes() && v != src) continue;
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) continue;
      if (dist[l.peer] == inf) {
        dist[l.peer] = dist[v] + 1;
        q.push_back(l.peer);
      }
      if (dist[l.peer] == dist[v] + 1) count[l.peer] += count[v];
    }
  }
  return {dist, count};
}

unsigned fat_tree_h(node_t a, node_t b) {  // 1 + floor(log2(a ^ b)), a != b
  unsigned h = 0;
  for (node_t x = a ^ b; x; x >>= 1) ++h;
  return h;
}

// ---- construction, labels, spec ---------------------------------------------------------------

TEST(Indirect, BadNThrows) {
  EXPECT_THROW(OmegaTopology(0), rica::usage_error);
  EXPECT_THROW(OmegaTopology(23), rica::usage_error);
  EXPECT_THROW(OmegaTopology(1000), rica::usage_error);
  EXPECT_THROW(FatTreeTopology(0), rica::usage_error);
  EXPECT_THROW(FatTreeTopology(23), rica::usage_error);
  try {
    OmegaTopology bad(0);
    FAIL();
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("omega"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
  }
  try {
    FatTreeTopology bad(23);
    FAIL();
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("fattree"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(OmegaTopology(22));
  EXPECT_NO_THROW(FatTreeTopology(22));
}

TEST(Indirect, SizesLabelsSpec) {
  const OmegaTopology om(10);
  EXPECT_EQ(om.pes(), 1024u);
  EXPECT_EQ(om.nodes(), 1024u + 10u * 512u);
  EXPECT_EQ(om.ports(), 2);
  EXPECT_EQ(om.buffer_classes(), 1);
  EXPECT_EQ(om.spec(), "omega:n=10");
  EXPECT_EQ(om.label(5), "pe5");
  EXPECT_EQ(om.label(1024), "s0.0");
  EXPECT_EQ(om.label(1024 + 3 * 512 + 7), "s3.7");
  EXPECT_EQ(om.label(om.nodes() - 1), "s9.511");
  EXPECT_EQ(om.shape(), rica::Shape{1024});
  EXPECT_EQ(om.orbit_count(), 11u);  // PEs + one orbit per stage (checked by test_topology_contract)
  EXPECT_FALSE(om.vertex_transitive());

  const FatTreeTopology ft(10);
  EXPECT_EQ(ft.pes(), 1024u);
  EXPECT_EQ(ft.nodes(), 1024u + 10u * 512u);
  EXPECT_EQ(ft.ports(), 4);
  EXPECT_EQ(ft.buffer_classes(), 1);
  EXPECT_EQ(ft.spec(), "fattree:n=10");
  EXPECT_EQ(ft.label(0), "pe0");
  EXPECT_EQ(ft.label(1024 + 2 * 512 + 9), "L2.9");
  EXPECT_EQ(ft.label(ft.nodes() - 1), "L9.511");
  EXPECT_EQ(ft.shape(), rica::Shape{1024});
  EXPECT_EQ(ft.orbit_count(), 11u);  // PEs + one orbit per level

  const OmegaTopology om22(22);
  EXPECT_EQ(om22.nodes(), (1u << 22) + 22u * (1u << 21));
  EXPECT_LE(om22.nodes(), rica::max_nodes);
  EXPECT_EQ(om22.spec(), "omega:n=22");
}

// ---- Omega wiring ------------------------------------------------------------------------------

TEST(Omega, LinksConsistentAndStaged) {
  for (unsigned n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    const OmegaTopology t(n);
    check_link_consistency(t);
    const node_t N = node_t{1} << n, half = N / 2;
    auto shuffle = [&](node_t line) { return ((line << 1) | (line >> (n - 1))) & (N - 1); };
    std::size_t count = 0;
    for (const auto& [from, l] : all_links(t)) {
      ++count;
      const auto [v, p] = from;
      if (v < N) {  // PE -> stage 0, via the perfect shuffle
        ASSERT_EQ(p, 0);
        const node_t s = shuffle(v);
        EXPECT_EQ(l.peer, N + s / 2);
        EXPECT_EQ(l.in_port, s % 2);
        continue;
      }
      const node_t stage = (v - N) / half, j = (v - N) % half;
      const node_t line = 2 * j + p;
      if (stage == n - 1) {  // last stage -> PE
        EXPECT_EQ(l.peer, line);
        EXPECT_EQ(l.in_port, 0);
      } else {
        EXPECT_EQ(l.peer, N + (stage + 1) * half + shuffle(line) / 2);
        EXPECT_EQ(l.in_port, shuffle(line) % 2);
      }
    }
    // N PE links, 2 per switch; every switch in-port and every PE in-port 0 used (checked unique).
    EXPECT_EQ(count, N + 2 * std::size_t{n} * half);
    // Unidirectional: no link has a reverse (n = 1 is the 2-cycle PE -> switch -> PE).
    if (n >= 2) {
      for (const auto& [from, l] : all_links(t))
        for (port_t q = 0; q < t.ports(); ++q) EXPECT_NE(t.out_link(l.peer, q).peer, from.first);
    }
  }
}

TEST(Omega, EveryPairRoutesThroughNStages) {
  for (unsigned n = 1; n <= 8; ++n) {
    SCOPED_TRACE(n);
    const OmegaTopology t(n);
    for (node_t s = 0; s < t.pes(); ++s) {
      EXPECT_TRUE(t.route(s, s, 0).delivers());
      for (node_t d = 0; d < t.pes(); ++d) {
        if (s == d) continue;
        const RouteResult r = follow(t, s, d, true);
        ASSERT_TRUE(r.arrived) << s << "->" << d;
        ASSERT_EQ(r.switches, n);
        for (unsigned k = 0; k < n; ++k) EXPECT_EQ(t.stage(r.path[k + 1]), k);
      }
    }
  }
}

TEST(Omega, PathsAreUnique) {
  // Count all PE -> PE paths through the (acyclic) switch stages: exactly one per pair, so the
  // destination-tag route is the only path.
  for (unsigned n = 3; n <= 8; ++n) {
    SCOPED_TRACE(n);
    const OmegaTopology t(n);
    for (node_t s = 0; s < t.pes(); ++s) {
      std::vector<std::uint64_t> paths(t.nodes(), 0);
      const Link first = t.out_link(s, 0);
      ASSERT_TRUE(first.present());
      paths[first.peer] = 1;
      for (node_t v = t.pes(); v < t.nodes(); ++v)  // stage order = node order: topological
        for (port_t p = 0; p < 2; ++p) {
          const Link l = t.out_link(v, p);
          ASSERT_TRUE(l.present());
          if (l.peer >= t.pes()) {
            ASSERT_GT(l.peer, v);
          }
          paths[l.peer] += paths[v];
        }
      for (node_t d = 0; d < t.pes(); ++d) ASSERT_EQ(paths[d], 1u) << s << "->" << d;
      // BFS agrees: one shortest path of n+1 links to every other PE.
      const auto [dist, count] = bfs(t, s);
      for (node_t d = 0; d < t.pes(); ++d) {
        if (d == s) continue;
        EXPECT_EQ(dist[d], n + 1);
        EXPECT_EQ(count[d], 1u);
      }
    }
  }
}

TEST(Omega, MeanStagesIsN) {
  // docs/reproduction.md: Omega 10 / 19 = the stage count; every distinct pair crosses n switches.
  for (unsigned n : {10u}) {
    const OmegaTopology t(n);
    std::uint64_t sum = 0, pairs = 0;
    for (node_t s = 0; s < t.pes(); s += 7)
      for (node_t d = 0; d < t.pes(); ++d)
        if (s != d) {
          const RouteResult r = follow(t, s, d);
          ASSERT_TRUE(r.arrived);
          sum += r.switches;
          ++pairs;
        }
    EXPECT_DOUBLE_EQ(static_cast<double>(sum) / static_cast<double>(pairs), 10.0);
  }
  // n = 19: spot-check routes (2^38 pairs are too many to enumerate).
  const OmegaTopology t19(19);
  for (node_t s : {0u, 1u, 12345u, (1u << 19) - 1u})
    for (node_t d : {2u, 77777u, (1u << 19) - 2u, 300001u}) {
      const RouteResult r = follow(t19, s, d);
      ASSERT_TRUE(r.arrived);
      EXPECT_EQ(r.switches, 19u);
    }
}

// ---- fat tree wiring ---------------------------------------------------------------------------

TEST(FatTree, LinksConsistentBidirectional) {
  for (unsigned n = 1; n <= 9; ++n) {
    SCOPED_TRACE(n);
    const FatTreeTopology t(n);
    check_link_consistency(t);
    const node_t N = node_t{1} << n, half = N / 2;
    std::size_t count = 0;
    for (const auto& [from, l] : all_links(t)) {
      ++count;
      // Reverse link: leaving the peer through the port it arrived on comes back on this port.
      EXPECT_EQ(t.out_link(l.peer, l.in_port), (Link{from.first, from.second}))
          << t.label(from.first) << " port " << from.second;
    }
    // Independent adjacency: PE p -- <p/2, 0>; <w', l-1> -- <w, l> iff w ^ w' in {0, 2^(l-1)}.
    std::set<std::pair<node_t, node_t>> expect;
    auto sw = [&](node_t w, node_t l) { return N + l * half + w; };
    for (node_t p = 0; p < N; ++p) {
      expect.insert({p, sw(p / 2, 0)});
      expect.insert({sw(p / 2, 0), p});
    }
    for (node_t l = 1; l < n; ++l)
      for (node_t w = 0; w < half; ++w)
        for (node_t w2 = 0; w2 < half; ++w2)
          if ((w ^ w2) == 0 || (w ^ w2) == (node_t{1} << (l - 1))) {
            expect.insert({sw(w2, l - 1), sw(w, l)});
            expect.insert({sw(w, l), sw(w2, l - 1)});
          }
    std::set<std::pair<node_t, node_t>> got;
    for (const auto& [from, l] : all_links(t)) got.insert({from.first, l.peer});
    EXPECT_EQ(got, expect);
    EXPECT_EQ(count, expect.size());  // no parallel links
    EXPECT_EQ(count, 2 * std::size_t{N} + 4 * std::size_t{n - 1} * half);
    // Port roles: 0, 1 go down (to a lower level or a PE); 2, 3 go up; top level has no up ports.
    for (node_t v = N; v < t.nodes(); ++v) {
      const unsigned lv = t.level(v);
      for (port_t p = 0; p < 4; ++p) {
        const Link l = t.out_link(v, p);
        if (p >= 2 && lv == n - 1) {
          EXPECT_FALSE(l.present());
          continue;
        }
        ASSERT_TRUE(l.present());
        if (p < 2) {
          if (lv == 0) {
            EXPECT_LT(l.peer, N);
          } else {
            EXPECT_EQ(t.level(l.peer), lv - 1);
          }
        } else {
          EXPECT_EQ(t.level(l.peer), lv + 1);
        }
      }
    }
    for (node_t p = 0; p < N; ++p)
      for (port_t q = 1; q < 4; ++q) EXPECT_FALSE(t.out_link(p, q).present());
  }
}

TEST(FatTree, EveryPairRoutesShortest) {
  for (unsigned n = 1; n <= 7; ++n) {
    SCOPED_TRACE(n);
    const FatTreeTopology t(n);
    for (node_t s = 0; s < t.pes(); ++s) {
      EXPECT_TRUE(t.route(s, s, 0).delivers());
      const auto [dist, count] = bfs(t, s);
      for (node_t d = 0; d < t.pes(); ++d) {
        if (s == d) continue;
        const RouteResult r = follow(t, s, d, true);
        ASSERT_TRUE(r.arrived) << s << "->" << d;
        const unsigned h = fat_tree_h(s, d);
        EXPECT_EQ(r.switches, 2 * h - 1);
        EXPECT_EQ(dist[d], r.switches + 1) << "not a shortest path " << s << "->" << d;
        // 2^(h-1) shortest paths (a choice of up-port at each of the h-1 up hops).
        EXPECT_EQ(count[d], std::uint64_t{1} << (h - 1));
        // Up, then down: levels 0, 1, .., h-1, .., 1, 0.
        for (unsigned k = 0; k < r.switches; ++k) {
          const unsigned expect_level = k < h ? k : 2 * h - 2 - k;
          EXPECT_EQ(t.level(r.path[k + 1]), expect_level);
        }
      }
    }
  }
}

TEST(FatTree, UpLinkLoadIsBalanced) {
  // All-pairs traffic: the destination-bit up-port rule loads all up links of a level equally,
  // and all down links of a level equally.
  const unsigned n = 6;
  const FatTreeTopology t(n);
  std::map<std::pair<node_t, port_t>, std::uint64_t> load;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d) {
      if (s == d) continue;
      node_t cur = s;
      for (Hop h = t.route(cur, d, 0); !h.delivers(); h = t.route(cur, d, 0)) {
        ++load[{cur, h.port()}];
        cur = t.out_link(cur, h.port()).peer;
      }
    }
  for (unsigned lv = 0; lv < n; ++lv)
    for (unsigned dir = 0; dir < 2; ++dir) {
      if (dir == 1 && lv == n - 1) continue;
      std::vector<std::uint64_t> loads;
      for (node_t w = 0; w < t.pes() / 2; ++w) {
        const node_t v = t.pes() + lv * (t.pes() / 2) + w;
        for (port_t p = 0; p < 2; ++p) loads.push_back(load[{v, static_cast<port_t>(p + 2 * dir)}]);
      }
      const auto [mn, mx] = std::minmax_element(loads.begin(), loads.end());
      EXPECT_EQ(*mn, *mx) << "level " << lv << (dir ? " up" : " down");
      EXPECT_GT(*mn, 0u);
    }
}

// Sum over ordered pairs (self = 0) of switches traversed, via the per-source distribution:
// 2^(h-1) destinations at h = 1 + floor(log2(src ^ dst)), each crossing 2h - 1 switches.
double fat_tree_mean_closed(unsigned n) {
  long double per_src = 0;
  for (unsigned h = 1; h <= n; ++h) per_src += std::ldexp(2.0L * h - 1, static_cast<int>(h) - 1);
  return static_cast<double>(per_src / std::ldexp(1.0L, static_cast<int>(n)));
}

TEST(FatTree, MeanSwitchesTraversedReference) {
  // docs/reproduction.md: binary fat tree 17.00 (1024 PEs) and 35.00 (2^19 PEs), all N^2 ordered pairs,
  // self pairs counting 0, measured in switches traversed (2h - 1).
  const FatTreeTopology t(10);
  std::uint64_t sum = 0;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d) {
      if (s == d) continue;
      const RouteResult r = follow(t, s, d);
      ASSERT_TRUE(r.arrived);
      sum += r.switches;
    }
  const double n2 = 1024.0 * 1024.0;
  const double mean10 = static_cast<double>(sum) / n2;
  EXPECT_NEAR(mean10, 17.00, 0.005);
  EXPECT_DOUBLE_EQ(mean10, fat_tree_mean_closed(10));
  // Exact: (2n - 3) + 3 / 2^n.
  EXPECT_EQ(sum, 1024ull * ((2 * 10 - 3) * 1024ull + 3));
  EXPECT_DOUBLE_EQ(mean10, 17.0 + 3.0 / 1024.0);

  const double mean19 = fat_tree_mean_closed(19);
  EXPECT_NEAR(mean19, 35.00, 0.005);
  EXPECT_DOUBLE_EQ(mean19, 35.0 + 3.0 / 524288.0);
  // The closed form's per-pair term matches the routes at n = 19 for sample pairs.
  const FatTreeTopology t19(19);
  for (node_t s : {0u, 1u, 4242u, (1u << 19) - 1u})
    for (node_t d : {3u, 65536u, 262144u, 99999u}) {
      if (s == d) continue;
      const RouteResult r = follow(t19, s, d);
      ASSERT_TRUE(r.arrived);
      EXPECT_EQ(r.switches, 2 * fat_tree_h(s, d) - 1);
    }
}

TEST(Indirect, DegenerateNOne) {
  // n = 1: two PEs, one switch.
  const OmegaTopology om(1);
  EXPECT_EQ(om.nodes(), 3u);
  EXPECT_EQ(om.out_link(0, 0), (Link{2, 0}));
  EXPECT_EQ(om.out_link(1, 0), (Link{2, 1}));
  EXPECT_EQ(om.out_link(2, 0), (Link{0, 0}));
  EXPECT_EQ(om.out_link(2, 1), (Link{1, 0}));
  EXPECT_EQ(om.label(2), "s0.0");
  const FatTreeTopology ft(1);
  EXPECT_EQ(ft.nodes(), 3u);
  EXPECT_EQ(ft.out_link(0, 0), (Link{2, 0}));
  EXPECT_EQ(ft.out_link(1, 0), (Link{2, 1}));
  EXPECT_EQ(ft.out_link(2, 0), (Link{0, 0}));
  EXPECT_EQ(ft.out_link(2, 1), (Link{1, 0}));
  EXPECT_FALSE(ft.out_link(2, 2).present());
  EXPECT_FALSE(ft.out_link(2, 3).present());
  EXPECT_EQ(ft.label(2), "L0.0");
  for (node_t s = 0; s < 2; ++s) {
    EXPECT_EQ(follow(om, s, 1 - s).switches, 1u);
    EXPECT_EQ(follow(ft, s, 1 - s).switches, 1u);
  }
}

}  // namespace
