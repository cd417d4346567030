// Sorting kernels (apps/sort): the compare-split schedules against independent checks, whole runs
// of bitonic, shear and sample sort on direct and indirect networks (power-of-two and other PE
// counts, 1 and 2 threads, both engines), uneven and tiny key counts, duplicate and presorted keys,
// every mapping; exact message counts; input validation.
#include "sort.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "rica/engine.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using namespace rica::kernels;

rica::RunStats run(const rica::Topology& t, rica::App& app, unsigned threads, bool cycles, std::uint64_t seed = 3) {
  rica::EngineConfig cfg;
  cfg.threads = threads;
  cfg.seed = seed;
  cfg.cycles = 1;  // closed loop: the kernel runs to completion, the window only bounds generate()
  return cycles ? rica::run_cycles(t, app, cfg) : rica::run_async(t, app, cfg);
}

SortConfig config(SortAlgorithm a, std::uint64_t keys, unsigned kpp = 2) {
  SortConfig c;
  c.algorithm = a;
  c.keys = keys;
  c.keys_per_packet = kpp;
  return c;
}

/// Every step pairs ranks symmetrically, and exactly one of a pair keeps the low half.
void expect_symmetric(const CompareSplitSort& s, node_t n) {
  for (std::uint32_t t = 0; t < s.steps(); ++t)
    for (node_t r = 0; r < n; ++r) {
      const auto p = s.pairing(t, r);
      if (p.partner >= n) continue;
      const auto q = s.pairing(t, p.partner);
      ASSERT_EQ(q.partner, r) << "step " << t << " rank " << r;
      EXPECT_NE(q.keep_low, p.keep_low) << "step " << t << " rank " << r;
    }
}

TEST(SortSchedule, BitonicPairsAreSymmetricAndCountLog2NTimesLog2NPlus1Over2) {
  for (const char* spec : {"hypercube:4", "mesh:5x3", "mesh:4x3"}) {
    const rica::Topology t = rica::TopologyRegistry::parse(spec);
    BitonicSort s(config(SortAlgorithm::bitonic, 100));
    rica::Machine m(t, 1);
    s.setup(m);
    const unsigned n = static_cast<unsigned>(std::bit_width(t.pes() - 1));
    EXPECT_EQ(s.steps(), n * (n + 1) / 2) << spec;
    expect_symmetric(s, t.pes());
  }
  // N = 16 (Batcher): every partner differs in one bit, i.e. is a hypercube neighbour.
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:4");
  BitonicSort s(config(SortAlgorithm::bitonic, 100));
  rica::Machine m(t, 1);
  s.setup(m);
  for (std::uint32_t st = 0; st < s.steps(); ++st)
    for (node_t r = 0; r < 16; ++r) EXPECT_EQ(std::popcount(r ^ s.pairing(st, r).partner), 1);
}

TEST(SortSchedule, ShearPhasesAreOddEvenTranspositionOnRowsAndColumns) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x3");
  SortConfig c = config(SortAlgorithm::shear, 100);
  ShearSort s(c);
  rica::Machine m(t, 1);
  s.setup(m);
  // 4x3 grid: ceil(log2 3) = 2 rounds of (row phase 4 steps + column phase 3 steps) + final rows.
  EXPECT_EQ(s.steps(), 2u * (4 + 3) + 4);
  expect_symmetric(s, 12);
  for (std::uint32_t st = 0; st < s.steps(); ++st)
    for (node_t r = 0; r < 12; ++r) {
      const node_t p = s.pairing(st, r).partner;
      if (p == rica::no_node) continue;
      const bool row_neighbour = p / 4 == r / 4 && (p % 4 + 1 == r % 4 || r % 4 + 1 == p % 4);
      const bool column_neighbour = p % 4 == r % 4 && (p / 4 + 1 == r / 4 || r / 4 + 1 == p / 4);
      EXPECT_TRUE(row_neighbour || column_neighbour) << "step " << st << ": " << r << " with " << p;
    }
}

TEST(SortSchedule, SampleSortTreeSpansEveryRankOnce) {
  for (node_t n : {2u, 7u, 16u, 100u}) {
    std::vector<int> seen(n, 0);
    for (node_t r = 0; r < n; ++r)
      for (node_t c : SampleSort::children(r, n)) {
        ASSERT_LT(c, n);
        ++seen[c];
      }
    EXPECT_EQ(seen[0], 0);
    for (node_t r = 1; r < n; ++r) EXPECT_EQ(seen[r], 1) << "n=" << n << " rank " << r;
  }
}

