// The observer seam (rica/observer.hpp): windows are contiguous and cover the run, the views are
// exact (their figures at the end equal the run's own), observing changes nothing, the views are
// identical for 1 and 2 threads, idle stretches the engine jumps over join a window, and bad
// observers are refused with a usage_error.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "rica/engine.hpp"
#include "rica/observer.hpp"
#include "traffic.hpp"

namespace {

using rica::node_t;
using rica::port_t;

/// Records every window: its bounds and the machine's figures at its end.
struct Recorder : rica::Observer {
  explicit Recorder(std::uint64_t w) : rica::Observer(w) {}
  struct Row {
    std::uint64_t begin, end, delivered, hops, link_sum, occupancy, injected, now;
  };
  std::vector<Row> rows;
  int starts = 0, ends = 0;
  std::uint64_t end_delivered = 0, end_link_sum = 0, end_injected = 0;
  static std::uint64_t link_sum(const rica::MachineView& v) {
    std::uint64_t s = 0;
    for (node_t n = 0; n < v.nodes(); ++n)
      for (port_t p = 0; p < v.ports(); ++p) s += v.link_packets(n, p);
    return s;
  }
  static std::uint64_t injected(const rica::MachineView& v) {
    std::uint64_t s = 0;
    for (node_t n = 0; n < v.pes(); ++n) s += v.injected(n);
    return s;
  }
  void on_start(const rica::MachineView& v) override {
    ++starts;
    EXPECT_EQ(v.now(), 0u);
    EXPECT_EQ(v.totals().delivered, 0u);
  }
  void on_window(const rica::MachineView& v, std::uint64_t b, std::uint64_t e) override {
    std::uint64_t occ = 0;
    for (node_t n = 0; n < v.nodes(); ++n)
      for (port_t q = 0; q < v.ports(); ++q)
        for (rica::class_t c = 0; c < v.classes(); ++c) occ += v.buffer_words(n, q, c);
    rows.push_back({b, e, v.totals().delivered, v.totals().hops, link_sum(v), occ, injected(v), v.now()});
  }
  void on_end(const rica::MachineView& v) override {
    ++ends;
    end_delivered = v.totals().delivered;
    end_link_sum = link_sum(v);
    end_injected = injected(v);
  }
};

rica::RunStats run_uniform(const char* spec, double rate, unsigned threads, std::vector<rica::Observer*> obs,
                           rica::EngineKind engine = rica::EngineKind::cycle, std::uint64_t packets = 40) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  rica::TrafficOptions opt;
  opt.rate = rate;
  opt.packets = packets;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  rica::EngineConfig cfg;
  cfg.engine = engine;
  cfg.threads = threads;
  cfg.cycles = 100000;
  return rica::run(topo, *app, cfg, obs);
}

TEST(Observer, WindowsAreContiguousAndExact) {
  Recorder r(100);
  const rica::RunStats st = run_uniform("torus:4x4", 0.05, 2, {&r});
  ASSERT_TRUE(st.conservation_ok);
  EXPECT_EQ(r.starts, 1);
  EXPECT_EQ(r.ends, 1);
  ASSERT_FALSE(r.rows.empty());
  EXPECT_EQ(r.rows.front().begin, 0u);
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& w = r.rows[i];
    EXPECT_LT(w.begin, w.end);
    EXPECT_EQ(w.now, w.end);
    if (i) { EXPECT_EQ(w.begin, r.rows[i - 1].end) << "window " << i; }
    if (i + 1 < r.rows.size()) { EXPECT_EQ(w.end % 100, 0u); }  // all but the last end on a boundary
    if (i + 1 < r.rows.size() && st.cycles_skipped == 0) { EXPECT_EQ(w.end - w.begin, 100u); }
    if (i) {  // cumulative figures never fall
      EXPECT_GE(w.delivered, r.rows[i - 1].delivered);
      EXPECT_GE(w.link_sum, r.rows[i - 1].link_sum);
    }
  }
  EXPECT_EQ(r.rows.back().end, st.cycles_run);
  // At the end the views' figures are the run's own.
  EXPECT_EQ(r.rows.back().delivered, st.delivered);
  EXPECT_EQ(r.rows.back().hops, st.hops);
  EXPECT_EQ(r.rows.back().occupancy, 0u);  // drained
  EXPECT_EQ(r.end_delivered, st.delivered);
  EXPECT_EQ(r.end_link_sum, std::accumulate(st.link_packets.begin(), st.link_packets.end(), std::uint64_t{0}));
  EXPECT_EQ(r.end_injected, st.injected);
  EXPECT_EQ(r.end_link_sum, st.hops);
  // Something was in the buffers at some boundary (the views read live state, not zeros).
  std::uint64_t occ = 0;
  for (const auto& w : r.rows) occ = std::max(occ, w.occupancy);
  EXPECT_GT(occ, 0u);
}

