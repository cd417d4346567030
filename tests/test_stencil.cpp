// Stencil kernel (apps/stencil): the serial reference against invariants, the process maps
// (bijections; Gray-code and ring embeddings put grid neighbours one link apart), whole runs with
// 5- and 9-point stencils, periodic and fixed boundaries, grids not divisible by the process grid,
// 1 and 2 values per packet, every mapping, 1 and 2 threads, both engines; exact message counts;
// input validation.
#include "stencil.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using namespace rica::kernels;

rica::RunStats run(const rica::Topology& t, rica::App& app, unsigned threads, bool cycles, std::uint64_t seed = 5) {
  rica::EngineConfig cfg;
  cfg.threads = threads;
  cfg.seed = seed;
  cfg.cycles = 1;  // closed loop: the kernel runs to completion
  return cycles ? rica::run_cycles(t, app, cfg) : rica::run_async(t, app, cfg);
}

StencilConfig config(std::uint32_t gx, std::uint32_t gy, unsigned points, std::uint32_t iterations) {
  StencilConfig c;
  c.gx = gx;
  c.gy = gy;
  c.points = points;
  c.iterations = iterations;
  return c;
}

TEST(StencilReference, PeriodicDiffusionConservesHeatAndSmooths) {
  for (unsigned points : {5u, 9u}) {
    StencilConfig c = config(17, 11, points, 0);
    const std::vector<double> u0 = stencil_reference(c, 9);
    c.iterations = 40;
    const std::vector<double> u = stencil_reference(c, 9);
    const double s0 = std::accumulate(u0.begin(), u0.end(), 0.0), s = std::accumulate(u.begin(), u.end(), 0.0);
    EXPECT_NEAR(s, s0, 1e-9) << points;  // the discrete Laplacian sums to zero on a torus
    auto spread = [](const std::vector<double>& v) {
      auto [lo, hi] = std::minmax_element(v.begin(), v.end());
      return *hi - *lo;
    };
    EXPECT_LT(spread(u), 0.5 * spread(u0)) << points;
    for (std::uint32_t x = 0; x < 17; ++x) EXPECT_EQ(u0[x], stencil_initial(9, x, 0));
  }
  // Fixed boundary: 0 outside; heat leaks out.
  StencilConfig c = config(9, 9, 5, 30);
  c.boundary = Boundary::fixed;
  c.iterations = 0;
  const auto u0 = stencil_reference(c, 2);
  c.iterations = 30;
  const auto u = stencil_reference(c, 2);
  EXPECT_LT(std::accumulate(u.begin(), u.end(), 0.0), std::accumulate(u0.begin(), u0.end(), 0.0));
}

