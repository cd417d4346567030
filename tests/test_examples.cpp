// The worked example (apps/examples, docs/programming.md): TreeReduce's tree against an
// independent check, and whole runs on direct and indirect networks, power-of-two and other PE
// counts, 1 and 2 threads: the application's own verification, exact message counts,
// conservation (bitmap) and no deadlock.
#include "reduce.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using rica::examples::TreeReduce;

TEST(TreeReduce, TreeSpansEveryPeOnce) {
  for (node_t n : {2u, 3u, 5u, 8u, 15u, 32u, 100u}) {
    std::vector<int> seen(n, 0);
    for (node_t p = 0; p < n; ++p)
      for (node_t c : TreeReduce::children(p, n)) {
        ASSERT_LT(c, n);
        EXPECT_EQ(TreeReduce::parent(c), p) << "n=" << n << " child " << c;
        ++seen[c];
      }
    EXPECT_EQ(seen[0], 0) << "the root has no parent";
    for (node_t p = 1; p < n; ++p) EXPECT_EQ(seen[p], 1) << "n=" << n << " PE " << p;
  }
  EXPECT_EQ(TreeReduce::children(0, 8), (std::vector<node_t>{1, 2, 4}));
  EXPECT_EQ(TreeReduce::children(4, 8), (std::vector<node_t>{5, 6}));
  EXPECT_EQ(TreeReduce::children(4, 6), (std::vector<node_t>{5}));
  EXPECT_TRUE(TreeReduce::children(7, 8).empty());
}

TEST(TreeReduce, ZeroRoundsIsAUsageError) { EXPECT_THROW(TreeReduce(0), rica::usage_error); }

TEST(TreeReduce, VerifyRejectsAnUnfinishedRun) {
  // verify() is not vacuous: after setup only (no run), no PE has completed a round.
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:3");
  TreeReduce app(2);
  rica::Machine m(t, 1);
  app.setup(m);
  std::string why;
  EXPECT_FALSE(app.verify(why));
  EXPECT_NE(why.find("completed 0 of 2 rounds"), std::string::npos) << why;
}

struct Case {
  const char* spec;
  unsigned threads;
};

class TreeReduceRuns : public ::testing::TestWithParam<Case> {};

TEST_P(TreeReduceRuns, EveryPeGetsTheSerialSumEveryRound) {
  const rica::Topology t = rica::TopologyRegistry::parse(GetParam().spec);
  const node_t n = t.pes();
  constexpr std::uint32_t rounds = 5;
  TreeReduce app(rounds);
  rica::EngineConfig cfg;
  cfg.threads = GetParam().threads;
  cfg.seed = 7;
  const rica::RunStats st = rica::run_async(t, app, cfg);

  EXPECT_FALSE(st.deadlock) << st.deadlock_report;
  EXPECT_TRUE(st.app_ok) << st.app_message;
  EXPECT_TRUE(st.conservation_ok);
  EXPECT_EQ(st.verify_method, "bitmap");  // max_sends_per_pe() is a true bound
  const std::uint64_t expected = 2ULL * rounds * (n - 1);  // (N-1) up + (N-1) down per round
  EXPECT_EQ(st.injected, expected);
  EXPECT_EQ(st.delivered, expected);
  EXPECT_EQ(st.in_network, 0u);
  EXPECT_EQ(st.duplicates, 0u);

  // Independently of verify(): the serial sum of the seeded values, per round.
  for (std::uint32_t r = 0; r < rounds; ++r) {
    std::uint64_t sum = 0;
    for (node_t p = 0; p < n; ++p) {
      rica::Rng rng(cfg.seed ^ p);
      sum += rng.below(1000) + r;
    }
    for (node_t p = 0; p < n; ++p) ASSERT_EQ(app.total(p, r), sum) << "PE " << p << " round " << r;
  }
  EXPECT_EQ(app.summary()["rounds"], rounds);
  EXPECT_EQ(app.summary()["total"], app.total(0, 0));
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* s : {"cccb:n=3", "torus:8x8", "hypercube:6", "omega:5", "debruijn:5", "mesh:5x3"})
    for (unsigned th : {1u, 2u}) v.push_back({s, th});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Topologies, TreeReduceRuns, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = i.param.spec;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s + "_t" + std::to_string(i.param.threads);
                         });

TEST(TreeReduce, MaxSendsPerPeIsExact) {
  // N = 8: the root sends 3 totals per round; PE 4 sends 1 partial + 2 totals; so 3 per round.
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:3");
  TreeReduce app(4);
  rica::EngineConfig cfg;
  cfg.threads = 1;
  const rica::RunStats st = rica::run_async(t, app, cfg);
  EXPECT_EQ(app.max_sends_per_pe(), 3u * 4);
  std::uint64_t most = 0;
  for (auto k : st.pe_injected) most = std::max(most, k);
  EXPECT_EQ(most, app.max_sends_per_pe());
  EXPECT_TRUE(st.app_ok) << st.app_message;
}

}  // namespace
