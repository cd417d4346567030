// Synthetic traffic (apps/traffic): destination functions against independent expectations
// (ranges, never-self, uniformity, partitions, hot-spot fraction, the localized distribution
// computed numerically), exact examples of the deterministic patterns, the registry and its
// errors, and whole runs of the generators on the engine.
#include "traffic.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "rica/engine.hpp"
#include "rica/partition.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using rica::Rng;
using rica::Topology;
using rica::TopologyRegistry;
using rica::TrafficOptions;
using rica::TrafficRegistry;
using rica::usage_error;
using rica::traffic::PeSpace;

Topology topo(const char* spec) { return TopologyRegistry::parse(spec); }

std::string error_of(auto&& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  return "(no error)";
}

const std::vector<std::string> kOpenLoop = {"uniform", "quarter", "hotspot",  "localized", "transpose", "bitcomp",
                                           "bitrev",  "shuffle", "tornado", "neighbor",  "randperm"};
const std::vector<const char*> kTopologies = {"mesh:8x8",  "torus:4x4x4", "hypercube:6", "cccb:n=2", "dce:n=3",
                                              "fattree:5", "debruijn:6",  "torus:6",     "mesh:5x5", "mesh:4x8",
                                              "hypercube:3", "torus:3x3"};

bool pow2(node_t n) { return n >= 2 && (n & (n - 1)) == 0; }

/// Whether a pattern is possible on a PE space, decided independently of the implementation.
bool possible(const std::string& pat, const PeSpace& s) {
  const node_t n = s.pes;
  if (pat == "quarter") return n % 4 == 0 && n >= 8;
  if (pat == "bitcomp" || pat == "bitrev" || pat == "shuffle") return pow2(n);
  if (pat == "transpose")
    return (s.shape.size() == 2 && s.shape[0] == s.shape[1]) || (pow2(n) && std::countr_zero(n) % 2 == 0);
  if (pat == "tornado") return std::any_of(s.shape.begin(), s.shape.end(), [](auto k) { return k >= 3; });
  if (pat == "neighbor") return s.shape[0] >= 2;
  return n >= 2;
}

// ---- Registry -------------------------------------------------------------------------------------

TEST(TrafficRegistry, NamesInOrderAndHelp) {
  std::vector<std::string> names;
  for (const auto& e : TrafficRegistry::available()) names.push_back(e.name);
  EXPECT_EQ(names, (std::vector<std::string>{"uniform", "quarter", "partition", "hotspot", "mesh", "localized",
                                             "transpose", "bitcomp", "bitrev", "shuffle", "tornado", "neighbor", "randperm"}));
  const std::string help = TrafficRegistry::help_text();
  for (const auto& n : names) EXPECT_NE(help.find("\n  " + n + " "), std::string::npos) << n;
  EXPECT_NE(help.find("fraction"), std::string::npos);
  EXPECT_TRUE(TrafficRegistry::by_name("mesh").closed_loop);
  EXPECT_FALSE(TrafficRegistry::by_name("uniform").closed_loop);
}

TEST(TrafficRegistry, UnknownName) {
  EXPECT_EQ(error_of([] { (void)TrafficRegistry::by_name("foo"); }),
            "unknown traffic pattern 'foo'; valid: uniform, quarter, partition, hotspot, mesh, localized, transpose, bitcomp, "
            "bitrev, shuffle, tornado, neighbor, randperm");
  const Topology t = topo("mesh:4x4");
  EXPECT_NE(error_of([&] { (void)TrafficRegistry::make("random", t); }).find("unknown traffic pattern 'random'"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)TrafficRegistry::make("", t); }).find("empty traffic spec"), std::string::npos);
}

TEST(TrafficRegistry, Canonical) {
  EXPECT_EQ(TrafficRegistry::canonical("uniform"), "uniform");
  EXPECT_EQ(TrafficRegistry::canonical("hotspot"), "hotspot:fraction=0.05,hot=0");
  EXPECT_EQ(TrafficRegistry::canonical("hotspot:0.1"), "hotspot:fraction=0.1,hot=0");
  EXPECT_EQ(TrafficRegistry::canonical("hotspot:hot=5,fraction=0.25"), "hotspot:fraction=0.25,hot=5");
}