TEST(Observer, ObservingChangesNothingAndIsIdenticalForAnyThreadCount) {
  const rica::RunStats plain = run_uniform("torus:4x4", 0.2, 1, {});
  Recorder a(37), b(37), c(500);
  const rica::RunStats one = run_uniform("torus:4x4", 0.2, 1, {&a, &c});
  const rica::RunStats two = run_uniform("torus:4x4", 0.2, 2, {&b});
  for (const rica::RunStats* s : {&one, &two}) {
    EXPECT_EQ(s->delivered, plain.delivered);
    EXPECT_EQ(s->hops, plain.hops);
    EXPECT_EQ(s->cycles_run, plain.cycles_run);
    EXPECT_EQ(s->latency_mean, plain.latency_mean);
    EXPECT_EQ(s->link_packets, plain.link_packets);
  }
  ASSERT_EQ(a.rows.size(), b.rows.size());
  for (std::size_t i = 0; i < a.rows.size(); ++i) {
    EXPECT_EQ(a.rows[i].end, b.rows[i].end);
    EXPECT_EQ(a.rows[i].delivered, b.rows[i].delivered) << "window " << i;
    EXPECT_EQ(a.rows[i].occupancy, b.rows[i].occupancy) << "window " << i;
    EXPECT_EQ(a.rows[i].link_sum, b.rows[i].link_sum) << "window " << i;
  }
  // Two observers with different windows each get their own.
  EXPECT_EQ(c.rows.back().end, one.cycles_run);
  EXPECT_EQ(c.rows.size(), (one.cycles_run + 499) / 500);
}

TEST(Observer, IdleStretchesJumpedOverJoinAWindow) {
  // Bursty sources with long off periods: the engine jumps over the idle stretches.
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:2x2");
  rica::TrafficOptions opt;
  opt.rate = 1;
  opt.packets = 50;
  opt.burst_on = 1;
  opt.burst_off = 20000;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({4}), opt);
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.cycles = 400000;
  Recorder r(1000);
  const rica::RunStats st = rica::run(topo, *app, cfg, std::vector<rica::Observer*>{&r});
  ASSERT_TRUE(st.conservation_ok);
  ASSERT_GT(st.cycles_skipped, 0u);
  bool longer = false;
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    if (i) { EXPECT_EQ(r.rows[i].begin, r.rows[i - 1].end); }
    longer = longer || r.rows[i].end - r.rows[i].begin > 1000;
  }
  EXPECT_TRUE(longer);  // at least one idle stretch was reported as one window
  EXPECT_EQ(r.rows.back().end, st.cycles_run);
  EXPECT_EQ(r.rows.back().delivered, st.delivered);
}

// The async engine's windows (microseconds; the world stopped at each end): contiguous from 0,
// each but the last at least the window long, cumulative figures never falling, the last equal
// to the run's own. Run under ThreadSanitizer in the sanitizer subset: the views read plain
// memory the workers write, ordered only by the stop-the-world pause.
TEST(Observer, AsyncWindowsStopTheWorld) {
  for (unsigned threads : {1u, 2u, 3u}) {
    Recorder r(100);  // 100 us
    const rica::RunStats st = run_uniform("torus:8x8", 1, threads, {&r}, rica::EngineKind::async, 400);
    ASSERT_TRUE(st.conservation_ok);
    EXPECT_EQ(r.starts, 1);
    EXPECT_EQ(r.ends, 1);
    ASSERT_FALSE(r.rows.empty());
    EXPECT_EQ(r.rows.front().begin, 0u);
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const auto& w = r.rows[i];
      EXPECT_LT(w.begin, w.end);
      EXPECT_EQ(w.now, w.end);
      if (i + 1 < r.rows.size()) { EXPECT_GE(w.end - w.begin, 100'000u) << "window " << i; }  // ns
      if (i) {
        EXPECT_EQ(w.begin, r.rows[i - 1].end);
        EXPECT_GE(w.delivered, r.rows[i - 1].delivered);
        EXPECT_GE(w.hops, r.rows[i - 1].hops);
        EXPECT_GE(w.link_sum, r.rows[i - 1].link_sum);
        EXPECT_GE(w.injected, r.rows[i - 1].injected);
      }
      EXPECT_EQ(w.link_sum, w.hops) << "a view of a still machine: every hop counted on its link";
    }
    EXPECT_EQ(r.rows.back().delivered, st.delivered);
    EXPECT_EQ(r.rows.back().hops, st.hops);
    EXPECT_EQ(r.rows.back().occupancy, 0u);
    EXPECT_EQ(r.end_delivered, st.delivered);
    EXPECT_EQ(r.end_injected, st.injected);
  }
}

// On the async engine a worker stops the world for the windows (not the main thread): an
// observer's error thrown there still ends the run with that error, once the workers are stopped,
// and no window is read after it.
TEST(Observer, AsyncObserverErrorEndsTheRun) {
  struct Thrower : rica::Observer {
    Thrower() : rica::Observer(100) {}
    int windows = 0;
    void on_window(const rica::MachineView&, std::uint64_t, std::uint64_t) override {
      if (++windows == 2) throw rica::usage_error("observer: enough");
    }
  };
  for (unsigned threads : {1u, 2u}) {
    Thrower t;
    try {
      run_uniform("torus:8x8", 1, threads, {&t}, rica::EngineKind::async, 400);
      ADD_FAILURE() << "the observer's error was lost";
    } catch (const rica::usage_error& e) {
      EXPECT_STREQ(e.what(), "observer: enough");
    }
    EXPECT_EQ(t.windows, 2);
  }
}

TEST(Observer, BadObserversRefused) {
  Recorder zero(0);
  EXPECT_THROW(run_uniform("torus:4x4", 0.05, 1, {&zero}), rica::usage_error);
  EXPECT_THROW(run_uniform("torus:4x4", 0.05, 1, {nullptr}), rica::usage_error);
}

}  // namespace
