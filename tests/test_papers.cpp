// The papers' numbers that reproduce (docs/reproduction.md), pinned through compute_metrics — the
// code `rica topo` runs. Expected values are closed forms from the papers, evaluated here.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include <tbb/global_control.h>

#include "rica/metrics.hpp"
#include "rica/registry.hpp"

namespace rica {
namespace {

TopologyMetrics metrics(const std::string& spec) { return compute_metrics(TopologyRegistry::parse(spec)); }

double binom(unsigned n, unsigned k) {
  double r = 1;
  for (unsigned i = 1; i <= k; ++i) r = r * (n - k + i) / i;
  return r;
}

/// MDCE paper eq. (4)-(6), all N^2 pairs with self = 0.
double mdce_eq6(unsigned n, unsigned b, unsigned c) {
  double sum = 0;
  for (unsigned k = 1; k <= b; ++k) {
    double upto_k = 0, below_k = 0;
    for (unsigned j = 0; j <= k; ++j) upto_k += binom(b, j);
    for (unsigned j = 0; j + 1 <= k; ++j) below_k += binom(b, j);
    for (unsigned i = 1; i <= n; ++i) {
      const double g = std::pow(upto_k, i - 1) * binom(b, k) * std::pow(below_k, n - i);
      sum += ((k - 1.0) * n + i + n * c / 2.0) * g;
    }
  }
  return sum / std::pow(2.0, double(n) * b) + (n - 1) / 2.0;
}

TEST(MdcePaper, Eq1DiameterOfDceNetworks) {
  for (unsigned n = 3; n <= 10; ++n) {
    const auto cb = metrics(fmt::format("cbanyan:n={}", n));
    EXPECT_EQ(cb.diameter, 2 * n - 1) << "c-Banyan n=" << n;  // (B+C+1)n - 1, B=1, C=0
    EXPECT_EQ(cb.routed_diameter, 2 * n - 1) << "c-Banyan n=" << n;
    const auto ccc = metrics(fmt::format("ccc:n={}", n));
    EXPECT_EQ(ccc.diameter, 3 * n - 2) << "CCC n=" << n;  // (C+2)n - 2, B=0, C=1
    EXPECT_EQ(ccc.routed_diameter, 3 * n - 2) << "CCC n=" << n;
  }
}

TEST(MdcePaper, Eq1DiameterOfMdceNetworks) {
  struct Case { unsigned b, c, n; };
  for (Case k : {Case{2, 0, 2}, {2, 0, 3}, {2, 0, 4}, {2, 0, 5}, {1, 1, 2}, {1, 1, 3}, {1, 1, 4}, {1, 1, 5},
                 {0, 2, 2}, {0, 2, 3}, {0, 2, 4}, {3, 0, 2}, {3, 0, 3}, {1, 2, 2}, {1, 2, 3}, {2, 1, 3}}) {
    const auto m = metrics(fmt::format("mdce:B={},C={},n={}", k.b, k.c, k.n));
    const unsigned eq1 = k.b > 0 ? (k.b + k.c + 1) * k.n - 1 : (k.c + 2) * k.n - 2;
    EXPECT_EQ(m.diameter, eq1) << m.spec;
    EXPECT_EQ(m.routed_diameter, eq1) << m.spec;
  }
}

TEST(MdcePaper, Eq1DiameterAtTheLargestConfigurations) {
  // (CB)^2 and CCCB: 11 at 4x16x16 and 23 at 8x256x256 (512K PEs).
  for (const char* s : {"cb2:n=4", "cccb:n=4"}) EXPECT_EQ(metrics(s).diameter, 11u) << s;
  for (const char* s : {"cb2:n=8", "cccb:n=8"}) {
    const auto m = metrics(s);
    EXPECT_EQ(m.pes, 524288u);
    EXPECT_EQ(m.diameter, 23u) << s;
    EXPECT_EQ(m.routed_diameter, 23u) << s;
    EXPECT_EQ(m.method, "exact-symmetry");
  }
}

TEST(MdcePaper, Eq2And3MeanDistances) {
  for (unsigned n = 3; n <= 10; ++n) {
    const auto cb = metrics(fmt::format("cbanyan:n={}", n));
    const double eq2 = 1.5 * (n - 1) + std::pow(2.0, -double(n));
    EXPECT_NEAR(cb.mean_distance_incl_self, eq2, 1e-9) << "n=" << n;
    EXPECT_NEAR(cb.routed_mean_distance_incl_self, eq2, 1e-9) << "n=" << n;
    const auto ccc = metrics(fmt::format("ccc:n={}", n));
    const double eq3 = 2.0 * n - 2.5 + std::pow(2.0, 1.0 - n);
    EXPECT_NEAR(ccc.mean_distance_incl_self, eq3, 1e-9) << "n=" << n;
    EXPECT_NEAR(ccc.routed_mean_distance_incl_self, eq3, 1e-9) << "n=" << n;
  }
}

TEST(MdcePaper, Eq6IsExactWithoutCccDimensions) {
  for (auto [b, n] : std::vector<std::pair<unsigned, unsigned>>{{1, 5}, {2, 2}, {2, 3}, {2, 4}, {3, 2}, {3, 3}}) {
    const auto m = metrics(fmt::format("mdce:B={},C=0,n={}", b, n));
    EXPECT_NEAR(m.mean_distance_incl_self, mdce_eq6(n, b, 0), 1e-9) << m.spec;
    EXPECT_NEAR(m.routed_mean_distance_incl_self, mdce_eq6(n, b, 0), 1e-9) << m.spec;
  }
  // With a CCC dimension eq. (6) underestimates (docs/reproduction.md): CCCB 4x16x16 is 6.44 by eq. (6).
  const auto cccb = metrics("cccb:n=4");
  EXPECT_NEAR(mdce_eq6(4, 1, 1), 6.44, 0.005);
  EXPECT_GT(cccb.mean_distance_incl_self, mdce_eq6(4, 1, 1) + 0.01);
  EXPECT_NEAR(cccb.routed_mean_distance_incl_self, cccb.mean_distance_incl_self, 1e-9);  // minimal
}

TEST(MdcePaper, Table1RowsThatReproduce) {
  EXPECT_NEAR(metrics("torus:32x32").mean_distance_incl_self, 16.0, 1e-12);
  EXPECT_NEAR(metrics("torus:1024x512").mean_distance_incl_self, 384.0, 1e-9);
  EXPECT_NEAR(metrics("torus:8x8x16").mean_distance_incl_self, 8.0, 1e-12);
  EXPECT_NEAR(metrics("torus:64x64x128").mean_distance_incl_self, 64.0, 1e-9);
  const auto ft = metrics("fattree:10");  // switches traversed 2h - 1
  EXPECT_EQ(ft.distance_unit, "switches");
  EXPECT_NEAR(ft.mean_distance_incl_self, 17.00, 0.005);
  EXPECT_NEAR(ft.routed_mean_distance_incl_self, 17.00, 0.005);
  const auto om = metrics("omega:10");  // stage count
  EXPECT_DOUBLE_EQ(om.mean_distance, 10.0);
  EXPECT_DOUBLE_EQ(om.routed_mean_distance, 10.0);
  EXPECT_EQ(om.diameter, 10u);
  // Degrees in + out.
  for (auto [spec, in_out] : std::vector<std::pair<const char*, unsigned>>{
           {"cb2:n=4", 3}, {"cccb:n=4", 3}, {"cbanyan:n=7,S=8", 2}, {"ccc:n=7,S=8", 2}, {"mesh:32x32", 4},
           {"torus:32x32", 4}, {"torus:8x8x16", 6}, {"fattree:10", 4}, {"omega:10", 2}}) {
    const auto m = metrics(spec);
    EXPECT_EQ(m.degree_in, in_out) << spec;
    EXPECT_EQ(m.degree_out, in_out) << spec;
  }
}

TEST(MxxPaper, HypercubeDiametersOfTable2) {
  for (unsigned n : {8u, 10u, 12u, 16u}) EXPECT_EQ(metrics(fmt::format("hypercube:{}", n)).diameter, n);
}

TEST(MxxPaper, ShortestPathValuesNeverAboveThePapers) {
  // Paper Table 1 (its own non-optimal routing): diameters 7/8/9/15, means 4.076/5.244/6.445/10.768.
  struct Row { unsigned side, paper_d; double paper_mean; };
  for (Row r : {Row{16, 7, 4.076}, {32, 8, 5.244}, {64, 9, 6.445}, {256, 15, 10.768}}) {
    const auto m = metrics(fmt::format("mxx:{}", r.side));
    EXPECT_EQ(m.diameter, r.paper_d - 1) << "N=" << r.side << " (docs/reproduction.md: one less at every size)";
    EXPECT_LE(m.mean_distance, r.paper_mean) << "N=" << r.side;
    EXPECT_EQ(m.routed_diameter, m.diameter);  // table routing is minimal
    EXPECT_NEAR(m.routed_mean_distance, m.mean_distance, 1e-12);
  }
}

TEST(EightNeighbourPaper, MeshClosedForms) {
  for (unsigned n = 3; n <= 9; ++n) {
    const auto m = metrics(fmt::format("mesh8:{}", n));
    const double N = double(n) * n, sq = std::sqrt(N);
    EXPECT_NEAR(m.degree, (8.0 * n * n - 12.0 * n + 4) / (n * n), 1e-12) << "eq 1, n=" << n;
    EXPECT_EQ(m.links, 4ull * n * n - 6ull * n + 2) << "eq 2, n=" << n;
    EXPECT_EQ(m.diameter, n - 1) << "eq 3";
    EXPECT_NEAR(m.mean_distance, (7.0 * n * n + 2) / (15.0 * n), 1e-12) << "eq 16, n=" << n;
    EXPECT_NEAR(m.mean_distance * N * (N - 1) / 2, n * (n + 1.0) * (n - 1.0) * (7.0 * n * n + 2) / 30, 1e-6) << "eq 15";
    EXPECT_NEAR(m.normalized_distance, (7.0 * n * n + 2) * (8.0 * n * n - 12.0 * n + 4) / (15.0 * n * n * n), 1e-12);
    EXPECT_NEAR(m.traffic_density, n * (7.0 * n * n + 2) / (15.0 * (4.0 * n * n - 6.0 * n + 2)), 1e-12) << "eq 18";
    EXPECT_NEAR(m.avg_relay, (7 * N * sq - 15 * N - 5 * sq + 15 - 2 / sq) / 15, 1e-9) << "eq 30, n=" << n;
    if (n % 2 == 1) {
      EXPECT_NEAR(m.max_relay, N * sq - N - sq + 1, 1e-9) << "eq 32, n=" << n;
    } else {
      const double mm = n / 2.0;  // eq 29: total relay over all PEs
      EXPECT_NEAR(m.avg_relay * N, 4 * mm * (56 * std::pow(mm, 4) - 60 * std::pow(mm, 3) - 10 * mm * mm + 15 * mm - 1) / 15, 1e-6);
      // eq 31 is a misprint; eq 27 at (m, m) gives this (docs/reproduction.md).
      EXPECT_NEAR(m.max_relay, N * sq - 1.25 * N - 2.5 * sq + 2, 1e-9) << "eq 27 at (m,m), n=" << n;
    }
    EXPECT_EQ(m.fault_tolerance, 3u) << "eq 33";
    EXPECT_NEAR(m.cost_mean_degree, (n - 1) * m.degree, 1e-12) << "eq 34 (C = D x mean degree G)";
    EXPECT_NEAR(m.cost, (n - 1) * 8.0, 1e-12) << "C = D x nominal degree 8";
  }
}

TEST(EightNeighbourPaper, TorusClosedForms) {
  for (unsigned n = 3; n <= 10; ++n) {
    const auto m = metrics(fmt::format("torus8:{}", n));
    const double N = double(n) * n;
    EXPECT_DOUBLE_EQ(m.degree, 8.0) << "eq 35";
    EXPECT_EQ(m.links, 4ull * n * n) << "eq 36";
    EXPECT_EQ(m.diameter, n / 2) << "eq 37";
    const double d = n % 2 ? n / 3.0 : n * (2.0 * n * n + 1) / (6.0 * (n * n - 1.0));
    EXPECT_NEAR(m.mean_distance, d, 1e-12) << "eq 38 (odd) / exact even form, n=" << n;
    EXPECT_NEAR(m.max_relay, m.avg_relay, 1e-9) << "eq 42";
    if (n % 2) {
      EXPECT_NEAR(m.avg_relay, 2.0 * (std::pow(n, 3) - 3.0 * n * n - n + 3) / 6, 1e-9) << "eq 41 x 2 (ordered)";
    }
    EXPECT_NEAR(m.avg_relay * N, N * (N - 1) * (m.routed_mean_distance - 1), 1e-6);
    EXPECT_EQ(m.fault_tolerance, 8u) << "eq 43";
    if (n % 2 == 0) {
      EXPECT_NEAR(m.cost, 4.0 * n, 1e-12) << "eq 44 (even n)";
    }
  }
}

TEST(DeBruijnPaper, DiametersThroughMetrics) {
  for (unsigned n = 3; n <= 10; ++n) {
    EXPECT_EQ(metrics(fmt::format("debruijn:{}", n)).diameter, n);
    EXPECT_EQ(metrics(fmt::format("ubruijn:{}", n)).diameter, n);
    EXPECT_EQ(metrics(fmt::format("shuffle:{}", n)).diameter, 2 * n - 1);
    EXPECT_EQ(metrics(fmt::format("debruijn:{}", n)).routed_diameter, n);
  }
}

TEST(DeBruijnPaper, ManhattanStreetNetwork) {
  for (unsigned r : {4u, 8u, 12u, 16u}) {  // exact when R is a multiple of 4 (docs/reproduction.md)
    const auto m = metrics(fmt::format("msn:{}x{}", r, r));
    const double N = double(r) * r;
    EXPECT_EQ(m.diameter, r + 1) << "sqrt(N) + 1";
    EXPECT_NEAR(m.mean_distance, (std::pow(N, 1.5) + 2 * N - 8) / (2 * N - 2), 1e-9) << "r=" << r;
  }
}

// Regression: a sample's relay counts were summed in floating point per worker thread (weight N/k
// each), so their last digits followed how oneTBB split the sources. Now counted in whole units.
TEST(Metrics, SampledFiguresAreIdenticalForAnyThreadCount) {
  const Topology t = TopologyRegistry::parse("mesh:32x32");
  MetricsOptions opt;
  opt.decompose = false;
  opt.exact_work_limit = 1;  // sample
  opt.sample_sources = 100;  // weight 10.24 per source
  auto with_threads = [&](std::size_t n) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, n);
    return compute_metrics(t, opt);
  };
  const TopologyMetrics one = with_threads(1);
  ASSERT_EQ(one.method, "sampled");
  for (int k = 0; k < 4; ++k) {
    const TopologyMetrics two = with_threads(2);
    EXPECT_EQ(two.avg_relay, one.avg_relay);  // bit for bit
    EXPECT_EQ(two.max_relay, one.max_relay);
    EXPECT_EQ(two.routed_mean_distance, one.routed_mean_distance);
  }
}

// Issue 29, finding 8: the cost C = D x nominal degree (the de Bruijn paper's Table 1: 4 log2 N for
// UB(2, n)), with D x mean degree G (the eight-neighbour paper's eq. (34)) beside it.
TEST(DeBruijnPaper, CostUsesTheNominalDegree) {
  for (unsigned n = 4; n <= 10; ++n) {
    const auto m = metrics(fmt::format("ubruijn:{}", n));
    const double N = std::ldexp(1.0, static_cast<int>(n));
    EXPECT_EQ(m.degree_max, 4u) << n;
    EXPECT_DOUBLE_EQ(m.cost, 4.0 * n) << "4 log2 N, n=" << n;
    // degrees {2: 2, 3: 2, 4: N - 4}: mean (4N - 6) / N
    EXPECT_NEAR(m.cost_mean_degree, n * (4 * N - 6) / N, 1e-12) << n;
  }
  const auto h = metrics("hypercube:8");
  EXPECT_DOUBLE_EQ(h.cost, 64.0);
  EXPECT_DOUBLE_EQ(h.cost_mean_degree, 64.0);
}

}  // namespace
}  // namespace rica
