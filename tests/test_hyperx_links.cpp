// HyperX with K parallel links per router pair (docs/topologies.md, "HyperX"): the closed forms
// of ports, degree and links against counts of the explicit graph, the diameter against BFS, the
// bisection against brute force, routes (the K = 1 network's router paths, spread evenly over
// the parallel links, the same under every translation), the channel dependency certificate of
// the deterministic and of the adaptive routing (all K links candidates), and exactly once at
// saturation on both engines.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "rica/bisection.hpp"
#include "rica/engine.hpp"
#include "rica/graph.hpp"
#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "rica/topology/hyperx.hpp"
#include "saturate.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

const HyperXTopology& hx(const Topology& t) { return std::get<HyperXTopology>(t.variant()); }

/// The spec of the same network with K = 1.
std::string single(const HyperXTopology& h) {
  std::string s = "hyperx:";
  for (unsigned i = 0; i < h.dims(); ++i) s += (i ? "x" : "") + std::to_string(h.size(i));
  return s + ",T=" + std::to_string(h.terminals());
}

const char* const trunked[] = {"hyperx:4,T=2,K=2", "hyperx:3x4,T=2,K=2", "hyperx:2x3x2,T=1,K=3", "hyperx:3x3,T=3,K=4",
                               "hyperx:4x4,T=4,K=2"};

TEST(HyperXLinks, KOneIsTheNetworkOfBefore) {
  const Topology a = TopologyRegistry::parse("hyperx:4x3,T=2"), b = TopologyRegistry::parse("hyperx:4x3,T=2,K=1");
  EXPECT_EQ(b.spec(), "hyperx:4x3,T=2");
  EXPECT_EQ(hx(a).links_per_pair(), 1u);
  EXPECT_EQ(TopologyRegistry::parse("hyperx:4x3,T=2,K=3").spec(), "hyperx:4x3,T=2,K=3");
  ASSERT_EQ(a.ports(), b.ports());
  for (node_t v = 0; v < a.nodes(); ++v) {
    for (port_t p = 0; p < a.ports(); ++p) {
      EXPECT_EQ(a.out_link(v, p).peer, b.out_link(v, p).peer);
      EXPECT_EQ(a.out_link(v, p).in_port, b.out_link(v, p).in_port);
    }
    for (node_t d = 0; d < a.pes(); ++d) EXPECT_EQ(a.route(v, d, 0), b.route(v, d, 0)) << v << " " << d;
  }
}