TEST(TrafficRegistry, BadParams) {
  const Topology t = topo("mesh:8x8");
  auto err = [&](const std::string& spec) { return error_of([&] { (void)TrafficRegistry::make(spec, t); }); };
  EXPECT_EQ(err("hotspot:fraction=2"), "traffic 'hotspot': parameter 'fraction' = 2 is out of range [0, 1]");
  EXPECT_EQ(err("hotspot:fraction=-0.1"), "traffic 'hotspot': parameter 'fraction' = -0.1 is out of range [0, 1]");
  EXPECT_EQ(err("hotspot:fraction=abc"), "traffic 'hotspot': parameter 'fraction' = 'abc' is not a number");
  EXPECT_EQ(err("hotspot:hot=64"), "traffic 'hotspot': parameter 'hot' = 64 is out of range [0, 63]");
  EXPECT_NE(err("hotspot:hot=x").find("parameter 'hot' = 'x' is not a non-negative integer"), std::string::npos);
  EXPECT_EQ(err("hotspot:foo=1"), "traffic 'hotspot': unknown parameter 'foo'; accepted: fraction, hot");
  EXPECT_EQ(err("hotspot:fraction=0.1,fraction=0.2"), "traffic 'hotspot': parameter 'fraction' given twice");
  EXPECT_EQ(err("hotspot:0.1,0.2"), "traffic 'hotspot': '0.2' must be key=value (parameters: fraction, hot)");
  EXPECT_EQ(err("uniform:3"), "traffic 'uniform': '3' must be key=value (parameters: none)");
  EXPECT_EQ(err("uniform:x=3"), "traffic 'uniform': unknown parameter 'x'; accepted: none");
  EXPECT_EQ(err("uniform:"), "traffic 'uniform': nothing after ':' (parameters: none)");
  EXPECT_EQ(err("mesh:3"), "traffic 'mesh': parameter 'wrap' = '3' is not one of: 0, 1");
  EXPECT_EQ(err("mesh:wrap=1,3"), "traffic 'mesh': '3' must be key=value (parameters: wrap)");
  EXPECT_EQ(err("hotspot:0.5"), "(no error)");
  EXPECT_EQ(err("hotspot:fraction=1,hot=63"), "(no error)");
}

TEST(TrafficRegistry, BadOptions) {
  const Topology t = topo("mesh:4x4");
  for (const char* spec : {"uniform", "mesh"}) {
    EXPECT_EQ(error_of([&] { (void)TrafficRegistry::make(spec, t, TrafficOptions{0.0, 10, 1}); }),
              "traffic: rate = 0 is out of range (0, 1]")
        << spec;
    EXPECT_EQ(error_of([&] { (void)TrafficRegistry::make(spec, t, TrafficOptions{1.5, 10, 1}); }),
              "traffic: rate = 1.5 is out of range (0, 1]")
        << spec;
    EXPECT_EQ(error_of([&] { (void)TrafficRegistry::make(spec, t, TrafficOptions{std::nan(""), 10, 1}); }),
              "traffic: rate = nan is out of range (0, 1]")
        << spec;
    EXPECT_EQ(error_of([&] { (void)TrafficRegistry::make(spec, t, TrafficOptions{0.5, 0, 1}); }),
              "traffic: packets per PE = 0; at least 1 is needed")
        << spec;
  }
}

TEST(TrafficRegistry, ImpossiblePatterns) {
  auto err = [](const char* pat, const char* net) {
    const Topology t = topo(net);
    return error_of([&] { (void)TrafficRegistry::make(pat, t); });
  };
  EXPECT_EQ(err("bitrev", "mesh:5x5"), "traffic 'bitrev' needs a power-of-two PE count; 'mesh:5x5' has 25 PEs");
  EXPECT_EQ(err("bitcomp", "mesh:5x5"), "traffic 'bitcomp' needs a power-of-two PE count; 'mesh:5x5' has 25 PEs");
  EXPECT_EQ(err("shuffle", "torus:6"), "traffic 'shuffle' needs a power-of-two PE count; 'torus:6' has 6 PEs");
  EXPECT_EQ(err("mesh", "hypercube:3"),
            "traffic 'mesh' needs a square PE count of at least 4 (a wrapping sqrt(N) x sqrt(N) mesh); "
            "'hypercube:n=3' has 8 PEs");
  EXPECT_EQ(err("quarter", "mesh:2x3"),
            "traffic 'quarter' needs a PE count divisible by 4 and at least 8 (four partitions of >= 2); "
            "'mesh:2x3' has 6 PEs");
  EXPECT_NE(err("quarter", "torus:4").find("has 4 PEs"), std::string::npos);
  EXPECT_EQ(err("transpose", "mesh:4x8"),
            "traffic 'transpose' needs a square 2D shape (AxA) or 2^(2k) PEs; 'mesh:4x8' has 32 PEs (shape 4x8)");
  EXPECT_EQ(err("tornado", "hypercube:3"),
            "traffic 'tornado' needs a coordinate of range >= 3 (else it maps every PE to itself); "
            "'hypercube:n=3' has 8 PEs (shape 2x2x2)");
  EXPECT_EQ(err("mesh", "mesh:5x5"), "(no error)");
  EXPECT_EQ(err("mesh", "hypercube:2"), "(no error)");  // side 2
  EXPECT_EQ(err("transpose", "mesh:5x5"), "(no error)");
  EXPECT_EQ(err("transpose", "hypercube:4"), "(no error)");
  // Pattern spaces without a topology.
  EXPECT_EQ(error_of([] { (void)rica::traffic::Quarter(PeSpace::of_shape({6})); }),
            "traffic 'quarter' needs a PE count divisible by 4 and at least 8 (four partitions of >= 2); the "
            "network has 6 PEs");
  EXPECT_NE(error_of([] { (void)rica::traffic::Uniform(PeSpace::of_shape({1})); }).find("at least 2 PEs"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)TrafficRegistry::pattern("mesh", PeSpace::of_shape({4, 4})); }).find("closed loop"),
            std::string::npos);
}