TEST(ProcessMap, EveryMappingIsABijectionAndEmbeddingsAreOneLinkApart) {
  struct Emb {
    const char* spec;
    ProcessGrid grid;
    const char* name;
    unsigned max_hops;  ///< between horizontal and vertical grid neighbours (wrap included)
  };
  for (const Emb e : {Emb{"hypercube:6", {8, 8}, "gray", 1}, Emb{"hypercube:5", {8, 4}, "gray", 1},
                      Emb{"torus:8x4", {4, 8}, "transpose", 1}, Emb{"torus:8x4", {8, 4}, "identity", 1}}) {
    const rica::Topology t = rica::TopologyRegistry::parse(e.spec);
    const ProcessMap m(MapKind::embed, e.grid, Pattern::grid2d, t, t.pes(), 1);
    EXPECT_EQ(m.resolved().substr(0, std::string(e.name).size()), e.name) << e.spec << ": " << m.resolved();
    for (node_t r = 0; r < t.pes(); ++r) {
      EXPECT_EQ(m.rank(m.pe(r)), r);
      const std::uint32_t x = r % e.grid.px, y = r / e.grid.px;
      for (node_t nb : {(x + 1) % e.grid.px + e.grid.px * y, x + e.grid.px * ((y + 1) % e.grid.py)}) {
        node_t cur = m.pe(r);
        unsigned hops = 0;
        while (cur != m.pe(nb)) {
          cur = t.out_link(cur, t.route(cur, m.pe(nb), 0).port()).peer;
          ++hops;
        }
        EXPECT_LE(hops, e.max_hops) << e.spec << " rank " << r << " -> " << nb;
      }
    }
  }
  // DCE / MDCE: the next ring of a grid row and the same ring of the next row differ in one
  // address bit (one cross link).
  for (const char* spec : {"cccb:n=2", "cbanyan:n=3,S=4"}) {
    const rica::Topology t = rica::TopologyRegistry::parse(spec);
    const ProcessGrid g = square_grid(t.pes());
    const ProcessMap m(MapKind::embed, g, Pattern::grid2d, t, t.pes(), 1);
    ASSERT_EQ(m.resolved(), "ring-gray") << spec << " grid " << g.px << "x" << g.py;
    const std::uint32_t ring = static_cast<std::uint32_t>(t.shape()[0]);
    for (node_t r = 0; r < t.pes(); ++r) {
      const std::uint32_t x = r % g.px, y = r / g.px;
      if (x % ring != 0) continue;
      const node_t right = (x + ring) % g.px + g.px * y, down = x + g.px * ((y + 1) % g.py);
      EXPECT_EQ(std::popcount((m.pe(r) / ring) ^ (m.pe(right) / ring)), 1) << spec << " rank " << r;
      EXPECT_EQ(std::popcount((m.pe(r) / ring) ^ (m.pe(down) / ring)), 1) << spec << " rank " << r;
    }
  }
  const rica::Topology db = rica::TopologyRegistry::parse("debruijn:4");
  const ProcessMap none(MapKind::embed, {4, 4}, Pattern::grid2d, db, 16, 1);
  EXPECT_NE(none.resolved().find("no embedding"), std::string::npos) << none.resolved();
  const ProcessMap rnd(MapKind::random, {4, 4}, Pattern::grid2d, db, 16, 7), same(MapKind::random, {4, 4}, Pattern::grid2d, db, 16, 7);
  std::vector<node_t> seen;
  bool moved = false;
  for (node_t r = 0; r < 16; ++r) {
    EXPECT_EQ(rnd.pe(r), same.pe(r));  // seeded
    seen.push_back(rnd.pe(r));
    moved = moved || rnd.pe(r) != r;
  }
  std::sort(seen.begin(), seen.end());
  for (node_t r = 0; r < 16; ++r) EXPECT_EQ(seen[r], r);
  EXPECT_TRUE(moved);
  EXPECT_EQ(square_grid(1024), (ProcessGrid{32, 32}));
  EXPECT_EQ(square_grid(15), (ProcessGrid{5, 3}));
  EXPECT_EQ(square_grid(7), (ProcessGrid{7, 1}));
}

struct Case {
  const char* spec;
  unsigned threads;
  bool cycles;
};

class StencilRuns : public ::testing::TestWithParam<Case> {};

// Grids not divisible by the process grid (and tiles of one cell), both stencils and boundaries:
// every cell bitwise equal to the serial reference, exact message counts, nothing stray.
TEST_P(StencilRuns, MatchesTheSerialReferenceBitForBit) {
  const Case& k = GetParam();
  const rica::Topology t = rica::TopologyRegistry::parse(k.spec);
  const ProcessGrid g = square_grid(t.pes());
  struct Variant {
    std::uint32_t gx, gy;
    unsigned points, vpp;
    Boundary boundary;
    MapKind map;
  };
  for (const Variant v : {Variant{g.px * 3 + 2, g.py * 2 + 1, 5, 2, Boundary::periodic, MapKind::identity},
                          Variant{g.px + 1, g.py, 9, 1, Boundary::fixed, MapKind::embed},
                          Variant{g.px * 2 + 3, g.py + 2, 9, 2, Boundary::periodic, MapKind::random}}) {
    StencilConfig c = config(v.gx, v.gy, v.points, 4);
    c.values_per_packet = v.vpp;
    c.boundary = v.boundary;
    c.map = v.map;
    c.validate(t.pes());
    Stencil app(c);
    const rica::RunStats st = run(t, app, k.threads, k.cycles);
    const std::string what = std::string(k.spec) + " grid " + std::to_string(v.gx) + "x" + std::to_string(v.gy) +
                             " points " + std::to_string(v.points);
    ASSERT_FALSE(st.deadlock) << what << ": " << st.deadlock_report;
    EXPECT_TRUE(st.app_ok) << what << ": " << st.app_message;
    EXPECT_TRUE(st.conservation_ok) << what;
    EXPECT_EQ(st.verify_method, "bitmap") << what;
    EXPECT_EQ(st.injected, app.messages()) << what;
    // Independently of verify(): the reference, cell by cell.
    const std::vector<double> ref = stencil_reference(c, 5);
    for (std::uint32_t y = 0; y < v.gy; ++y)
      for (std::uint32_t x = 0; x < v.gx; ++x)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(app.value(x, y)), std::bit_cast<std::uint64_t>(ref[y * v.gx + x]))
            << what << " cell " << x << "," << y;
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* s : {"cccb:n=2", "cb2:n=2", "cbanyan:n=3", "torus:4x4", "torus8:4", "mxx:8", "hypercube:4",
                        "debruijn:4", "mesh:5x3", "fattree:3"})
    for (unsigned th : {1u, 2u}) v.push_back({s, th, false});
  for (const char* s : {"cccb:n=2", "torus8:4", "hypercube:4", "mesh:5x3"})
    for (unsigned th : {1u, 2u}) v.push_back({s, th, true});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Topologies, StencilRuns, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = i.param.spec;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s + "_t" + std::to_string(i.param.threads) + (i.param.cycles ? "_cycle" : "_async");
                         });