TEST(SortKernel, VerifyRejectsAnUnfinishedRun) {
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:3");
  for (auto a : {SortAlgorithm::bitonic, SortAlgorithm::shear, SortAlgorithm::sample}) {
    auto s = make_sort(config(a, 50), t);
    rica::Machine m(t, 1);
    s->setup(m);
    std::string why;
    EXPECT_FALSE(s->verify(why));
    EXPECT_NE(why.find("did not finish"), std::string::npos) << why;
  }
}

struct Case {
  const char* spec;
  SortAlgorithm algorithm;
  unsigned threads;
  bool cycles;
};

class SortRuns : public ::testing::TestWithParam<Case> {};

// Keys not divisible by the PEs, fewer keys than PEs, and duplicates: verified by the app
// (sorted, permutation, std::sort) and here again, independently, with exact packet accounting.
TEST_P(SortRuns, SortsUnevenTinyAndDuplicateKeys) {
  const Case& k = GetParam();
  const rica::Topology t = rica::TopologyRegistry::parse(k.spec);
  const node_t n = t.pes();
  struct Input {
    std::uint64_t keys;
    KeyDistribution dist;
    unsigned kpp;
    MapKind map;
  };
  for (const Input in : {Input{5 * n + 3, KeyDistribution::uniform, 3, MapKind::identity},
                         Input{n / 2 + 1, KeyDistribution::uniform, 1, MapKind::random},
                         Input{3 * n + 1, KeyDistribution::few, 2, MapKind::embed}}) {
    SortConfig c = config(k.algorithm, in.keys, in.kpp);
    c.distribution = in.dist;
    c.map = in.map;
    auto app = make_sort(c, t);
    const rica::RunStats st = run(t, *app, k.threads, k.cycles);
    const std::string what = std::string(k.spec) + " keys " + std::to_string(in.keys);
    ASSERT_FALSE(st.deadlock) << what << ": " << st.deadlock_report;
    EXPECT_TRUE(st.app_ok) << what << ": " << st.app_message;
    EXPECT_TRUE(st.conservation_ok) << what;
    EXPECT_EQ(st.verify_method, "bitmap") << what;  // max_sends_per_pe() is a true bound
    EXPECT_EQ(st.injected, app->messages()) << what;
    EXPECT_EQ(st.in_network, 0u) << what;
    std::vector<std::uint32_t> expect = sort_input(c, 3);
    std::sort(expect.begin(), expect.end());
    EXPECT_EQ(app->output(), expect) << what;
    std::uint64_t most = 0;
    for (auto s : st.pe_injected) most = std::max(most, s);
    EXPECT_LE(most, app->max_sends_per_pe()) << what;
    if (k.cycles) {
      EXPECT_GE(st.cycles_run, app->finish_time()) << what;
    }
  }
}

std::vector<Case> cases() {
  std::vector<Case> v;
  for (const char* s : {"cccb:n=2", "cb2:n=2", "cbanyan:n=3", "torus:4x4", "torus8:4", "mxx:8", "hypercube:4",
                        "debruijn:4", "mesh:5x3", "omega:3"})
    for (auto a : {SortAlgorithm::bitonic, SortAlgorithm::shear, SortAlgorithm::sample})
      for (unsigned th : {1u, 2u}) v.push_back({s, a, th, false});
  for (const char* s : {"cccb:n=2", "torus:4x4", "hypercube:4", "mesh:5x3"})
    for (auto a : {SortAlgorithm::bitonic, SortAlgorithm::shear, SortAlgorithm::sample})
      for (unsigned th : {1u, 2u}) v.push_back({s, a, th, true});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Topologies, SortRuns, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           std::string s = i.param.spec;
                           for (char& c : s)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return s + "_" + sort_algorithm_name(i.param.algorithm) + "_t" +
                                  std::to_string(i.param.threads) + (i.param.cycles ? "_cycle" : "_async");
                         });

