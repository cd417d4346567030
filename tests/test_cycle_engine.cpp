// The cycle engine: the same machine on a synchronous virtual clock. Deterministic for any thread
// count, zero-load latency by the timing model (virtual cut-through or store-and-forward), deadlock detection,
// and the same delivered packet set as the async engine for a closed workload.
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>

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

// Under a caller's own oneTBB limit of one thread the stepping crew gets no helper: the run ends
// (the main thread steps every chunk) with the same results as one thread.
TEST(CycleEngine, TwoThreadsUnderACallersLimitOfOneThreadEnd) {
  const auto a = run("torus:16x16", "uniform", 1, 0.05, 800, "");
  RunStats b;
  {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, 1);
    b = run("torus:16x16", "uniform", 2, 0.05, 800, "");
  }
  EXPECT_EQ(a.delivered, b.delivered);
  EXPECT_EQ(a.cycles_run, b.cycles_run);
  EXPECT_DOUBLE_EQ(a.latency_mean, b.latency_mean);
  EXPECT_TRUE(b.conservation_ok && !b.deadlock);
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

// Zero-load latency per packet against the timing model, recomputed here independently from the
// topology's routes: over each hop of L cycles (the sender's in+out degree, the packet's words, or
// a fixed N), virtual cut-through moves the head on after ceil(L / w) cycles and the tail follows
// L cycles after the head left (never sooner than one word time after it reached the previous
// node); delivery when the tail arrives. Store-and-forward: H x L. At 0.1% load almost every
// packet meets the formula exactly, and none beats it.
struct TimingCase {
  const char* spec;
  const char* link;  // "degree", "words" or a number
  unsigned words, spread;
};

void check_zero_load(const TimingCase& c, Timing timing) {
  const Topology t = TopologyRegistry::parse(c.spec);
  TrafficOptions opt;
  opt.rate = 0.001;
  opt.packets = 30000;
  auto app = TrafficRegistry::make("uniform", t, opt);
  EngineConfig cfg;
  cfg.threads = 2;
  cfg.cycles = 30000;
  cfg.trace = tmp("vct");
  cfg.timing = timing;
  cfg.packet_words = c.words;
  cfg.packet_spread = c.spread;
  const std::string link = c.link;
  if (link == "words") cfg.link_cycles_words = true;
  else if (link != "degree") cfg.link_cycles = static_cast<unsigned>(std::stoul(link));
  const RunStats st = run_cycles(t, *app, cfg);
  ASSERT_TRUE(st.conservation_ok) << c.spec;
  std::vector<unsigned> degree(t.nodes(), 0);  // in + out degree, counted here from out_link
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p)
      if (const Link l = t.out_link(v, p); l.present()) ++degree[v], ++degree[l.peer];
  std::ifstream f(cfg.trace);
  std::string line;
  std::getline(f, line);
  ASSERT_EQ(line, "src,dst,seq,inject,deliver,hops,enter,words");
  std::size_t rows = 0, exact = 0, unequal = 0;
  while (std::getline(f, line)) {
    unsigned src, dst, seq, hops, words;
    unsigned long long inject, deliver, enter;
    ASSERT_EQ(std::sscanf(line.c_str(), "%u,%u,%u,%llu,%llu,%u,%llu,%u", &src, &dst, &seq, &inject, &deliver, &hops,
                          &enter, &words), 8);
    std::uint64_t head = 0, tail = 0;  // relative to the cycle the packet entered the network
    unsigned first_len = 0;
    class_t cls = 0;
    for (node_t cur = src; cur != dst;) {
      const Hop h = t.route(cur, dst, cls);
      const unsigned len = link == "words" ? words : link == "degree" ? std::max(1u, degree[cur]) : cfg.link_cycles;
      if (!first_len) first_len = len;
      unequal += len != first_len;
      const std::uint64_t step = timing == Timing::vct ? (len + words - 1) / words : len;
      const std::uint64_t left = head;
      head = left + step;
      tail = std::max(left + len, tail + step);
      cls = h.next_class();
      cur = t.out_link(cur, h.port()).peer;
    }
    ASSERT_GE(deliver - enter, tail) << c.spec << ": faster than the timing model allows";
    exact += deliver - enter == tail && enter == inject;
    ++rows;
  }
  ASSERT_GT(rows, 200u) << c.spec;
  EXPECT_GE(exact * 10, rows * 9) << c.spec << " " << to_string(timing) << ": at 0.1% load almost no packet waits";
  if (link == "degree") {
    EXPECT_GT(unequal, 0u) << c.spec << ": the routes should cross unequal links";
  }
}