TEST(StencilRun, MessagesAreExactAndNeighboursAreOneHopOnTheMatchingTorus) {
  // 8x8 grid on torus:4x4: 2x2 tiles; 5-point, 2 values per packet: 4 halos of 1 packet per
  // iteration; 9-point adds 4 corner packets.
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  for (unsigned points : {5u, 9u}) {
    Stencil app(config(8, 8, points, 6));
    const rica::RunStats st = run(t, app, 2, false);
    EXPECT_TRUE(st.app_ok) << st.app_message;
    const std::uint64_t per = points == 5 ? 4 : 8;
    EXPECT_EQ(st.injected, 16u * 6 * per);
    EXPECT_EQ(app.max_sends_per_pe(), 6 * per);
    if (points == 5) {
      EXPECT_DOUBLE_EQ(st.hops_mean, 1.0);
    }
  }
}

TEST(StencilRun, OneRankSidesAreCopiedLocallyAndTwoRankSidesUseBothDirections) {
  // A 1 x 8 and a 2 x 4 process grid on 8 PEs, periodic: self-neighbours and a neighbour that is
  // both east and west.
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:3");
  for (ProcessGrid g : {ProcessGrid{1, 8}, ProcessGrid{2, 4}, ProcessGrid{8, 1}})
    for (unsigned points : {5u, 9u}) {
      StencilConfig c = config(5, 9, points, 5);
      c.pgrid = g;
      if (g.px == 8) c.gx = 11;
      Stencil app(c);
      const rica::RunStats st = run(t, app, 1, false);
      EXPECT_TRUE(st.app_ok) << g.px << "x" << g.py << " points " << points << ": " << st.app_message;
    }
}

TEST(StencilRun, CycleEngineIsDeterministicAcrossThreads) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus8:4");
  Stencil a1(config(12, 12, 9, 5)), a2(config(12, 12, 9, 5));
  const rica::RunStats s1 = run(t, a1, 1, true), s2 = run(t, a2, 2, true);
  EXPECT_TRUE(s1.app_ok && s2.app_ok);
  EXPECT_EQ(s1.cycles_run, s2.cycles_run);
  EXPECT_EQ(a1.finish_time(), a2.finish_time());
  EXPECT_EQ(s1.latency_p99, s2.latency_p99);
}

TEST(StencilRun, VerifyRejectsAnUnfinishedRun) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  Stencil app(config(8, 8, 5, 3));
  rica::Machine m(t, 1);
  app.setup(m);
  std::string why;
  EXPECT_FALSE(app.verify(why));
  EXPECT_NE(why.find("completed 0 of 3 iterations"), std::string::npos) << why;
}

TEST(StencilConfig, BadInputIsAUsageErrorNamingTheParameter) {
  auto expect_error = [](StencilConfig c, node_t pes, const std::string& needle) {
    try {
      c.validate(pes);
      ADD_FAILURE() << "no error, expected: " << needle;
    } catch (const rica::usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(config(100000, 100000, 5, 1), 1024, "limit");     // larger than memory allows
  expect_error(config(31, 32, 5, 1), 1024, "smaller than the process grid");
  expect_error(config(64, 64, 7, 1), 16, "points");
  expect_error(config(64, 64, 5, 0), 16, "iterations");
  StencilConfig c = config(64, 64, 5, 1);
  c.values_per_packet = 3;
  expect_error(c, 16, "values-per-packet");
  c.values_per_packet = 2;
  c.pgrid = {3, 5};
  expect_error(c, 16, "process grid 3x5");
  EXPECT_THROW(parse_boundary("open", "stencil"), rica::usage_error);
  EXPECT_THROW(parse_grid("32", "stencil"), rica::usage_error);
  EXPECT_THROW(parse_grid("0x4", "stencil"), rica::usage_error);
  EXPECT_EQ(parse_grid("12x5", "stencil"), (ProcessGrid{12, 5}));
}

}  // namespace