TEST(SortRun, BitonicMessagesAreExact) {
  // N = 16, K = ceil(100 / 16) = 7 keys per block, 3 per packet: 3 packets per step, 10 steps.
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:4");
  auto app = make_sort(config(SortAlgorithm::bitonic, 100, 3), t);
  const rica::RunStats st = run(t, *app, 2, false);
  EXPECT_TRUE(st.app_ok) << st.app_message;
  EXPECT_EQ(st.injected, 16u * 10 * 3);
  EXPECT_EQ(app->max_sends_per_pe(), 10u * 3);
  EXPECT_DOUBLE_EQ(st.hops_mean, 1.0);  // Batcher's partners are cube neighbours
}

TEST(SortRun, PresortedAndReversedInputs) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  for (auto d : {KeyDistribution::sorted, KeyDistribution::reversed})
    for (auto a : {SortAlgorithm::bitonic, SortAlgorithm::shear, SortAlgorithm::sample}) {
      SortConfig c = config(a, 77);
      c.distribution = d;
      auto app = make_sort(c, t);
      const rica::RunStats st = run(t, *app, 1, false);
      EXPECT_TRUE(st.app_ok) << sort_algorithm_name(a) << ": " << st.app_message;
    }
}

TEST(SortRun, CycleEngineIsDeterministicAcrossThreads) {
  const rica::Topology t = rica::TopologyRegistry::parse("cccb:n=2");
  for (auto a : {SortAlgorithm::bitonic, SortAlgorithm::sample}) {
    auto a1 = make_sort(config(a, 300), t);
    auto a2 = make_sort(config(a, 300), t);
    const rica::RunStats s1 = run(t, *a1, 1, true), s2 = run(t, *a2, 2, true);
    EXPECT_TRUE(s1.app_ok && s2.app_ok);
    EXPECT_EQ(s1.cycles_run, s2.cycles_run);
    EXPECT_EQ(a1->finish_time(), a2->finish_time());
    EXPECT_EQ(s1.latency_mean, s2.latency_mean);
    EXPECT_EQ(s1.hop_histogram, s2.hop_histogram);
  }
}

TEST(SortRun, ShearSortOnAGivenGridAndKeysFromAFile) {
  const std::string path = ::testing::TempDir() + "rica_sort_keys.txt";
  {
    std::ofstream f(path);
    f << "5 3 4294967295 0\n17 17 2\n\n  9 1 4294967295\n";
  }
  SortConfig c = config(SortAlgorithm::shear, 0);
  c.file = path;
  c.file_keys = std::make_shared<const std::vector<std::uint32_t>>(read_keys(path));
  c.pgrid = {2, 8};
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:4");
  auto app = make_sort(c, t);
  const rica::RunStats st = run(t, *app, 2, false);
  EXPECT_TRUE(st.app_ok) << st.app_message;
  EXPECT_EQ(app->output(), (std::vector<std::uint32_t>{0, 1, 2, 3, 5, 9, 17, 17, 4294967295u, 4294967295u}));
  std::remove(path.c_str());
}

TEST(SortConfig, BadInputIsAUsageErrorNamingTheParameter) {
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  auto expect_error = [&](SortConfig c, const std::string& needle) {
    try {
      (void)make_sort(c, t);
      ADD_FAILURE() << "no error, expected: " << needle;
    } catch (const rica::usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error(config(SortAlgorithm::bitonic, 0), "keys = 0");
  expect_error(config(SortAlgorithm::sample, 100, 4), "keys-per-packet");
  expect_error(config(SortAlgorithm::sample, 100, 0), "keys-per-packet");
  SortConfig grid = config(SortAlgorithm::shear, 100);
  grid.pgrid = {3, 5};
  expect_error(grid, "process grid 3x5");
  grid.algorithm = SortAlgorithm::bitonic;
  expect_error(grid, "shear sort only");
  expect_error(config(SortAlgorithm::bitonic, 4'000'000'000ULL), "limit");
  EXPECT_THROW(parse_sort_algorithm("quick", "sort"), rica::usage_error);
  EXPECT_THROW(parse_map("diagonal", "sort"), rica::usage_error);
  EXPECT_THROW(parse_distribution("gauss", "sort"), rica::usage_error);
  EXPECT_THROW(read_keys("/nonexistent/keys.txt"), rica::usage_error);
  const std::string path = ::testing::TempDir() + "rica_bad_keys.txt";
  for (const char* body : {"1 2 x3\n", "4294967296\n", "-1\n", "  \n\n"}) {
    std::ofstream(path) << body;
    EXPECT_THROW(read_keys(path), rica::usage_error) << body;
  }
  std::remove(path.c_str());
}

}  // namespace