TEST(HyperXLinks, PortsDegreeLinksAndDiameterInClosedFormAgainstTheGraph) {
  for (const char* spec : trunked) {
    SCOPED_TRACE(spec);
    const Topology t = TopologyRegistry::parse(spec);
    const HyperXTopology& h = hx(t);
    test::expect_consistent_links(t);
    const node_t P = t.pes(), R = h.routers(), T = h.terminals(), K = h.links_per_pair();
    unsigned sum = 0;  // sum of (S_i - 1)
    for (unsigned i = 0; i < h.dims(); ++i) sum += h.size(i) - 1;
    // Closed forms: a router has T + K·sum(S_i - 1) ports and links; links R·T + K·R·sum/2.
    EXPECT_EQ(t.ports(), T + K * sum);
    // Brute force: the arcs of the explicit graph, per ordered router pair.
    std::map<std::pair<node_t, node_t>, unsigned> arcs;
    std::uint64_t total = 0;
    for (node_t v = 0; v < t.nodes(); ++v)
      for (port_t p = 0; p < t.ports(); ++p)
        if (const Link l = t.out_link(v, p); l.present()) ++arcs[{v, l.peer}], ++total;
    for (node_t u = P; u < t.nodes(); ++u)
      for (node_t v = P; v < t.nodes(); ++v) {
        unsigned differ = 0;
        for (unsigned i = 0; i < h.dims(); ++i) differ += h.coord(u - P, i) != h.coord(v - P, i);
        const auto it = arcs.find({u, v});
        EXPECT_EQ(it == arcs.end() ? 0u : it->second, differ == 1 ? K : 0u) << u << " -> " << v;
      }
    EXPECT_EQ(total, 2 * (std::uint64_t{R} * T + std::uint64_t{K} * R * sum / 2));
    // rica topo's figures: degree and links scale with K, distances do not.
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_EQ(m.method, "exact-symmetry");
    EXPECT_EQ(m.links, std::uint64_t{R} * T + std::uint64_t{K} * R * sum / 2);
    EXPECT_DOUBLE_EQ(m.degree, T + K * sum);
    EXPECT_EQ(m.degree_max, T + K * sum);
    EXPECT_EQ(m.diameter, h.dims() + 1);  // switches traversed: one router per dimension, plus the source's
    EXPECT_EQ(m.routed_diameter, m.diameter);
    MetricsOptions all;
    all.force_all_pairs = true;
    const TopologyMetrics a = compute_metrics(t, all), one = compute_metrics(TopologyRegistry::parse(single(h)));
    EXPECT_EQ(a.diameter, m.diameter);  // BFS over every pair of the multigraph
    EXPECT_NEAR(a.mean_distance, m.mean_distance, 1e-12);
    EXPECT_NEAR(a.routed_mean_distance, m.routed_mean_distance, 1e-12);
    EXPECT_NEAR(a.avg_relay, m.avg_relay, 1e-9);
    EXPECT_NEAR(a.max_relay, m.max_relay, 1e-9);
    EXPECT_NEAR(one.mean_distance, m.mean_distance, 1e-12);  // parallel links change no distance
    EXPECT_NEAR(one.avg_relay, m.avg_relay, 1e-9);
    EXPECT_EQ(m.buffer_classes, 1u);
  }
}

/// The fewest links between two halves of the PEs (floor, ceil), routers on either side: every
/// split of all nodes, counted on the explicit graph.
std::uint64_t brute_bisection(const Topology& t) {
  const node_t N = t.nodes(), P = t.pes();
  EXPECT_LE(N, 20u);
  std::vector<std::vector<std::uint32_t>> arcs(N, std::vector<std::uint32_t>(N, 0));
  for (node_t u = 0; u < N; ++u)
    for (port_t p = 0; p < t.ports(); ++p)
      if (const Link l = t.out_link(u, p); l.present()) ++arcs[u][l.peer];
  std::uint64_t best = ~std::uint64_t{0};
  for (std::uint32_t mask = 0; mask < (1u << N); mask += 2) {  // node 0 on side 0
    const auto ones = static_cast<unsigned>(std::popcount(mask & ((1u << P) - 1)));
    if (ones != P / 2 && ones != P - P / 2) continue;
    std::uint64_t cut = 0;
    for (node_t u = 0; u < N; ++u)
      for (node_t v = u + 1; v < N; ++v)
        if (((mask >> u) & 1) != ((mask >> v) & 1)) cut += std::max(arcs[u][v], arcs[v][u]);
    best = std::min(best, cut);
  }
  return best;
}

TEST(HyperXLinks, BisectionAgainstBruteForce) {
  // Small enough for every split of the nodes; the cut of the router links grows with K, the
  // terminal links do not, so the minimum is not simply K times K = 1's (hyperx:2,T=2,K=3: 2).
  for (const char* spec : {"hyperx:4,T=1", "hyperx:4,T=1,K=2", "hyperx:4,T=2,K=2", "hyperx:2x2,T=1,K=2",
                           "hyperx:2x2,T=2,K=3", "hyperx:2x3,T=1,K=2", "hyperx:2,T=2,K=3", "hyperx:2,T=4,K=2"}) {
    SCOPED_TRACE(spec);
    const Topology t = TopologyRegistry::parse(spec);
    const Bisection b = bisection_width(t);
    const std::uint64_t best = brute_bisection(t);
    EXPECT_GE(b.width, best) << b.method;  // an upper bound, METIS's cut
    EXPECT_EQ(b.width, best) << b.method;  // which is the minimum at these sizes
  }
  // Where the router links are the cheapest cut, it doubles with K; where cutting terminal links
  // is cheaper, K does not change it.
  EXPECT_EQ(brute_bisection(TopologyRegistry::parse("hyperx:2,T=4")), 1u);
  EXPECT_EQ(brute_bisection(TopologyRegistry::parse("hyperx:2,T=4,K=2")), 2u);
  EXPECT_EQ(brute_bisection(TopologyRegistry::parse("hyperx:4,T=1,K=2")),
            brute_bisection(TopologyRegistry::parse("hyperx:4,T=1")));
  EXPECT_EQ(brute_bisection(TopologyRegistry::parse("hyperx:2,T=2,K=3")), 2u);
}

