// Circular Omega (EM-4's network, RWC-1 §3.1, MDCE §2): links, destination-tag routing,
// spiral buffer classes, each checked against an independent computation (BFS over the
// explicit graph, the Omega network's shuffle written out as line numbers).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "rica/graph.hpp"
#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "support.hpp"

namespace rica {
namespace {

static_assert(TopologyModel<CircularOmegaTopology>);

// Switch row y of stage x drives lines 2y and 2y+1; the perfect shuffle of the 2^(n+1) lines
// (rotate left) feeds switch row line/2 of the next stage, and the last stage wraps to the first.
TEST(CircularOmega, LinksAreTheOmegaShuffleWrappedRound) {
  for (unsigned n = 2; n <= 5; ++n)
    for (unsigned S = n; S <= n + 2; ++S) {
      const CircularOmegaTopology t(n, S);
      test::expect_consistent_links(t);
      const node_t rows = node_t{1} << n, lines = rows * 2;
      for (node_t y = 0; y < rows; ++y)
        for (node_t x = 0; x < S; ++x) {
          std::multiset<node_t> want, got;
          for (node_t line : {2 * y, 2 * y + 1}) {
            const node_t shuffled = ((line << 1) | (line >> n)) & (lines - 1);
            want.insert((shuffled / 2) * S + (x + 1) % S);
          }
          for (port_t p = 0; p < 2; ++p) got.insert(t.out_link(y * S + x, p).peer);
          EXPECT_EQ(got, want) << t.spec() << " node " << t.label(y * S + x);
        }
    }
}

// The tag routing is shortest, and its means follow from "r hops if the rows overlap, else
// r + S": all N^2 pairs, self = 0, (S-1)/2 + n - 1 + 2^-n; diameter S + n - 1.
TEST(CircularOmega, TagRoutingIsShortestWithClosedForms) {
  for (unsigned n = 2; n <= 6; ++n)
    for (unsigned S = n; S <= n + 3; ++S) {
      const Topology t = CircularOmegaTopology(n, S);
      MetricsOptions all;
      all.force_all_pairs = true;
      const auto m = compute_metrics(t, all);
      EXPECT_EQ(m.routed_diameter, m.diameter) << t.spec();
      EXPECT_NEAR(m.routed_mean_distance, m.mean_distance, 1e-12) << t.spec();
      EXPECT_EQ(m.diameter, S + n - 1) << t.spec();
      EXPECT_NEAR(m.mean_distance_incl_self, (S - 1) / 2.0 + n - 1 + std::ldexp(1.0, -static_cast<int>(n)), 1e-9)
          << t.spec();
      EXPECT_EQ(m.classes_used, 3u) << t.spec();  // at most 2 wraps, and some route makes 2
      EXPECT_EQ(m.degree_in, 2u);
      EXPECT_EQ(m.degree_out, 2u);
    }
}

// With S = n the network is c-Banyan up to relabelling (row r = rotr^x(y)): same figures,
// including the MDCE paper's eq. (2) mean 3/2 (n-1) + 2^-n.
TEST(CircularOmega, EqualsCBanyanWhenTheRingIsTheAddress) {
  for (unsigned n = 2; n <= 6; ++n) {
    const auto co = compute_metrics(TopologyRegistry::parse(fmt::format("comega:n={}", n)));
    const auto cb = compute_metrics(TopologyRegistry::parse(fmt::format("cbanyan:n={}", n)));
    EXPECT_EQ(co.diameter, cb.diameter);
    EXPECT_NEAR(co.mean_distance, cb.mean_distance, 1e-12);
    EXPECT_NEAR(co.mean_distance_incl_self, 1.5 * (n - 1) + std::ldexp(1.0, -static_cast<int>(n)), 1e-12);
    EXPECT_EQ(co.fault_tolerance, cb.fault_tolerance);
  }
}

// The last n hops of every route are the Omega network's destination tag: hop j of them takes
// the exchange link exactly when the bit it shifts in (y' MSB first) differs from the bit the
// straight link would shift in.
TEST(CircularOmega, LastNHopsShiftInTheDestinationRow) {
  const unsigned n = 4, S = 6;
  const CircularOmegaTopology t(n, S);
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d) {
      std::vector<node_t> path{s};
      node_t cur = s;
      class_t cls = 0;
      while (!t.route(cur, d, cls).delivers()) {
        const Hop h = t.route(cur, d, cls);
        cur = t.out_link(cur, h.port()).peer;
        cls = h.next_class();
        path.push_back(cur);
        ASSERT_LE(path.size(), 2u * S);
      }
      const node_t yd = d / S;
      for (std::size_t j = path.size() > n ? path.size() - n : 1; j < path.size(); ++j) {
        const std::size_t left = path.size() - 1 - j;  // shifts still to come after this hop
        EXPECT_EQ((path[j] / S) & 1u, (yd >> left) & 1u) << s << "->" << d;
      }
    }
}

// RWC-1 §3.1: the circular Omega does not split into closed partitions the way c-Banyan does
// (high row bit = two halves of whole rings). Count the routes inside a row half that leave it.
std::uint64_t leaving_pairs(const Topology& t, unsigned ring, unsigned n) {
  auto half = [&](node_t v) { return (v / ring) >> (n - 1); };
  std::uint64_t leave = 0;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d) {
      if (s == d || half(s) != half(d)) continue;
      node_t cur = s;
      class_t cls = 0;
      bool out = false;
      while (!t.route(cur, d, cls).delivers()) {
        const Hop h = t.route(cur, d, cls);
        cur = t.out_link(cur, h.port()).peer;
        cls = h.next_class();
        out = out || half(cur) != half(s);
      }
      leave += out;
    }
  return leave;
}

TEST(CircularOmega, RowHalvesAreOpenUnlikeCBanyan) {
  for (unsigned n = 3; n <= 5; ++n) {
    EXPECT_GT(leaving_pairs(CircularOmegaTopology(n, n), n, n), 0u) << n;
    EXPECT_EQ(leaving_pairs(DceTopology(n, 1, n, DceWiring::flip_mod, "cbanyan"), n, n), 0u) << n;
  }
  EXPECT_EQ(leaving_pairs(CircularOmegaTopology(4, 4), 4, 4), 2u * 828u);  // rica partition's count
}

TEST(CircularOmega, SpecAndParameterErrors) {
  EXPECT_EQ(TopologyRegistry::parse("comega:n=7,S=8").spec(), "comega:n=7,S=8");
  EXPECT_EQ(TopologyRegistry::parse("comega:4").spec(), "comega:n=4");
  EXPECT_EQ(TopologyRegistry::parse("comega:n=7,S=8").nodes(), 1024u);
  auto message = [](const char* spec) -> std::string {
    try {
      (void)TopologyRegistry::parse(spec);
    } catch (const usage_error& e) {
      return e.what();
    }
    return "(no usage_error)";
  };
  EXPECT_NE(message("comega:n=7,S=5").find("parameter 'S' = 5 is out of range [7, 64]"), std::string::npos);
  EXPECT_NE(message("comega:n=1").find("'n'"), std::string::npos);
  EXPECT_NE(message("comega:n=24,S=30").find("comega"), std::string::npos);
}

}  // namespace
}  // namespace rica