// ---- Every pattern on every topology: validity --------------------------------------------------

TEST(TrafficPatterns, DestinationsArePesAndRandomOnesNeverSelf) {
  for (const char* net : kTopologies) {
    const Topology t = topo(net);
    const PeSpace s = PeSpace::of(t);
    ASSERT_EQ(rica::shape_size(s.shape), s.pes) << net;
    for (const auto& pat : kOpenLoop) {
      SCOPED_TRACE(pat + " on " + net);
      if (!possible(pat, s)) {
        EXPECT_THROW((void)TrafficRegistry::pattern(pat, t), usage_error);
        EXPECT_THROW((void)TrafficRegistry::make(pat, t), usage_error);
        continue;
      }
      const auto p = TrafficRegistry::pattern(pat, t, 7);
      EXPECT_STREQ(rica::traffic::pattern_name(p), pat.c_str());
      EXPECT_NE(TrafficRegistry::make(pat, t), nullptr);
      const bool random = rica::traffic::is_random(p);
      EXPECT_EQ(random, pat == "uniform" || pat == "quarter" || pat == "hotspot" || pat == "localized");
      Rng rng(11);
      for (node_t src = 0; src < s.pes; ++src)
        for (int i = 0; i < (random ? 50 : 2); ++i) {
          const node_t d = rica::traffic::destination(p, src, rng);
          ASSERT_LT(d, s.pes) << "src " << src;
          if (random) {
            ASSERT_NE(d, src);
          }
        }
      if (!random) {  // deterministic: the same answer for any rng state
        Rng a(1), b(2);
        std::set<node_t> image;
        for (node_t src = 0; src < s.pes; ++src) {
          const node_t d = rica::traffic::destination(p, src, a);
          ASSERT_EQ(d, rica::traffic::destination(p, src, b));
          image.insert(d);
        }
        EXPECT_EQ(image.size(), s.pes) << "every deterministic pattern here is a permutation";
      }
    }
  }
}

// ---- Random patterns: distributions ---------------------------------------------------------------

TEST(TrafficPatterns, UniformIsUniform) {
  const auto p = TrafficRegistry::pattern("uniform", topo("mesh:8x8"));
  const node_t n = 64;
  const int per_src = 1000;
  std::vector<double> count(n, 0);
  Rng rng(3);
  for (node_t src = 0; src < n; ++src)
    for (int i = 0; i < per_src; ++i) count[rica::traffic::destination(p, src, rng)] += 1;
  // Each destination expects per_src * (n-1) / (n-1) = per_src. Chi-square with 63 dof: mean 63,
  // sd ~11.2; 63 + 6 sd is a safe fixed-seed bound, and a skewed generator blows far past it.
  double chi2 = 0;
  for (double c : count) chi2 += (c - per_src) * (c - per_src) / per_src;
  EXPECT_LT(chi2, 63 + 6 * std::sqrt(2.0 * 63)) << chi2;
  EXPECT_GT(chi2, 20.0) << "suspiciously perfect";
}

TEST(TrafficPatterns, QuarterStaysInPartitionUniformly) {
  for (const char* net : {"torus:4x4x4", "mesh:4x8", "cccb:n=2"}) {
    const Topology t = topo(net);
    const node_t n = t.pes(), part = n / 4;
    const auto p = TrafficRegistry::pattern("quarter", t);
    std::vector<double> count(n, 0);
    Rng rng(5);
    const int per_src = 2000;
    for (node_t src = 0; src < n; ++src)
      for (int i = 0; i < per_src; ++i) {
        const node_t d = rica::traffic::destination(p, src, rng);
        ASSERT_EQ(d / part, src / part) << net << " " << src << "->" << d;
        ASSERT_NE(d, src);
        count[d] += 1;
      }
    for (node_t d = 0; d < n; ++d) EXPECT_NEAR(count[d] / per_src, 1.0, 0.1) << net << " dst " << d;
  }
}

