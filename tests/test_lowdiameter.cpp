// Today's low-diameter networks (docs/topologies.md): dragonfly, HyperX / flattened butterfly and
// Slim Fly. Closed forms (sizes, degrees, router diameters) against brute force on the router
// graph; minimal routing against BFS; the channel dependency certificate with the derived classes
// and its refusal of a short class count; exactly once at saturation on both engines.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "rica/engine.hpp"
#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "saturate.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

/// BFS distances between router-only nodes over router-to-router links: [r][r'].
std::vector<std::vector<unsigned>> router_distances(const Topology& t) {
  const node_t P = t.pes(), R = t.nodes() - P;
  std::vector<std::vector<unsigned>> d(R, std::vector<unsigned>(R, ~0u));
  for (node_t s = 0; s < R; ++s) {
    std::deque<node_t> q{s};
    d[s][s] = 0;
    while (!q.empty()) {
      const node_t u = q.front();
      q.pop_front();
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = t.out_link(P + u, p);
        if (!l.present() || l.peer < P) continue;
        const node_t w = l.peer - P;
        if (d[s][w] == ~0u) d[s][w] = d[s][u] + 1, q.push_back(w);
      }
    }
  }
  return d;
}

/// The shape of a "hyperx:AxB[,...]" spec.
Shape parse_shape_for_test(const std::string& spec) {
  std::string text = spec.substr(spec.find(':') + 1);
  text = text.substr(0, text.find(','));
  Shape s;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t x = text.find('x', at);
    s.push_back(static_cast<std::uint32_t>(std::stoul(text.substr(at, x - at))));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return s;
}

unsigned max_of(const std::vector<std::vector<unsigned>>& d) {
  unsigned m = 0;
  for (const auto& row : d)
    for (unsigned x : row) m = std::max(m, x);
  return m;
}

/// Router degree (router-to-router links) of every router, as a set.
std::set<unsigned> router_degrees(const Topology& t) {
  std::set<unsigned> s;
  for (node_t v = t.pes(); v < t.nodes(); ++v) {
    unsigned k = 0;
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      k += l.present() && l.peer >= t.pes();
    }
    s.insert(k);
  }
  return s;
}

/// Every routed PE pair takes exactly the router distance + 2 links (minimal routing): `d` the
/// router distances (BFS, or for a dragonfly the shortest paths with at most one global link).
void expect_minimal(const Topology& t, const std::vector<std::vector<unsigned>>& d) {
  const node_t P = t.pes();
  std::vector<node_t> router_of(P);
  for (node_t v = 0; v < P; ++v) router_of[v] = t.out_link(v, 0).peer - P;
  for (node_t s = 0; s < P; ++s)
    for (node_t x = 0; x < P; ++x) {
      if (s == x) continue;
      const auto st = test::trace_pairs(t, {{s, x}}, false);
      ASSERT_EQ(st.max_hops, d[router_of[s]][router_of[x]] + 2) << t.spec() << " " << s << "->" << x;
    }
}

void expect_minimal(const Topology& t) { expect_minimal(t, router_distances(t)); }

/// Dragonfly router distances over paths with at most one global link (a link between two
/// groups of `a` routers): BFS over (router, global link used), independent of the routing.
std::vector<std::vector<unsigned>> one_global_distances(const Topology& t, unsigned a) {
  const node_t P = t.pes(), R = t.nodes() - P;
  std::vector<std::vector<unsigned>> out(R, std::vector<unsigned>(R, ~0u));
  for (node_t s = 0; s < R; ++s) {
    std::vector<unsigned> d(2 * R, ~0u);
    std::deque<node_t> q{2 * s};
    d[2 * s] = 0;
    while (!q.empty()) {
      const node_t st = q.front(), u = st / 2, used = st % 2;
      q.pop_front();
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = t.out_link(P + u, p);
        if (!l.present() || l.peer < P) continue;
        const node_t w = l.peer - P;
        const bool global = w / a != u / a;
        if (global && used) continue;
        const node_t next = 2 * w + (used || global);
        if (d[next] == ~0u) d[next] = d[st] + 1, q.push_back(next);
      }
    }
    for (node_t w = 0; w < R; ++w) out[s][w] = std::min(d[2 * w], d[2 * w + 1]);
  }
  return out;
}