TEST(CycleEngine, ZeroLoadLatencyFollowsTheTimingModel) {
  const TimingCase cases[] = {{"mesh:8x8", "degree", 3, 0}, {"mesh:6x6", "degree", 2, 1},
                              {"torus:8x8", "words", 3, 1}, {"cccb:n=3", "5", 3, 1}, {"cccb:n=3", "4", 4, 0}};
  for (const TimingCase& c : cases)
    for (Timing timing : {Timing::vct, Timing::saf}) check_zero_load(c, timing);
}

TEST(CycleEngine, CutThroughZeroLoadIsHopsTimesHeadTimePlusLinkTime) {
  // Equal links, fixed length: the closed form (H - 1) ceil(L / w) + L, and H L for saf.
  for (Timing timing : {Timing::vct, Timing::saf}) {
    const auto st = [&] {
      const Topology t = TopologyRegistry::parse("torus:8x8");
      TrafficOptions opt;
      opt.rate = 0.001;
      opt.packets = 20000;
      auto app = TrafficRegistry::make("uniform", t, opt);
      EngineConfig cfg;
      cfg.threads = 1;
      cfg.cycles = 20000;
      cfg.trace = tmp("closed");
      cfg.timing = timing;
      cfg.packet_words = 4;
      cfg.packet_spread = 0;
      cfg.link_cycles = 6;
      return run_cycles(t, *app, cfg);
    }();
    ASSERT_TRUE(st.conservation_ok);
    std::ifstream f(tmp("closed"));
    std::string line;
    std::getline(f, line);
    std::size_t rows = 0, exact = 0;
    while (std::getline(f, line)) {
      unsigned src, dst, seq, hops;
      unsigned long long inject, deliver;
      ASSERT_EQ(std::sscanf(line.c_str(), "%u,%u,%u,%llu,%llu,%u", &src, &dst, &seq, &inject, &deliver, &hops), 6);
      const std::uint64_t expect = timing == Timing::vct ? (hops - 1) * 2u + 6u : hops * 6u;
      ASSERT_GE(deliver - inject, expect);
      exact += deliver - inject == expect;
      ++rows;
    }
    ASSERT_GT(rows, 200u);
    EXPECT_GE(exact * 10, rows * 9) << to_string(timing);
  }
}