// partition:parts=K sends inside the partitions rica::partition makes, uniformly, never to self;
// checked against the plan itself (an independent call), on a direct, an MDCE and an indirect-free
// grid family; then its refusals.
TEST(TrafficPatterns, PartitionStaysInsideThePlansPartitionsUniformly) {
  for (const auto& [net, parts] : std::vector<std::pair<const char*, unsigned>>{
           {"cccb:n=3", 16}, {"torus:8x8", 4}, {"cbanyan:n=5,S=8", 16}, {"hypercube:6", 8}}) {
    SCOPED_TRACE(net);
    const Topology t = topo(net);
    rica::PartitionRequest req;
    req.parts = parts;
    const rica::PartitionPlan plan = rica::partition(t, req);
    const auto p = TrafficRegistry::pattern(fmt::format("partition:parts={}", parts), t);
    ASSERT_TRUE(std::holds_alternative<rica::traffic::Partitioned>(p));
    const node_t n = t.pes();
    std::vector<double> count(n, 0);
    Rng rng(9);
    const int per_src = 1500;
    for (node_t src = 0; src < n; ++src)
      for (int i = 0; i < per_src; ++i) {
        const node_t d = rica::traffic::destination(p, src, rng);
        ASSERT_LT(d, n);
        ASSERT_NE(d, src);
        ASSERT_EQ(plan.part_of[d], plan.part_of[src]) << src << "->" << d;
        count[d] += 1;
      }
    // Every PE of a partition of size m receives per_src * (m-1) * 1/(m-1) = per_src on average.
    for (node_t d = 0; d < n; ++d) EXPECT_NEAR(count[d] / per_src, 1.0, 0.1) << "dst " << d;
  }
  EXPECT_EQ(TrafficRegistry::canonical("partition:16"), "partition:parts=16");
  EXPECT_NE(error_of([] { (void)TrafficRegistry::pattern("partition:parts=4", PeSpace::of_shape({16})); })
                .find("needs a topology"),
            std::string::npos);
  EXPECT_NE(error_of([] { (void)TrafficRegistry::pattern("partition:parts=1", topo("torus:4x4")); })
                .find("'parts' = 1 is out of range"),
            std::string::npos);
  // A cut into single PEs cannot carry traffic.
  EXPECT_NE(error_of([] { (void)TrafficRegistry::pattern("partition:parts=16", topo("hypercube:4")); }), "(no error)");
}

TEST(TrafficPatterns, HotspotFraction) {
  const Topology t = topo("mesh:8x8");
  const node_t n = 64, hot = 5;
  const double f = 0.1;
  const auto p = TrafficRegistry::pattern("hotspot:fraction=0.1,hot=5", t);
  const auto& h = std::get<rica::traffic::Hotspot>(p);
  EXPECT_EQ(h.hot, hot);
  EXPECT_DOUBLE_EQ(h.fraction, f);
  Rng rng(9);
  std::uint64_t to_hot = 0, draws = 0;
  for (int i = 0; i < 300000; ++i) {
    const node_t src = static_cast<node_t>(rng.below(n));
    if (src == hot) continue;
    ++draws;
    to_hot += rica::traffic::destination(p, src, rng) == hot;
  }
  // The uniform share may pick the hot PE too.
  const double expect = f + (1 - f) / (n - 1);
  EXPECT_NEAR(static_cast<double>(to_hot) / static_cast<double>(draws), expect, 0.004);
  // The hot PE sends uniformly to the others.
  std::vector<int> count(n, 0);
  for (int i = 0; i < 63000; ++i) ++count[rica::traffic::destination(p, hot, rng)];
  EXPECT_EQ(count[hot], 0);
  for (node_t d = 0; d < n; ++d)
    if (d != hot) {
      EXPECT_NEAR(count[d], 1000, 150) << d;
    }
  // Default fraction.
  const auto def = TrafficRegistry::pattern("hotspot", t);
  EXPECT_DOUBLE_EQ(std::get<rica::traffic::Hotspot>(def).fraction, rica::defaults::traffic::hotspot_fraction);
  EXPECT_EQ(std::get<rica::traffic::Hotspot>(def).hot, 0u);
  // fraction = 0 is uniform, fraction = 1 always hot.
  const auto all = TrafficRegistry::pattern("hotspot:1", t);
  for (node_t src = 1; src < n; ++src) EXPECT_EQ(rica::traffic::destination(all, src, rng), 0u);
}

/// Expected circular distance of one coordinate of range k under localized traffic, and the
/// probability that its offset is 0 mod k: offset = +-round(Exp(mean (k-1)/2)) mod k.
struct CoordLaw {
  double dist = 0, zero = 0;
};
CoordLaw coord_law(std::uint32_t k) {
  CoordLaw law;
  if (k == 1) return {0, 1};
  const double m = (k - 1) / 2.0;
  auto cdf = [m](double x) { return x <= 0 ? 0.0 : 1.0 - std::exp(-x / m); };
  for (std::uint32_t j = 0;; ++j) {
    const double x = j;
    const double pj = cdf(x + 0.5) - cdf(x - 0.5);  // P(round(X) = j)
    const std::uint32_t r = j % k;
    law.dist += pj * std::min(r, k - r);
    if (r == 0) law.zero += pj;
    if (j > 10 && std::exp(-(x + 0.5) / m) < 1e-15) break;
  }
  return law;
}

