// The cycle engine: the same machine on a synchronous virtual clock. Deterministic for any thread
// count, zero-load latency equal to the routed distance times the link time, deadlock detection,
// and the same delivered packet set as the async engine for a closed workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string tmp(const std::string& name) { return ::testing::TempDir() + "rica_" + name + ".csv"; }

RunStats run(const std::string& spec, const std::string& traffic, unsigned threads, double rate, std::uint64_t cycles,
             const std::string& trace, unsigned link_cycles = 0, bool async = false) {
  const Topology t = TopologyRegistry::parse(spec);
  TrafficOptions opt;
  opt.rate = rate;
  opt.packets = traffic == "mesh" ? 40 : cycles;
  auto app = TrafficRegistry::make(traffic, t, opt);
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.cycles = cycles;
  cfg.trace = trace;
  cfg.link_cycles = link_cycles;
  return async ? run_async(t, *app, cfg) : run_cycles(t, *app, cfg);
}

TEST(CycleEngine, IdenticalPerPacketResultsForOneAndTwoThreadsAndAcrossRuns) {
  for (const char* spec : {"cccb:n=3", "torus:8x8", "mxx:16", "fattree:4", "debruijn:5"}) {
    for (const char* traffic : {"uniform", "hotspot", "mesh"}) {
      if (std::string(traffic) == "mesh" && (std::string(spec) == "cccb:n=3" || std::string(spec) == "debruijn:5"))
        continue;  // 96 and 32 PEs are not squares
      const auto a = run(spec, traffic, 1, 0.2, 600, tmp("a"));
      const auto b = run(spec, traffic, 2, 0.2, 600, tmp("b"));
      const auto c = run(spec, traffic, 2, 0.2, 600, tmp("c"));
      const std::string ta = slurp(tmp("a"));
      EXPECT_GT(ta.size(), 100u) << spec << " " << traffic;
      EXPECT_EQ(ta, slurp(tmp("b"))) << spec << " " << traffic << ": 1 vs 2 threads";
      EXPECT_EQ(ta, slurp(tmp("c"))) << spec << " " << traffic << ": two runs";
      EXPECT_EQ(a.delivered, b.delivered);
      EXPECT_EQ(a.cycles_run, b.cycles_run);
      EXPECT_DOUBLE_EQ(a.latency_mean, c.latency_mean);
      EXPECT_TRUE(a.conservation_ok && b.conservation_ok) << spec << " " << traffic;
      EXPECT_TRUE(a.app_ok) << spec << " " << traffic << ": " << a.app_message;
    }
  }
}

TEST(CycleEngine, ZeroLoadLatencyIsRoutedDistanceTimesLinkTime) {
  for (const char* spec : {"torus:8x8", "cccb:n=3", "hypercube:6"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const unsigned link = 3;
    const auto st = run(spec, "uniform", 2, 0.001, 20000, tmp("z"), link);
    ASSERT_TRUE(st.conservation_ok);
    std::ifstream f(tmp("z"));
    std::string line;
    std::getline(f, line);  // header
    std::size_t rows = 0, uncontended = 0;
    while (std::getline(f, line)) {
      unsigned src, dst, seq, hops;
      unsigned long long inject, deliver;
      ASSERT_EQ(std::sscanf(line.c_str(), "%u,%u,%u,%llu,%llu,%u", &src, &dst, &seq, &inject, &deliver, &hops), 6);
      // Independent: the route length by following the topology's routing.
      unsigned routed = 0;
      for (node_t cur = src; cur != dst; ++routed) cur = t.out_link(cur, t.route(cur, dst, 0).port()).peer;
      EXPECT_EQ(hops, routed) << spec;
      EXPECT_GE(deliver - inject, std::uint64_t{hops} * link) << spec;  // never faster than the links
      uncontended += deliver - inject == std::uint64_t{hops} * link;
      ++rows;
    }
    ASSERT_GT(rows, 50u);
    EXPECT_GE(uncontended * 10, rows * 9) << spec << ": at 0.1% load almost no packet waits";
  }
}

TEST(CycleEngine, DeadlockWithoutClassesIsDetected) {
  const Topology t = TopologyRegistry::parse("torus:16");
  TrafficOptions opt;
  opt.packets = 50;
  auto app = TrafficRegistry::make("tornado", t, opt);
  EngineConfig cfg;
  cfg.threads = 2;
  cfg.classes = false;
  cfg.buffer_words = 3;
  cfg.packet_words = 3;
  cfg.packet_spread = 0;
  cfg.cycles = 500;
  cfg.link_cycles = 1;
  const RunStats st = run_cycles(t, *app, cfg);
  ASSERT_TRUE(st.deadlock);
  EXPECT_NE(st.deadlock_report.find("waiting cycle:"), std::string::npos) << st.deadlock_report;
  EXPECT_EQ(st.injected, st.delivered + st.in_network);
}

TEST(CycleEngine, SameDeliveredPacketSetAsTheAsyncEngineForAClosedWorkload) {
  for (const char* spec : {"torus:8x8", "mxx:16"}) {
    const auto cyc = run(spec, "mesh", 2, 1.0, 100, tmp("cyc"));
    const auto asy = run(spec, "mesh", 2, 1.0, 100, tmp("asy"), 0, true);
    EXPECT_TRUE(cyc.app_ok && asy.app_ok) << spec;
    auto packets = [](const std::string& path) {
      std::set<std::tuple<unsigned, unsigned, unsigned>> s;
      std::ifstream f(path);
      std::string line;
      std::getline(f, line);
      while (std::getline(f, line)) {
        unsigned src, dst, seq;
        std::sscanf(line.c_str(), "%u,%u,%u", &src, &dst, &seq);
        s.emplace(src, dst, seq);
      }
      return s;
    };
    const auto a = packets(tmp("cyc")), b = packets(tmp("asy"));
    EXPECT_EQ(a.size(), cyc.delivered) << spec;
    EXPECT_GT(a.size(), 64u * 4) << spec;
    EXPECT_EQ(a, b) << spec;
  }
}

}  // namespace
}  // namespace rica