// Regression (issue 11, item 9): round-robin arbitration per output port starved some inputs
// deep in saturation (packets waiting until the window closed, max latency 10x the mean); oldest
// first (the default) serves every packet in bounded time and accepts at least as much.
TEST(CycleEngine, OldestFirstArbitrationEndsStarvationAtSaturation) {
  auto saturate = [](Arbitration a) {
    const Topology t = TopologyRegistry::parse("torus:16x16");
    TrafficOptions opt;
    opt.rate = 1.0;
    opt.packets = 4000;
    auto app = TrafficRegistry::make("uniform", t, opt);
    EngineConfig cfg;
    cfg.threads = 2;
    cfg.cycles = 4000;
    cfg.arbitration = a;
    return run_cycles(t, *app, cfg);
  };
  const RunStats rr = saturate(Arbitration::round_robin), old = saturate(Arbitration::oldest);
  ASSERT_TRUE(rr.conservation_ok && old.conservation_ok);
  std::printf("  round robin: mean %.0f max %.0f accepted %.4f | oldest: mean %.0f p99.9 %.0f max %.0f accepted %.4f\n",
              rr.latency_mean, rr.latency_max, rr.throughput, old.latency_mean, old.latency_p999, old.latency_max,
              old.throughput);
  EXPECT_GT(rr.latency_max, 5 * rr.latency_mean) << "round robin should starve some packets here";
  EXPECT_LT(old.latency_max, 4 * old.latency_mean) << "oldest first should not";
  EXPECT_LT(old.latency_max, rr.latency_max / 2);
  EXPECT_GE(old.throughput, 0.98 * rr.throughput);
  EXPECT_EQ(EngineConfig{}.arbitration, Arbitration::oldest);
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

namespace rica {
namespace {

/// The open-loop generator without look-ahead: one draw per opportunity, as OpenLoopTraffic did
/// before it drew ahead and let idle PEs sleep (its default path: no bursts, a source-queue bound).
class NaiveUniform : public App {
 public:
  NaiveUniform(const Topology& t, double rate, std::uint64_t packets, unsigned source_queue)
      : pattern_(traffic::Uniform(traffic::PeSpace::of(t))), rate_(rate), packets_(packets), sq_(source_queue) {}
  void setup(Machine& m) override {
    handler_ = m.add_handler([](Context&, const Packet&) {});
    sent_.assign(m.pes(), 0);
  }
  bool generate(Context& ctx) override {
    std::uint64_t& sent = sent_[ctx.pe()];
    if (sent >= packets_) return false;
    if ((sq_ == 0 || ctx.backlog() < sq_) && ctx.rng().uniform() < rate_) {
      ctx.send(traffic::destination(pattern_, ctx.pe(), ctx.rng()), handler_);
      ++sent;
    }
    return sent < packets_;
  }

 private:
  traffic::Pattern pattern_;
  double rate_;
  std::uint64_t packets_;
  unsigned sq_;
  handler_t handler_ = 0;
  std::vector<std::uint64_t> sent_;
};

// Regression (issue 10, idle generators cost nothing): the generator's look-ahead and the cycle
// driver's sleeping PEs change no packet's route or timing — the same stream of draws, the same
// round-robin positions — at loads where PEs sleep often and where they rarely do, with quotas
// running out, a source-queue bound, a warm-up and a window end.
TEST(CycleEngine, SleepingGeneratorsGiveTheSameRunAsOneDrawPerCycle) {
  struct Case {
    const char* spec;
    double rate;
    std::uint64_t packets, cycles;
    unsigned sq, threads;
  };
  for (const Case& c : {Case{"torus:8x8", 0.003, 1000, 6000, 8, 1}, Case{"torus:16x16", 0.05, 30, 3000, 8, 2},
                        Case{"cccb:n=3", 0.01, 1000, 4000, 1, 2}, Case{"fattree:5", 0.3, 1000, 800, 0, 1},
                        Case{"mxx:16", 0.002, 5, 20000, 8, 2}}) {
    const Topology t = TopologyRegistry::parse(c.spec);
    TrafficOptions opt;
    opt.rate = c.rate;
    opt.packets = c.packets;
    opt.source_queue = c.sq;
    auto lookahead = TrafficRegistry::make("uniform", t, opt);
    NaiveUniform naive(t, c.rate, c.packets, c.sq);
    EngineConfig cfg;
    cfg.threads = c.threads;
    cfg.cycles = c.cycles;
    cfg.warmup = c.cycles / 10;
    for (const Arbitration arb : {Arbitration::oldest, Arbitration::round_robin}) {  // rr: positions matter
      cfg.arbitration = arb;
      cfg.trace = tmp("sleep_a");
      const RunStats a = run_cycles(t, *lookahead, cfg);
      cfg.trace = tmp("sleep_b");
      const RunStats b = run_cycles(t, naive, cfg);
      const std::string ta = slurp(tmp("sleep_a"));
      EXPECT_GT(ta.size(), 100u) << c.spec;
      EXPECT_EQ(ta, slurp(tmp("sleep_b"))) << c.spec << " rate " << c.rate << " " << to_string(arb);
      EXPECT_EQ(a.cycles_run, b.cycles_run) << c.spec;
      EXPECT_EQ(a.delivered, b.delivered) << c.spec;
      EXPECT_TRUE(a.conservation_ok && b.conservation_ok) << c.spec;
    }
  }
}

}  // namespace
}  // namespace rica