TEST(TrafficPatterns, LocalizedMatchesRoundedWrappedExponential) {
  for (const char* net : {"mesh:8x8", "torus:16x4x2", "fattree:6", "hypercube:4", "dce:n=3", "torus:3x3"}) {
    const Topology t = topo(net);
    const PeSpace s = PeSpace::of(t);
    const auto p = TrafficRegistry::pattern("localized", t);
    // Redrawing the all-zero offset conditions on "not every coordinate 0 mod k"; a zero
    // coordinate distance contributes 0 either way, so E[dist_i | redraw] = E[dist_i] / (1 - P(all 0)).
    std::vector<CoordLaw> law;
    double all_zero = 1;
    for (auto k : s.shape) {
      law.push_back(coord_law(k));
      all_zero *= law.back().zero;
    }
    std::vector<double> sum(s.shape.size(), 0);
    std::vector<std::uint64_t> positive(s.shape.size(), 0), negative(s.shape.size(), 0);
    Rng rng(21);
    const int draws = 200000;
    for (int i = 0; i < draws; ++i) {
      const node_t src = static_cast<node_t>(rng.below(s.pes));
      const node_t dst = rica::traffic::destination(p, src, rng);
      ASSERT_NE(src, dst);
      const auto a = rica::to_coords(s.shape, src), b = rica::to_coords(s.shape, dst);
      for (std::size_t c = 0; c < s.shape.size(); ++c) {
        const std::uint32_t k = s.shape[c], r = (b[c] + k - a[c]) % k;
        sum[c] += std::min(r, k - r);
        if (2 * r != k && r != 0) (2 * r < k ? positive : negative)[c]++;
      }
    }
    for (std::size_t c = 0; c < s.shape.size(); ++c) {
      const double expect = law[c].dist / (1 - all_zero);
      const double got = sum[c] / draws;
      EXPECT_NEAR(got, expect, 0.02 * expect + 1e-9) << net << " coordinate " << c << " (range " << s.shape[c] << ")";
      if (positive[c] + negative[c] > 1000) {  // random sign: both directions equally often
        const double share = static_cast<double>(positive[c]) / static_cast<double>(positive[c] + negative[c]);
        EXPECT_NEAR(share, 0.5, 0.02) << net << " coordinate " << c;
      }
    }
  }
  // Sanity of the law itself: for a large range the wrapped distance mean approaches the
  // exponential mean's rounding, ~ (k-1)/2 folded: well below k/2, well above 0.
  const CoordLaw l = coord_law(1024);
  EXPECT_GT(l.dist, 150);
  EXPECT_LT(l.dist, 512);
}

// ---- Deterministic patterns: exact examples --------------------------------------------------------

node_t dest(const std::string& pat, const char* net, node_t src) {
  Rng rng(1);
  return rica::traffic::destination(TrafficRegistry::pattern(pat, topo(net)), src, rng);
}

