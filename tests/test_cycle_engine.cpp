// The cycle engine: the same machine on a synchronous virtual clock. Deterministic for any thread
// count, zero-load latency by the timing model (virtual cut-through or store-and-forward), deadlock detection,
// and the same delivered packet set as the async engine for a closed workload.
#include <gtest/gtest.h>
#include <oneapi/tbb/global_control.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
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

/// Trace replay without look-ahead: one generate() call per cycle, sending each row once its time
/// has come (TraceReplay before it skipped the calls up to its next row's time). Its PEs never
/// sleep, so the cycle driver steps every cycle: the reference for the idle-time skip.
class NaiveTrace : public App {
 public:
  struct Row {
    std::uint64_t time;
    node_t src, dst;
  };
  NaiveTrace(node_t pes, const std::vector<Row>& rows) : per_pe_(pes) {
    for (const Row& r : rows) per_pe_[r.src].push_back(r);
  }
  void setup(Machine& m) override {
    handler_ = m.add_handler([](Context&, const Packet&) {});
    next_.assign(m.pes(), 0);
  }
  bool generate(Context& ctx) override {
    const auto& v = per_pe_[ctx.pe()];
    std::size_t& i = next_[ctx.pe()];
    for (; i < v.size() && v[i].time <= ctx.now(); ++i) ctx.send(v[i].dst, handler_);
    return i < v.size();
  }

 private:
  std::vector<std::vector<Row>> per_pe_;
  std::vector<std::size_t> next_;
  handler_t handler_ = 0;
};