TEST(Dragonfly, SizesDegreesAndDiameterThreeBetweenRouters) {
  for (const char* spec : {"dragonfly:h=1", "dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "dragonfly:h=3,p=1,a=3",
                           "dragonfly:h=2,p=3,a=2,arrangement=relative", "dragonfly:h=3,a=1"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const auto& df = std::get<DragonflyTopology>(t.variant());
    const unsigned a = df.a(), p = df.p(), h = df.h(), g = a * h + 1;
    EXPECT_EQ(df.groups(), g) << spec;
    EXPECT_EQ(t.pes(), g * a * p) << spec;
    EXPECT_EQ(t.nodes(), g * a * (p + 1)) << spec;
    EXPECT_EQ(router_degrees(t), std::set<unsigned>{a - 1 + h}) << spec;
    const auto d = router_distances(t);
    EXPECT_EQ(max_of(d), a == 1 ? 1u : 3u) << spec;  // local, global, local
    // Exactly one global link between every two groups.
    std::vector<unsigned> between(g * g, 0);
    for (node_t v = t.pes(); v < t.nodes(); ++v)
      for (port_t q = 0; q < t.ports(); ++q) {
        const Link l = t.out_link(v, q);
        if (!l.present() || l.peer < t.pes()) continue;
        const unsigned G = (v - t.pes()) / a, H = (l.peer - t.pes()) / a;
        if (G != H) ++between[G * g + H];
      }
    for (unsigned G = 0; G < g; ++G)
      for (unsigned H = 0; H < g; ++H) EXPECT_EQ(between[G * g + H], G == H ? 0u : 1u) << spec;
    // Minimal routing = the shortest path with at most one global hop; the graph's shortest
    // paths are sometimes shorter (global, global), so the routed mean lies above the BFS mean.
    const auto d1 = one_global_distances(t, a);
    EXPECT_EQ(max_of(d1), a == 1 ? 1u : 3u) << spec;
    expect_minimal(t, d1);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_EQ(m.diameter, a == 1 ? 2u : 4u) << spec;  // switches traversed: routers on the path
    EXPECT_EQ(m.routed_diameter, m.diameter) << spec;
    EXPECT_GE(m.routed_mean_distance, m.mean_distance) << spec;
  }
}

TEST(Dragonfly, BalancedDefaultsAndCanonicalSpec) {
  const Topology t = TopologyRegistry::parse("dragonfly:4");
  EXPECT_EQ(t.spec(), "dragonfly:h=4,p=4,a=8");
  EXPECT_EQ(t.pes(), 1056u);  // 33 groups x 8 routers x 4 terminals
  EXPECT_EQ(t.buffer_classes(), 2);
  EXPECT_EQ(TopologyRegistry::parse("dragonfly:h=3,a=1").buffer_classes(), 1);
}

TEST(Dragonfly, RelativeArrangementSymmetryGivesExactFiguresAtSixteenK) {
  // 129 groups x 16 routers x 8 terminals = 16,512 PEs: one source per (router index, terminal).
  const TopologyMetrics m = compute_metrics(TopologyRegistry::parse("dragonfly:8,arrangement=relative"));
  EXPECT_EQ(m.method, "exact-symmetry");
  EXPECT_EQ(m.pes, 16512u);
  EXPECT_EQ(m.diameter, 4u);
  EXPECT_EQ(m.routed_diameter, 4u);
}

TEST(HyperX, SizesDegreesAndDiameterEqualsDimensions) {
  for (const char* spec : {"hyperx:4", "hyperx:3x4", "hyperx:4x4,T=2", "hyperx:2x3x2,T=1", "hyperx:3x3x3,T=2"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const auto& hx = std::get<HyperXTopology>(t.variant());
    unsigned routers = 1, degree = 0;
    Shape s = parse_shape_for_test(spec);
    for (auto k : s) routers *= k, degree += k - 1;
    EXPECT_EQ(hx.routers(), routers) << spec;
    EXPECT_EQ(t.pes(), routers * hx.terminals()) << spec;
    EXPECT_EQ(router_degrees(t), std::set<unsigned>{degree}) << spec;
    EXPECT_EQ(max_of(router_distances(t)), s.size()) << spec;
    expect_minimal(t);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_EQ(m.method, "exact-symmetry") << spec;
    EXPECT_EQ(m.diameter, s.size() + 1) << spec;
    EXPECT_EQ(m.routed_diameter, m.diameter) << spec;
  }
  EXPECT_EQ(TopologyRegistry::parse("hyperx:8x8").spec(), "hyperx:8x8,T=8");  // a flattened butterfly
}

TEST(SlimFly, MmsGraphSizesDegreeAndDiameterTwo) {
  // q = 4w + d: routers 2q^2, degree (3q - d)/2 (q = 5: the Hoffman-Singleton graph, 50 routers of
  // degree 7); primes and prime powers (4, 8, 16: d = 0; 9, 25: d = 1; 27: d = -1).
  for (unsigned q : {3u, 4u, 5u, 7u, 8u, 9u, 11u, 13u, 16u, 25u, 27u}) {
    const int d = q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0;
    const Topology t = TopologyRegistry::parse("slimfly:q=" + std::to_string(q));
    const auto& sf = std::get<SlimFlyTopology>(t.variant());
    const unsigned k = static_cast<unsigned>((3 * static_cast<int>(q) - d) / 2);
    EXPECT_EQ(sf.routers(), 2 * q * q);
    EXPECT_EQ(sf.router_degree(), k);
    EXPECT_EQ(sf.p(), (k + 1) / 2);
    EXPECT_EQ(router_degrees(t), std::set<unsigned>{k}) << q;
    const auto dist = router_distances(t);
    EXPECT_EQ(max_of(dist), 2u) << q;
    if (q <= 7) expect_minimal(t);
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_EQ(m.diameter, 3u) << q;  // switches traversed
    EXPECT_EQ(m.routed_diameter, 3u) << q;
    EXPECT_NEAR(m.routed_mean_distance, m.mean_distance, 1e-12) << q;
  }
  // Moore bound for diameter 2 with degree 7: 50 = 1 + 7 + 7*6, so q = 5 meets it.
  EXPECT_EQ(std::get<SlimFlyTopology>(TopologyRegistry::parse("slimfly:5").variant()).routers(), 50u);
}

TEST(LowDiameter, SymmetryGivesTheAllPairsFigures) {
  for (const char* spec : {"dragonfly:h=2,arrangement=relative", "dragonfly:h=2,p=1,a=3,arrangement=relative",
                           "hyperx:3x4,T=2", "slimfly:q=5,p=2", "slimfly:q=7,p=1", "slimfly:q=4,p=2", "slimfly:q=9,p=1"}) {
    const Topology t = TopologyRegistry::parse(spec);
    MetricsOptions all;
    all.force_all_pairs = true;
    const auto a = compute_metrics(t, all), s = compute_metrics(t);
    EXPECT_EQ(s.method, "exact-symmetry") << spec;
    EXPECT_EQ(s.diameter, a.diameter) << spec;
    EXPECT_EQ(s.routed_diameter, a.routed_diameter) << spec;
    EXPECT_NEAR(s.mean_distance, a.mean_distance, 1e-9) << spec;
    EXPECT_NEAR(s.routed_mean_distance, a.routed_mean_distance, 1e-9) << spec;
    EXPECT_NEAR(s.avg_relay, a.avg_relay, 1e-6) << spec;
    EXPECT_NEAR(s.max_relay, a.max_relay, 1e-6) << spec;
    EXPECT_EQ(s.classes_used, a.classes_used) << spec;
  }
}

TEST(LowDiameter, ChannelDependencyCertificateWithTheDerivedClasses) {
  for (const char* spec : {"dragonfly:h=1", "dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "dragonfly:h=3,p=1",
                           "hyperx:4x4,T=2", "hyperx:3x3x3,T=1", "slimfly:q=3", "slimfly:q=5", "slimfly:q=7,p=2", "slimfly:q=4", "slimfly:q=8,p=2", "slimfly:q=9,p=2"}) {
    const Topology t = TopologyRegistry::parse(spec);
    test::expect_consistent_links(t);
    const auto st = test::trace_pairs(t, test::all_pairs(t), true);
    EXPECT_TRUE(test::acyclic(st.deps)) << spec;
    EXPECT_EQ(st.max_class + 1, t.buffer_classes()) << spec;  // every class is needed by some route
    // Explicit classes run the construction-time certificate and accept the derived count.
    if (std::string(spec).rfind("hyperx", 0) != 0) {
      EXPECT_NO_THROW(TopologyRegistry::parse(std::string(spec) + ",classes=2")) << spec;
    }
  }
}

TEST(LowDiameter, AShortClassCountIsRefusedWithTheCycle) {
  for (const char* spec : {"dragonfly:h=1,classes=1", "dragonfly:h=2,arrangement=relative,classes=1",
                           "slimfly:q=3,classes=1", "slimfly:q=5,p=1,classes=1"}) {
    try {
      (void)TopologyRegistry::parse(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const usage_error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("the routing can deadlock: a cycle of"), std::string::npos) << m;
      EXPECT_NE(m.find("classes=1"), std::string::npos) << m;
    }
  }
  // Out of range: one line naming the parameter.
  for (const char* spec : {"dragonfly:h=2,classes=3", "slimfly:q=5,classes=0", "slimfly:q=6", "slimfly:q=2",
                           "slimfly:q=37,p=0", "slimfly:q=103", "slimfly:q=90", "dragonfly:h=0", "hyperx:1x4", "hyperx:4,T=0", "dragonfly:h=2,arrangement=x"}) {
    try {
      (void)TopologyRegistry::parse(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const usage_error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    }
  }
}

TEST(LowDiameter, ExactlyOnceAtSaturationOnBothEngines) {
  for (const char* spec : {"dragonfly:h=2", "dragonfly:h=2,arrangement=relative", "hyperx:4x4,T=4", "slimfly:q=5"}) {
    const Topology t = TopologyRegistry::parse(spec);
    for (EngineKind e : {EngineKind::cycle, EngineKind::async})
      for (unsigned th : {1u, 2u}) {
        const RunStats st = test::saturate(t, e, th);
        EXPECT_FALSE(st.deadlock) << spec << " " << to_string(e) << "\n" << st.deadlock_report;
        EXPECT_TRUE(st.conservation_ok) << spec << " " << to_string(e);
        EXPECT_EQ(st.duplicates, 0u) << spec;
        EXPECT_EQ(st.lost, 0u) << spec;
        EXPECT_EQ(st.verify_method, "bitmap") << spec;
        EXPECT_EQ(st.injected, std::uint64_t{t.pes()} * 60) << spec << " " << to_string(e);
        EXPECT_EQ(st.delivered, st.injected) << spec << " " << to_string(e);
        EXPECT_EQ(st.in_network, 0u) << spec;
      }
  }
}

}  // namespace
}  // namespace rica