TEST(TrafficPatterns, TransposeExamples) {
  // 2D square: (x, y) -> (y, x), id = x + side * y.
  EXPECT_EQ(dest("transpose", "mesh:4x4", 1 + 4 * 2), 2u + 4 * 1);
  EXPECT_EQ(dest("transpose", "mesh:5x5", 4 + 5 * 0), 0u + 5 * 4);
  EXPECT_EQ(dest("transpose", "mesh:5x5", 3 + 5 * 3), 3u + 5 * 3);  // diagonal: self (silent)
  // 2^(2k) PEs: swap address bit halves.
  EXPECT_EQ(dest("transpose", "hypercube:4", 0b0111), 0b1101u);
  EXPECT_EQ(dest("transpose", "torus:8x8x16", 0b00000'11111), 0b11111'00000u);
  EXPECT_EQ(dest("transpose", "torus:8x8x16", 0b10101'00011), 0b00011'10101u);
  EXPECT_EQ(dest("transpose", "fattree:6", 0b101'001), 0b001'101u);
}

TEST(TrafficPatterns, BitExamples) {
  EXPECT_EQ(dest("bitcomp", "hypercube:3", 5), 2u);
  EXPECT_EQ(dest("bitcomp", "hypercube:3", 0), 7u);
  EXPECT_EQ(dest("bitcomp", "fattree:5", 0b10110), 0b01001u);
  EXPECT_EQ(dest("bitrev", "hypercube:4", 0b0001), 0b1000u);
  EXPECT_EQ(dest("bitrev", "hypercube:4", 0b0011), 0b1100u);
  EXPECT_EQ(dest("bitrev", "hypercube:4", 0b0110), 0b0110u);  // palindrome: self
  EXPECT_EQ(dest("bitrev", "debruijn:6", 0b110100), 0b001011u);
  EXPECT_EQ(dest("shuffle", "hypercube:4", 0b1001), 0b0011u);
  EXPECT_EQ(dest("shuffle", "hypercube:4", 0b0110), 0b1100u);
  EXPECT_EQ(dest("shuffle", "hypercube:4", 0b1111), 0b1111u);
  EXPECT_EQ(dest("shuffle", "debruijn:6", 0b100000), 0b000001u);
}

TEST(TrafficPatterns, TornadoAndNeighborExamples) {
  // torus 8x8: shift ceil(8/2) - 1 = 3 per coordinate.
  EXPECT_EQ(dest("tornado", "torus:8x8", 7 + 8 * 1), 2u + 8 * 4);
  EXPECT_EQ(dest("tornado", "torus:8x8", 0), 3u + 8 * 3);
  // range 5: shift 2; range 2: shift 0.
  EXPECT_EQ(dest("tornado", "mesh:5x2", 4 + 5 * 1), 1u + 5 * 1);
  // one coordinate of 64 (fat tree): shift 31.
  EXPECT_EQ(dest("tornado", "fattree:6", 40), (40u + 31) % 64);
  EXPECT_EQ(dest("neighbor", "mesh:4x4", 3), 0u);
  EXPECT_EQ(dest("neighbor", "mesh:4x4", 5), 6u);
  EXPECT_EQ(dest("neighbor", "mesh:4x4", 15), 12u);
  EXPECT_EQ(dest("neighbor", "debruijn:6", 63), 0u);
  EXPECT_EQ(dest("neighbor", "hypercube:3", 0b101), 0b100u);  // first coordinate of 2x2x2
}

TEST(TrafficPatterns, RandPermIsAFixedPermutation) {
  const Topology t = topo("torus:8x8");
  const auto a = std::get<rica::traffic::RandPerm>(TrafficRegistry::pattern("randperm", t, 42));
  const auto b = std::get<rica::traffic::RandPerm>(TrafficRegistry::pattern("randperm", t, 42));
  const auto c = std::get<rica::traffic::RandPerm>(TrafficRegistry::pattern("randperm", t, 43));
  std::vector<node_t> sorted = *a.perm;
  std::sort(sorted.begin(), sorted.end());
  for (node_t i = 0; i < 64; ++i) ASSERT_EQ(sorted[i], i);
  EXPECT_EQ(*a.perm, *b.perm);
  EXPECT_NE(*a.perm, *c.perm);
  node_t moved = 0;
  for (node_t i = 0; i < 64; ++i) moved += a.apply(i) != i;
  EXPECT_GT(moved, 48u);  // a random permutation has ~1 fixed point
}

std::vector<node_t> nbs(const rica::traffic::MeshLayout& m, node_t pe) {
  const auto n = m.neighbours(pe);
  return {n.begin(), n.end()};
}

TEST(TrafficPatterns, MeshLayout) {
  const rica::traffic::MeshLayout m(PeSpace::of(topo("mesh:4x4")));
  EXPECT_EQ(m.side, 4u);
  EXPECT_TRUE(m.wrap);
  EXPECT_EQ(nbs(m, 5), (std::vector<node_t>{6, 4, 9, 1}));
  EXPECT_EQ(nbs(m, 0), (std::vector<node_t>{1, 3, 4, 12}));
  EXPECT_EQ(nbs(m, 15), (std::vector<node_t>{12, 14, 3, 11}));
  // The layout is by address only: a 1,024-PE hypercube is a 32 x 32 mesh too.
  EXPECT_EQ(rica::traffic::MeshLayout(PeSpace::of(topo("hypercube:10"))).side, 32u);
  const rica::traffic::MeshLayout two(PeSpace::of(topo("hypercube:2")));
  EXPECT_EQ(nbs(two, 0), (std::vector<node_t>{1, 1, 2, 2}));
  // Every PE is the neighbour of exactly 4 (counted with multiplicity): each waits for 4.
  for (const char* net : {"mesh:5x5", "hypercube:2", "mxx:8"}) {
    const rica::traffic::MeshLayout l(PeSpace::of(topo(net)));
    std::vector<int> in(l.side * l.side, 0);
    for (node_t pe = 0; pe < l.side * l.side; ++pe)
      for (node_t nb : l.neighbours(pe)) {
        ASSERT_NE(nb, pe) << net;
        ++in[nb];
      }
    for (int c : in) EXPECT_EQ(c, 4) << net;
  }
}

/// Independent count of a PE's neighbours on a non-wrapping side x side mesh: the coordinates
/// (x, y) with |dx| + |dy| = 1 inside the square, found by scanning every PE.
std::vector<node_t> open_mesh_neighbours(node_t side, node_t pe) {
  std::vector<node_t> out;
  const long x = pe % side, y = pe / side;
  for (node_t q = 0; q < side * side; ++q) {
    const long qx = q % side, qy = q / side;
    if (std::labs(qx - x) + std::labs(qy - y) == 1) out.push_back(q);
  }
  return out;
}

TEST(TrafficPatterns, NonWrappingMeshLayout) {
  for (const node_t side : {2u, 3u, 4u, 7u, 32u}) {
    SCOPED_TRACE(side);
    const rica::traffic::MeshLayout m(PeSpace::of_shape({side * side}), false);
    EXPECT_FALSE(m.wrap);
    std::uint64_t total = 0;
    std::vector<unsigned> in(side * side, 0);
    for (node_t pe = 0; pe < side * side; ++pe) {
      auto got = nbs(m, pe);
      std::sort(got.begin(), got.end());
      ASSERT_EQ(got, open_mesh_neighbours(side, pe)) << pe;  // no wrap-around, no duplicates
      EXPECT_EQ(m.degree(pe), got.size());
      total += got.size();
      for (node_t nb : got) ++in[nb];
    }
    for (node_t pe = 0; pe < side * side; ++pe) EXPECT_EQ(in[pe], m.degree(pe)) << "symmetric: receives = sends";
    // Closed form: 2 side (side - 1) mesh edges, each carrying one packet each way per round.
    EXPECT_EQ(total, 4ULL * side * (side - 1));
    EXPECT_EQ(m.packets_per_round(), 4ULL * side * (side - 1));
  }
  // Corners 2, edges 3, interior 4 (4 x 4: PEs 0, 1, 5).
  const rica::traffic::MeshLayout m(PeSpace::of(topo("mesh:4x4")), false);
  EXPECT_EQ(nbs(m, 0), (std::vector<node_t>{1, 4}));
  EXPECT_EQ(nbs(m, 1), (std::vector<node_t>{2, 0, 5}));
  EXPECT_EQ(nbs(m, 5), (std::vector<node_t>{6, 4, 9, 1}));
  EXPECT_EQ(nbs(m, 15), (std::vector<node_t>{14, 11}));
}

TEST(TrafficRegistry, MeshWrapParameter) {
  EXPECT_EQ(TrafficRegistry::canonical("mesh"), "mesh:wrap=1");
  EXPECT_EQ(TrafficRegistry::canonical("mesh:0"), "mesh:wrap=0");
  EXPECT_EQ(TrafficRegistry::canonical("mesh:wrap=0"), "mesh:wrap=0");
  const PeSpace s = PeSpace::of(topo("torus:4x4"));
  EXPECT_TRUE(TrafficRegistry::mesh_layout("mesh", s)->wrap);
  EXPECT_FALSE(TrafficRegistry::mesh_layout("mesh:wrap=0", s)->wrap);
  EXPECT_FALSE(TrafficRegistry::mesh_layout("uniform", s).has_value());
  EXPECT_NE(error_of([] { (void)TrafficRegistry::canonical("mesh:wrap=2"); }).find("wrap"), std::string::npos);
  EXPECT_NE(error_of([] { (void)TrafficRegistry::canonical("mesh:side=3"); }).find("side"), std::string::npos);
  EXPECT_NE(error_of([] { (void)TrafficRegistry::make("mesh:wrap=0", topo("hypercube:3")); }).find("square"),
            std::string::npos);
  EXPECT_NE(TrafficRegistry::help_text().find("wrap"), std::string::npos);
}

// ---- The Apps --------------------------------------------------------------------------------------

TEST(TrafficApps, MakeBuildsTheRightApp) {
  const Topology t = topo("mesh:4x4");
  auto open = TrafficRegistry::make("hotspot:0.2", t, TrafficOptions{0.5, 30, 1});
  auto* o = dynamic_cast<rica::OpenLoopTraffic*>(open.get());
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->max_sends_per_pe(), 30u);
  const auto js = o->summary();
  EXPECT_EQ(js.at("pattern"), "hotspot:fraction=0.2,hot=0");
  EXPECT_EQ(js.at("rate"), 0.5);
  EXPECT_EQ(js.at("packets_per_pe"), 30u);

  auto mesh = TrafficRegistry::make("mesh", t, TrafficOptions{1.0, 30, 1});
  auto* m = dynamic_cast<rica::MeshEmulation*>(mesh.get());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->iterations(), 7u);  // 30 packets -> 30 / 4 = 7 iterations
  EXPECT_EQ(m->max_sends_per_pe(), 28u);
  EXPECT_EQ(m->summary().at("packets_per_pe"), 28u);
  auto tiny = TrafficRegistry::make("mesh", t, TrafficOptions{1.0, 1, 1});
  EXPECT_EQ(dynamic_cast<rica::MeshEmulation&>(*tiny).iterations(), 1u);  // at least one
}

rica::EngineConfig small_engine(std::uint64_t seed = 1) {
  rica::EngineConfig cfg;
  cfg.threads = 2;
  cfg.seed = seed;
  return cfg;
}

TEST(TrafficApps, OpenLoopRunsDeliverEverything) {
  struct Case {
    const char* pattern;
    const char* net;
    double rate;
    std::uint64_t packets;
  };
  for (const Case& c : {Case{"uniform", "mesh:4x4", 1.0, 40}, Case{"uniform", "torus:4x4", 0.3, 25},
                        Case{"quarter", "torus:4x4x4", 0.5, 20}, Case{"hotspot:0.2,hot=3", "mesh:4x4", 1.0, 30},
                        Case{"localized", "cccb:n=2", 1.0, 20}, Case{"bitrev", "hypercube:4", 1.0, 20},
                        Case{"transpose", "mesh:4x4", 1.0, 20}, Case{"randperm", "torus:4x4", 0.7, 15}}) {
    SCOPED_TRACE(std::string(c.pattern) + " on " + c.net);
    const Topology t = topo(c.net);
    auto app = TrafficRegistry::make(c.pattern, t, TrafficOptions{c.rate, c.packets, 1});
    const rica::RunStats st = rica::run_async(t, *app, small_engine());
    ASSERT_FALSE(st.deadlock) << st.deadlock_report;
    EXPECT_TRUE(st.conservation_ok);
    EXPECT_TRUE(st.app_ok) << st.app_message;
    std::string why;
    EXPECT_TRUE(app->verify(why)) << why;
    const auto& o = dynamic_cast<const rica::OpenLoopTraffic&>(*app);
    const auto silent = app->summary().at("silent_pes").get<std::uint64_t>();
    const std::uint64_t expect = (t.pes() - silent) * c.packets;
    EXPECT_EQ(st.injected, expect);
    EXPECT_EQ(st.delivered, expect);
    EXPECT_EQ(app->summary().at("received").get<std::uint64_t>(), expect);
    // Deterministic patterns: the silent PEs are exactly the fixed points.
    if (!rica::traffic::is_random(o.pattern())) {
      Rng unused;
      std::uint64_t fixed = 0;
      for (node_t pe = 0; pe < t.pes(); ++pe) fixed += rica::traffic::destination(o.pattern(), pe, unused) == pe;
      EXPECT_EQ(silent, fixed);
    } else {
      EXPECT_EQ(silent, 0u);
    }
  }
}

TEST(TrafficApps, MeshEmulationCompletesEveryIteration) {
  for (const char* net : {"mesh:4x4", "torus:8x8", "hypercube:2", "hypercube:6", "fattree:4", "mesh:5x5"}) {
    SCOPED_TRACE(net);
    const Topology t = topo(net);
    for (std::uint64_t seed : {1u, 2u}) {
      auto app = TrafficRegistry::make("mesh", t, TrafficOptions{1.0, 40, seed});
      const rica::RunStats st = rica::run_async(t, *app, small_engine(seed));
      ASSERT_FALSE(st.deadlock) << st.deadlock_report;
      EXPECT_TRUE(st.conservation_ok);
      EXPECT_TRUE(st.app_ok) << st.app_message;
      const auto& m = dynamic_cast<const rica::MeshEmulation&>(*app);
      EXPECT_EQ(m.iterations(), 10u);
      for (auto done : m.completed()) ASSERT_EQ(done, 10u);
      EXPECT_EQ(st.delivered, std::uint64_t{t.pes()} * 40);
    }
  }
}

TEST(TrafficApps, NonWrappingMeshEmulationWaitsForItsOwnNeighbours) {
  for (const char* net : {"mesh:4x4", "torus:8x8", "hypercube:2", "fattree:4", "mesh:5x5", "omega:4"}) {
    SCOPED_TRACE(net);
    const Topology t = topo(net);
    const auto side = static_cast<node_t>(std::lround(std::sqrt(t.pes())));
    for (std::uint64_t seed : {1u, 2u}) {
      auto app = TrafficRegistry::make("mesh:wrap=0", t, TrafficOptions{1.0, 40, seed});
      const auto& m = dynamic_cast<const rica::MeshEmulation&>(*app);
      ASSERT_FALSE(m.layout().wrap);
      const rica::RunStats st = seed == 1 ? rica::run_async(t, *app, small_engine(seed))
                                          : rica::run_cycles(t, *app, small_engine(seed));
      ASSERT_FALSE(st.deadlock) << st.deadlock_report;
      EXPECT_TRUE(st.conservation_ok);
      EXPECT_TRUE(st.app_ok) << st.app_message;
      EXPECT_EQ(m.iterations(), 10u);
      const auto join = m.join_counts();
      const auto rec = m.received(), sent = m.sent();
      for (node_t pe = 0; pe < t.pes(); ++pe) {
        const auto d = open_mesh_neighbours(side, pe).size();
        ASSERT_EQ(join[pe], d) << "PE " << pe << " waits for its own neighbour count";
        EXPECT_EQ(rec[pe], 10 * d) << "PE " << pe << ": one packet per neighbour per round, exactly once";
        EXPECT_EQ(sent[pe], 10 * d);
      }
      for (auto done : m.completed()) ASSERT_EQ(done, 10u);
      // Closed form: 4 side (side - 1) packets a round.
      EXPECT_EQ(st.delivered, 10 * 4ULL * side * (side - 1));
      EXPECT_EQ(st.injected, st.delivered);
      EXPECT_EQ(app->summary().at("packets").get<std::uint64_t>(), st.delivered);
      std::string why;
      EXPECT_TRUE(app->verify(why)) << why;
    }
  }
}

}  // namespace