/// Bursts of rows separated by gaps of every scale: a few cycles, thousands, and longer than the
/// livelock guard's 200,000 cycles. Sorted by time.
std::vector<NaiveTrace::Row> gappy_trace(node_t pes, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::vector<NaiveTrace::Row> rows;
  std::uint64_t t = g() % 100;
  for (int burst = 0; burst < 7; ++burst) {
    const unsigned n = 1 + static_cast<unsigned>(g() % 12);
    for (unsigned k = 0; k < n; ++k) {
      const auto src = static_cast<node_t>(g() % pes);
      const auto dst = static_cast<node_t>((src + 1 + g() % (pes - 1)) % pes);
      rows.push_back({t + g() % 40, src, dst});
    }
    const std::uint64_t scale = burst == 2 ? 2 : g() % 3;  // at least one gap past the guard
    t += scale == 0 ? 1 + g() % 60 : scale == 1 ? 1000 + g() % 9000 : 200001 + g() % 300000;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return rows;
}

// Regression (issue 28): the livelock guard counted idle cycles, so a packet injected after more
// than 200,000 quiet cycles stopped a valid run as a "livelock" (exit 3). Property, over random
// traces with long gaps on several families, both timing models and thread counts: never a
// deadlock or livelock, every packet delivered; and the replay that skips to its next row (its
// PEs sleep, the driver jumps over idle stretches) gives the same per-packet trace and cycle
// count as stepping every cycle.
TEST(CycleEngine, TracesWithLongGapsAreNeverALivelockAndIdleJumpsChangeNothing) {
  struct Case {
    const char* spec;
    Timing timing;
    unsigned threads;
  };
  std::uint64_t seed = 1;
  for (const Case& c : {Case{"torus:4x4", Timing::vct, 1}, Case{"mesh:3x5", Timing::saf, 2},
                        Case{"omega:3", Timing::vct, 2}, Case{"hypercube:3", Timing::vct, 1},
                        Case{"cccb:n=2", Timing::saf, 1}}) {
    const Topology t = TopologyRegistry::parse(c.spec);
    const auto rows = gappy_trace(t.pes(), seed++);
    const std::string path = tmp("gappy");
    {
      std::ofstream f(path);
      f << "time,src,dst\n";
      for (const auto& r : rows) f << r.time << ',' << r.src << ',' << r.dst << '\n';
    }
    TrafficOptions opt;
    auto replay = TrafficRegistry::make("trace:" + path, t, opt);
    NaiveTrace naive(t.pes(), rows);
    EngineConfig cfg;
    cfg.threads = c.threads;
    cfg.timing = c.timing;
    cfg.cycles = rows.back().time + 1;
    cfg.trace = tmp("gappy_a");
    const RunStats a = run_cycles(t, *replay, cfg);
    cfg.trace = tmp("gappy_b");
    const RunStats b = run_cycles(t, naive, cfg);
    for (const RunStats* s : {&a, &b}) {
      EXPECT_FALSE(s->deadlock) << c.spec << ": " << s->deadlock_report;
      EXPECT_TRUE(s->conservation_ok && s->app_ok) << c.spec << ": " << s->app_message;
      EXPECT_EQ(s->delivered, rows.size()) << c.spec;
    }
    EXPECT_EQ(slurp(tmp("gappy_a")), slurp(tmp("gappy_b"))) << c.spec;
    EXPECT_EQ(a.cycles_run, b.cycles_run) << c.spec;
    EXPECT_GT(a.cycles_skipped, 200000u) << c.spec << ": the replay's idle stretches are jumped over";
    EXPECT_EQ(b.cycles_skipped, 0u) << c.spec << ": PEs that never sleep leave nothing to jump";
  }
}

// Regression (issue 28): a trace whose only row is at cycle 2^31 - 1 ran for about ten minutes
// of empty cycles; the driver now jumps to it.
TEST(CycleEngine, AnInjectionAtCycleTwoToThe31IsReachedByOneJump) {
  const Topology t = TopologyRegistry::parse("torus:4x4");
  const std::string path = tmp("late");
  std::ofstream(path) << "time,src,dst,words\n2147483647,0,5,3\n";
  TrafficOptions opt;
  auto replay = TrafficRegistry::make("trace:" + path, t, opt);
  EngineConfig cfg;
  cfg.cycles = std::uint64_t{1} << 31;
  const RunStats s = run_cycles(t, *replay, cfg);
  EXPECT_TRUE(s.conservation_ok && s.app_ok && !s.deadlock) << s.deadlock_report;
  EXPECT_EQ(s.delivered, 1u);
  EXPECT_GE(s.cycles_run, std::uint64_t{1} << 31);
  EXPECT_GT(s.cycles_skipped, (std::uint64_t{1} << 31) - 100);
}

/// An on/off source without look-ahead: one switch draw per opportunity (OpenLoopTraffic's bursts
/// before an off period was drawn ahead), then the rate draw while on.
class NaiveBursts : public App {
 public:
  NaiveBursts(const Topology& t, double rate, std::uint64_t packets, double on, double off)
      : pattern_(traffic::Uniform(traffic::PeSpace::of(t))), rate_(rate), packets_(packets), p_on_off_(1 / on),
        p_off_on_(1 / off), start_on_(on / (on + off)) {}
  void setup(Machine& m) override {
    handler_ = m.add_handler([](Context&, const Packet&) {});
    sent_.assign(m.pes(), 0);
    on_.assign(m.pes(), 2);
  }
  bool generate(Context& ctx) override {
    std::uint64_t& sent = sent_[ctx.pe()];
    if (sent >= packets_) return false;
    std::uint8_t& on = on_[ctx.pe()];
    if (on == 2)
      on = ctx.rng().uniform() < start_on_;
    else if (ctx.rng().uniform() < (on ? p_on_off_ : p_off_on_))
      on = !on;
    if (!on) return true;
    if ((ctx.backlog() < 8) && (rate_ >= 1.0 || ctx.rng().uniform() < rate_)) {
      ctx.send(traffic::destination(pattern_, ctx.pe(), ctx.rng()), handler_);
      ++sent;
    }
    return sent < packets_;
  }

 private:
  traffic::Pattern pattern_;
  double rate_;
  std::uint64_t packets_;
  double p_on_off_, p_off_on_, start_on_;
  handler_t handler_ = 0;
  std::vector<std::uint64_t> sent_;
  std::vector<std::uint8_t> on_;
};

// Regression (issue 28): bursty sources with off periods longer than the livelock guard
// (`rica run torus:2x2 --engine cycle --burst 1:600000 --rate 1 --cycles 3000000`) were stopped
// as a livelock. Off periods are now drawn ahead (the same draws, in the same order) and idle
// stretches jumped over: the same run as one draw per cycle, and the documented example verified.
TEST(CycleEngine, BurstySourcesWithLongOffPeriodsRunAsOneDrawPerCycle) {
  for (const char* spec : {"torus:4x4", "cccb:n=2"}) {
    const Topology t = TopologyRegistry::parse(spec);
    TrafficOptions opt;
    opt.rate = 0.5;
    opt.packets = 40;
    opt.source_queue = 8;
    opt.burst_on = 20;
    opt.burst_off = 30000;
    auto bursts = TrafficRegistry::make("uniform", t, opt);
    NaiveBursts naive(t, opt.rate, opt.packets, opt.burst_on, opt.burst_off);
    EngineConfig cfg;
    cfg.threads = 2;
    cfg.cycles = 300000;
    cfg.trace = tmp("burst_a");
    const RunStats a = run_cycles(t, *bursts, cfg);
    cfg.trace = tmp("burst_b");
    const RunStats b = run_cycles(t, naive, cfg);
    EXPECT_GT(a.delivered, 10u) << spec;
    EXPECT_EQ(slurp(tmp("burst_a")), slurp(tmp("burst_b"))) << spec;
    EXPECT_EQ(a.cycles_run, b.cycles_run) << spec;
    EXPECT_TRUE(a.conservation_ok && b.conservation_ok && !a.deadlock && !b.deadlock) << spec;
  }
  const Topology t = TopologyRegistry::parse("torus:2x2");
  TrafficOptions opt;
  opt.rate = 1;
  opt.packets = 3000000;
  opt.burst_on = 1;
  opt.burst_off = 600000;
  for (std::uint64_t seed : {1, 2, 3}) {
    auto bursts = TrafficRegistry::make("uniform", t, opt);
    EngineConfig cfg;
    cfg.seed = seed;
    cfg.cycles = 3000000;
    const RunStats s = run_cycles(t, *bursts, cfg);
    EXPECT_FALSE(s.deadlock) << "seed " << seed << ": " << s.deadlock_report;
    EXPECT_TRUE(s.conservation_ok && s.app_ok) << "seed " << seed;
  }
}

}  // namespace
}  // namespace rica