TEST(HyperXLinks, RoutesFollowTheSingleLinkPathsSpreadEvenlyAndKeepTheSymmetry) {
  for (const char* spec : trunked) {
    SCOPED_TRACE(spec);
    const Topology t = TopologyRegistry::parse(spec), one = TopologyRegistry::parse(single(hx(t)));
    const HyperXTopology& h = hx(t);
    const node_t P = t.pes(), K = h.links_per_pair();
    std::map<std::pair<node_t, port_t>, std::uint64_t> used;  // per router out-port, routed pairs
    for (node_t s = 0; s < P; ++s)
      for (node_t d = 0; d < P; ++d) {
        if (s == d) continue;
        node_t v = s, w = s;
        for (unsigned hops = 0;; ++hops) {
          ASSERT_LE(hops, h.dims() + 2u);
          const Hop a = t.route(v, d, 0), b = one.route(w, d, 0);
          ASSERT_EQ(a.delivers(), b.delivers());
          if (a.delivers()) break;
          ASSERT_EQ(a.next_class(), 0u);
          if (v >= P) ++used[{v, a.port()}];
          v = t.out_link(v, a.port()).peer, w = one.out_link(w, b.port()).peer;
          ASSERT_EQ(v, w) << s << " -> " << d << ": another router path than K = 1's";
        }
        ASSERT_EQ(v, d);
      }
    // Evenly: the pairs crossing one router pair split over its K links exactly evenly where K
    // divides the destinations' index range (T·S_{i+1}···S_L).
    for (node_t r = P; r < t.nodes(); ++r)
      for (unsigned i = 0; i < h.dims(); ++i)
        for (node_t o = 1; o < h.size(i); ++o) {
          std::uint64_t lo = ~std::uint64_t{0}, hi = 0, range = h.terminals();
          for (unsigned j = i + 1; j < h.dims(); ++j) range *= h.size(j);
          for (node_t j = 0; j < K; ++j) {
            const auto n = used[{r, static_cast<port_t>(h.base(i) + (o - 1) * K + j)}];
            lo = std::min(lo, n), hi = std::max(hi, n);
          }
          // Each index value is taken by the same number m of pairs (the sources that reach r),
          // so link j carries m·#{h < range: h mod K = j}: equal, or apart by exactly m.
          const std::uint64_t m = hi / ((range + K - 1) / K);
          EXPECT_EQ(hi - lo, range % K == 0 ? 0u : m) << "router " << r << " dim " << i;
          if (range >= K) {
            EXPECT_GT(lo, 0u) << "router " << r << " dim " << i << ": a link never used";
          }
        }
    // A translation by one in every coordinate maps routes onto routes with the same ports.
    auto shift = [&](node_t v) {
      const node_t r = v < P ? v / h.terminals() : v - P;
      node_t q = 0, stride = 1;
      for (unsigned i = 0; i < h.dims(); ++i) q += (h.coord(r, i) + 1) % h.size(i) * stride, stride *= h.size(i);
      return v < P ? q * h.terminals() + v % h.terminals() : P + q;
    };
    for (node_t v = 0; v < t.nodes(); ++v)
      for (node_t d = 0; d < P; ++d) ASSERT_EQ(t.route(v, d, 0), t.route(shift(v), shift(d), 0));
  }
}

