// The RWC-1 §3.5 variants of (CB)^2 and CCCB on (B,C,P)-MDCE: a longer ring (S > n; S = 2n is
// two c-Banyans joined end to end), half the clusters (X = n - 1) and the freed cluster links
// reused as parallel links. Every figure is checked against brute force (BFS over the explicit
// graph, every route traced); the papers give no numbers for these variants.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "rica/graph.hpp"
#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "support.hpp"

namespace rica {
namespace {

TopologyMetrics all_pairs(const Topology& t) {
  MetricsOptions o;
  o.force_all_pairs = true;
  return compute_metrics(t, o);
}

// The class count the constructor derives from the worst route is what the routes use.
TEST(MdceVariants, ComputedClassesAreTight) {
  for (const char* spec : {"cb2:n=3", "cccb:n=3", "mdce:B=3,C=0,n=2", "mdce:B=0,C=2,n=3", "cb2:n=3,S=6",
                           "cccb:n=3,S=6", "cb2:n=3,S=4", "cccb:n=2,S=5", "cb2:n=3,X=2", "cccb:n=3,X=2",
                           "cb2:n=3,X=2,freed=parallel", "cb2:n=3,X=1,S=5", "mdce:B=0,C=2,n=2,S=3",
                           "mdce:B=2,C=1,n=2,S=3,X=1"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const auto st = test::trace_pairs(t, test::all_pairs(t), false);
    EXPECT_EQ(st.max_class + 1, t.buffer_classes()) << spec;
  }
  // The basic forms keep the papers' counts: (CB)^2 4, CCCB 3.
  EXPECT_EQ(TopologyRegistry::parse("cb2:n=4").buffer_classes(), 4);
  EXPECT_EQ(TopologyRegistry::parse("cccb:n=4").buffer_classes(), 3);
}

// S = 2n: twice the PEs; the routing stays minimal for CCCB and (CB)^2 alike (BFS = routed).
TEST(MdceVariants, DoubledRingHasTwiceThePes) {
  for (const char* base : {"cb2:n=3", "cccb:n=3"}) {
    const Topology b = TopologyRegistry::parse(base);
    const Topology t = TopologyRegistry::parse(std::string(base) + ",S=6");
    EXPECT_EQ(t.pes(), 2 * b.pes());
    EXPECT_EQ(t.shape()[0], 6u);
    const auto m = all_pairs(t);
    EXPECT_EQ(m.degree_in, 3u);
    EXPECT_EQ(m.degree_out, 3u);
    // The note-3 routing stays minimal on the doubled ring: every route is a shortest path.
    EXPECT_NEAR(m.routed_mean_distance, m.mean_distance, 1e-12) << m.spec;
    EXPECT_EQ(m.routed_diameter, m.diameter) << m.spec;
    std::printf("[ info ] %s: BFS D %u mean %.4f, routed D %u mean %.4f, classes %u\n", m.spec.c_str(), m.diameter,
                m.mean_distance, m.routed_diameter, m.routed_mean_distance, m.buffer_classes);
  }
}

// X = n - 1 is a partition of the basic network by the cluster address's high bit (RWC-1 §3.5:
// "equivalent to partitioning by cluster"): routing inside one half of the basic network takes
// the same hops as the variant's routing over all its pairs.
TEST(MdceVariants, HalfTheClustersIsAClusterPartition) {
  for (const char* base : {"cb2:n=3", "cccb:n=3", "cb2:n=4"}) {
    const Topology full = TopologyRegistry::parse(base);
    const Topology half = TopologyRegistry::parse(std::string(base) + ",X=" + (base[std::strlen(base) - 1] == '3' ? "2" : "3"));
    EXPECT_EQ(half.pes() * 2, full.pes());
    // PEs of the full network whose cluster address has its top bit 0, in the variant's order.
    const unsigned n = full.shape()[0];
    const node_t xa_full = full.shape()[1], xa_half = half.shape()[1];
    ASSERT_EQ(xa_half * 2, xa_full);
    auto to_full = [&](node_t v) {  // (x0, xa, rest) -> same coordinates in the full network
      const node_t x0 = v % n, xa = (v / n) % xa_half, rest = v / n / xa_half;
      return x0 + n * (xa + xa_full * rest);
    };
    std::vector<std::pair<node_t, node_t>> inside, mine;
    for (node_t s = 0; s < half.pes(); ++s)
      for (node_t d = 0; d < half.pes(); ++d)
        if (s != d) {
          inside.emplace_back(to_full(s), to_full(d));
          mine.emplace_back(s, d);
        }
    const auto a = test::trace_pairs(full, inside, false), b = test::trace_pairs(half, mine, false);
    EXPECT_EQ(a.hops, b.hops) << base;
    EXPECT_EQ(a.max_hops, b.max_hops) << base;
    // Without reuse the freed cluster ports are absent: nodes there have one port fewer.
    const auto m = all_pairs(half);
    EXPECT_EQ(m.degree_out, 3u);
    EXPECT_LT(m.degree, all_pairs(full).degree);
  }
}

// Freed cluster links as parallel links: every node keeps 3 in + 3 out, every link is used, and
// the extra parallel bandwidth does not lengthen any route.
TEST(MdceVariants, FreedLinksBecomeParallelLinks) {
  const Topology none = TopologyRegistry::parse("cb2:n=3,X=2");
  const Topology par = TopologyRegistry::parse("cb2:n=3,X=2,freed=parallel");
  test::expect_consistent_links(par);
  const Graph g = build_graph(par);
  for (node_t v = 0; v < par.nodes(); ++v) EXPECT_EQ(g.first[v + 1] - g.first[v], 3u) << par.label(v);
  const Graph r = g.reversed();
  for (node_t v = 0; v < par.nodes(); ++v) EXPECT_EQ(r.first[v + 1] - r.first[v], 3u) << par.label(v);
  const auto a = test::trace_pairs(none, test::all_pairs(none), false);
  const auto b = test::trace_pairs(par, test::all_pairs(par), false);
  EXPECT_EQ(a.hops, b.hops);
  // Some route takes a freed port (the cluster port at a column whose bit is >= X).
  bool used = false;
  for (node_t v = 0; v < par.pes() && !used; ++v)
    for (node_t d = 0; d < par.pes() && !used; ++d) {
      const Hop h = par.route(v, d, 0);
      if (!h.delivers() && h.port() == 1 && (v % 3) == 2) used = true;
    }
  EXPECT_TRUE(used);
}

TEST(MdceVariants, SpecsAndParameterErrors) {
  EXPECT_EQ(TopologyRegistry::parse("cb2:n=4,S=8").spec(), "cb2:n=4,S=8");
  EXPECT_EQ(TopologyRegistry::parse("cb2:n=4,X=3,freed=parallel").spec(), "cb2:n=4,X=3,freed=parallel");
  EXPECT_EQ(TopologyRegistry::parse("mdce:B=1,C=1,P=2,n=3,S=4,X=2").spec(), "mdce:B=1,C=1,P=2,n=3,S=4,X=2");
  EXPECT_EQ(TopologyRegistry::parse("cccb:n=4,S=8").pes(), 2048u);
  EXPECT_EQ(TopologyRegistry::parse("cccb:n=4,X=3").pes(), 512u);
  auto message = [](const char* spec) -> std::string {
    try {
      (void)TopologyRegistry::parse(spec);
    } catch (const usage_error& e) {
      return e.what();
    }
    return "(no usage_error)";
  };
  EXPECT_NE(message("cb2:n=4,S=3").find("parameter 'S' = 3 is out of range [4, 64]"), std::string::npos);
  EXPECT_NE(message("cb2:n=4,X=5").find("parameter 'X' = 5 is out of range [1, 4]"), std::string::npos);
  EXPECT_NE(message("cb2:n=4,freed=parallel").find("'freed'"), std::string::npos);
  EXPECT_NE(message("mdce:B=1,C=1,n=4,X=3,freed=parallel").find("'freed'"), std::string::npos);
  EXPECT_NE(message("cccb:n=4,freed=parallel").find("unknown parameter 'freed'"), std::string::npos);
}

}  // namespace
}  // namespace rica