TEST(HyperXLinks, DeterministicAndAdaptiveCertifiedInOneClass) {
  for (const char* spec : trunked) {
    SCOPED_TRACE(spec);
    const Topology t = TopologyRegistry::parse(spec);
    const HyperXTopology& h = hx(t);
    const auto st = test::trace_pairs(t, test::all_pairs(t), true);
    EXPECT_TRUE(test::acyclic(st.deps));  // Dally-Seitz, deterministic
    EXPECT_EQ(st.max_class, 0u);
    ASSERT_TRUE(offers(t, Routing::adaptive));
    EXPECT_EQ(routing_classes(t, Routing::adaptive), 1u);
    EXPECT_EQ(routing_names(t), (std::vector<std::string>{"deterministic", "adaptive"}));
    // The dependency graph of ALL channels the adaptive routing may use (candidates and escape,
    // from every node for every destination): acyclic, so the routing is deadlock-free with no
    // escape argument needed, and Duato's condition holds a fortiori.
    const node_t P = t.pes();
    const port_t Q = t.ports();
    std::vector<std::uint64_t> deps;
    auto hops = [&](node_t v, node_t d) {
      const CandidateSet cs = route_candidates(t, Routing::adaptive, v, d, 0);
      std::vector<Hop> out{cs.escape};
      for (unsigned k = 0; k < cs.size(); ++k) out.push_back(cs[k]);
      return out;
    };
    for (node_t d = 0; d < P; ++d)
      for (node_t v = 0; v < t.nodes(); ++v) {
        if (v == d) continue;
        const auto from = hops(v, d);
        if (v >= P && v - P != d / h.terminals()) {  // a router hop: all K links of the dimension-order hop
          ASSERT_EQ(from.size(), h.links_per_pair() + 1u) << v << " -> " << d;
          ASSERT_EQ(std::count_if(from.begin() + 1, from.end(), [&](Hop x) { return x == from[0]; }), 1);
        }
        for (const Hop a : from) {
          ASSERT_FALSE(a.delivers());
          ASSERT_EQ(a.next_class(), 0u);
          const node_t w = t.out_link(v, a.port()).peer;
          ASSERT_LT(w, t.nodes());
          if (w == d) continue;
          for (const Hop b : hops(w, d))
            deps.push_back(std::uint64_t{v * Q + a.port()} << 32 | (w * Q + b.port()));
        }
      }
    EXPECT_TRUE(test::acyclic(deps));
  }
}

TEST(HyperXLinks, ExactlyOnceAtSaturationOnBothEngines) {
  const Topology t = TopologyRegistry::parse("hyperx:4x4,T=4,K=2");
  for (Routing r : {Routing::deterministic, Routing::adaptive}) {
    std::uint64_t cycles = 0;
    for (EngineKind e : {EngineKind::cycle, EngineKind::async})
      for (unsigned th : {1u, 2u}) {
        SCOPED_TRACE(std::string(to_string(r)) + " " + to_string(e) + " threads " + std::to_string(th));
        const RunStats st = test::saturate(t, e, th, r);
        EXPECT_FALSE(st.deadlock) << st.deadlock_report;
        EXPECT_TRUE(st.conservation_ok);
        EXPECT_EQ(st.injected, 60u * t.pes());
        EXPECT_EQ(st.delivered, st.injected);
        EXPECT_EQ(st.duplicates, 0u);
        EXPECT_EQ(st.lost, 0u);
        if (e == EngineKind::cycle) {  // the virtual clock: the same run for any thread count
          if (th == 1) cycles = st.cycles_run;
          EXPECT_EQ(st.cycles_run, cycles);
        }
      }
  }
}

TEST(HyperXLinks, OutOfRangeRefusedInOneLine) {
  for (const char* spec : {"hyperx:4x4,K=0", "hyperx:4x4,K=33", "hyperx:4x4,T=2,K=x"}) {
    try {
      (void)TopologyRegistry::parse(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const usage_error& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << m;
      EXPECT_NE(m.find("'K'"), std::string::npos) << m;
    }
  }
}

}  // namespace
}  // namespace rica
