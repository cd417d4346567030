// Channel load and the saturation bound (include/rica/channel_load.hpp): closed forms, symmetry
// against the all-pairs walk, conservation, and the cycle engine measured against the bound —
// accepted throughput below it and within a stated fraction of it; zero-load latency equal to the
// routed link-time sum.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>

#include "rica/channel_load.hpp"
#include "rica/engine.hpp"
#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

#include <tbb/global_control.h>

namespace rica {
namespace {

ChannelLoad uniform_load(const std::string& spec, EngineConfig cfg = {}, ChannelLoadOptions opt = {}) {
  return channel_load(TopologyRegistry::parse(spec), TrafficMatrix::uniform(), cfg, opt);
}

double total_load(const ChannelLoad& c) { return std::accumulate(c.load.begin(), c.load.end(), 0.0); }

// ---- Closed forms -------------------------------------------------------------------------------

TEST(ChannelLoad, TorusWithDimensionOrderRoutingHasTheRingBisectionLoad) {
  // A ring of even k routed the shorter way with ties to +: the + link carries the offsets
  // 1..k/2, i.e. sum d / k = (k+2)/8 per unit of traffic uniform over all k positions; the - link
  // (k-2)/8. In a k x k torus every dimension sees that offset distribution; destinations exclude
  // the source, hence N/(N-1). (With ties split evenly, both would be the textbook k/8.)
  for (unsigned k : {4u, 8u, 16u}) {
    const std::string spec = fmt::format("torus:{}x{}", k, k);
    const double n = static_cast<double>(k) * k;
    const ChannelLoad c = uniform_load(spec);
    EXPECT_NEAR(c.max_load, (k + 2) / 8.0 * n / (n - 1), 1e-9) << spec;
    double min_load = 1e9;
    for (double x : c.load) min_load = std::min(min_load, x);
    EXPECT_NEAR(min_load, (k - 2) / 8.0 * n / (n - 1), 1e-9) << spec;
    EXPECT_NEAR(c.bound, 1.0 / (c.max_load * 8), 1e-12) << spec << ": degree link time, 4 in + 4 out";
  }
  // Odd ring: no tie; 1 + 2 + ... + (k-1)/2 = (k^2-1)/8 pairs cross each link, each carrying
  // 1/(k-1): (k+1)/8.
  const ChannelLoad ring = uniform_load("torus:9");
  EXPECT_NEAR(ring.max_load, 10.0 / 8.0, 1e-9);
}

TEST(ChannelLoad, MeshHypercubeAndRingClosedForms) {
  // k x k mesh, dimension order: the middle x link carries (k/2)(k/2) source-destination column
  // pairs times k destination rows: k^3/4 pairs of N(N-1).
  for (unsigned k : {4u, 8u}) {
    const double n = static_cast<double>(k) * k;
    EXPECT_NEAR(uniform_load(fmt::format("mesh:{}x{}", k, k)).max_load, k * k * k / 4.0 / (n - 1), 1e-9);
  }
  // Hypercube, e-cube routing: each link carries N/2 of the pairs, every link alike.
  for (unsigned d : {3u, 6u}) {
    const double n = std::ldexp(1.0, static_cast<int>(d));
    const ChannelLoad c = uniform_load(fmt::format("hypercube:{}", d));
    EXPECT_NEAR(c.max_load, n / 2 / (n - 1), 1e-12);
    EXPECT_NEAR(c.mean_load, c.max_load, 1e-12);
    EXPECT_NEAR(c.bound, 1.0 / (c.max_load * 2 * d), 1e-12);
  }
}

TEST(ChannelLoad, LinkTimeModelsFollowTheEngine) {
  const Topology t = TopologyRegistry::parse("mesh:4x4");
  EngineConfig cfg;
  auto deg = link_cycles(t, cfg);
  EXPECT_EQ(deg[0], 4u);   // corner: 2 out + 2 in
  EXPECT_EQ(deg[1], 6u);   // edge
  EXPECT_EQ(deg[5], 8u);   // interior
  cfg.link_cycles_words = true;
  cfg.packet_words = 5;
  EXPECT_EQ(link_cycles(t, cfg)[5], 5u);
  cfg.link_cycles = 3;
  EXPECT_EQ(link_cycles(t, cfg)[0], 3u);
  // The bound weights each link by its own sender: the mesh's busiest link is interior.
  const ChannelLoad c = channel_load(t, TrafficMatrix::uniform(), EngineConfig{});
  EXPECT_EQ(c.cycles[c.busy_node], 8u);
}

// ---- Identities and the symmetry shortcut ---------------------------------------------------------

TEST(ChannelLoad, TotalLoadIsInjectionTimesMeanHopsAndMeanHopsIsTheRoutedDistance) {
  for (const char* spec : {"cccb:n=3", "cbanyan:n=4,S=5", "torus:4x6", "debruijn:6", "fattree:5", "omega:5"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const ChannelLoad c = channel_load(t, TrafficMatrix::uniform(), EngineConfig{}, {.force_all_pairs = true});
    // Every PE injects one packet per cycle and each crosses mean_hops links.
    EXPECT_NEAR(total_load(c), t.pes() * c.mean_hops, 1e-6 * t.pes()) << spec;
    // Independent: the metrics' routed mean distance (indirect networks count switches = links - 1).
    const TopologyMetrics m = compute_metrics(t);
    EXPECT_NEAR(c.mean_hops, m.routed_mean_distance + (t.direct() ? 0.0 : 1.0), 1e-9) << spec;
  }
}

TEST(ChannelLoad, SymmetryGivesTheAllPairsLoadOfEveryLink) {
  for (const char* spec : {"torus:6x4", "torus:3x4x5", "hypercube:5", "cbanyan:n=3", "cbanyan:n=3,S=5",
                           "ccc:n=4", "dce:n=4,delta=2", "cccb:n=2", "cb2:n=2", "mdce:B=1,C=2,P=2,n=2", "torus8:5",
                           "mxx:8", "debruijn:5", "ubruijn:5", "product:torus:3x3*hypercube:2",
                           "dragonfly:h=2,arrangement=relative", "hyperx:3x4,T=2", "hyperx:3x4,T=2,K=2",
                           "slimfly:q=5,p=2"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const ChannelLoad sym = channel_load(t, TrafficMatrix::uniform());
    const ChannelLoad all = channel_load(t, TrafficMatrix::uniform(), EngineConfig{}, {.force_all_pairs = true});
    ASSERT_EQ(sym.method, "exact-symmetry") << spec;
    ASSERT_EQ(all.method, "exact-all-pairs") << spec;
    EXPECT_LT(sym.sources, all.sources) << spec;
    for (std::size_t i = 0; i < all.load.size(); ++i) ASSERT_NEAR(sym.load[i], all.load[i], 1e-9) << spec << " link " << i;
    EXPECT_NEAR(sym.mean_hops, all.mean_hops, 1e-9) << spec;
    EXPECT_NEAR(sym.zero_load_latency, all.zero_load_latency, 1e-9) << spec;
  }
  // Indirect networks: their symmetry exchanges switch ports, so all pairs are walked.
  EXPECT_EQ(uniform_load("omega:4").method, "exact-all-pairs");
  EXPECT_EQ(uniform_load("fattree:4").method, "exact-all-pairs");
}

TEST(ChannelLoad, SampledDestinationsEstimateTheLoadAndAreDeterministic) {
  ChannelLoadOptions opt;
  opt.all_pairs_pes = 64;
  opt.sample_destinations = 64;
  for (const char* spec : {"omega:8", "fattree:8"}) {
    const ChannelLoad s1 = uniform_load(spec, {}, opt), s2 = uniform_load(spec, {}, opt);
    const ChannelLoad exact = uniform_load(spec);
    ASSERT_EQ(s1.method, "sampled") << spec;
    EXPECT_EQ(s1.destinations, 64u) << spec;
    EXPECT_EQ(s1.load, s2.load) << spec;
    // Every PE sends and receives exactly 64 samples: its own links are exact.
    for (node_t v = 0; v < s1.pes; ++v) ASSERT_NEAR(s1.load[std::size_t{v} * s1.ports], 1.0, 1e-12) << spec;
    EXPECT_GE(s1.max_load, exact.max_load * 0.999) << spec;
    EXPECT_LT(s1.max_load, exact.max_load * 1.2) << spec;
    EXPECT_NEAR(s1.mean_hops, exact.mean_hops, 0.02 * exact.mean_hops) << spec;
  }
  // A matrix: draws from each row.
  const Topology t = TopologyRegistry::parse("torus:16x16");
  TrafficMatrix two("two", [](node_t s, TrafficMatrix::Row& r) {
    r.emplace_back((s + 1) % 16 + s / 16 * 16, 0.5);  // x + 1
    r.emplace_back((s + 16) % 256, 0.5);              // y + 1
  });
  const ChannelLoad m = channel_load(t, two, EngineConfig{}, opt);
  ASSERT_EQ(m.method, "sampled");
  EXPECT_NEAR(m.mean_hops, 1.0, 1e-12);
  EXPECT_NEAR(m.max_load, 0.5, 0.25);  // binomial(64, 1/2) / 64 per link
}

TEST(ChannelLoad, MatrixRowsAreUsedAsGiven) {
  // Every PE sends to its +1 neighbour on a ring of 8: each + link carries exactly 1.
  const Topology t = TopologyRegistry::parse("torus:8");
  TrafficMatrix next("next", [](node_t s, TrafficMatrix::Row& r) { r.emplace_back((s + 1) % 8, 1.0); });
  const ChannelLoad c = channel_load(t, next, EngineConfig{});
  EXPECT_NEAR(c.max_load, 1.0, 1e-9);
  EXPECT_NEAR(c.mean_hops, 1.0, 1e-12);
  EXPECT_NEAR(total_load(c), 8.0, 1e-6);
  EXPECT_NEAR(c.bound, 1.0 / 4, 1e-9);  // ring node: 2 in + 2 out
  TrafficMatrix bad("bad", [](node_t s, TrafficMatrix::Row& r) { r.emplace_back((s + 1) % 8, 0.5); });
  EXPECT_THROW((void)channel_load(t, bad, EngineConfig{}), std::logic_error);
}

// ---- The cycle engine against the bound -----------------------------------------------------------

struct Measured {
  double accepted, latency;
};

Measured run_uniform(const Topology& t, double rate, std::uint64_t cycles, std::uint64_t warmup, EngineConfig cfg = {}) {
  TrafficOptions opt;
  opt.rate = rate;
  opt.packets = cycles;
  auto app = TrafficRegistry::make("uniform", t, opt);
  cfg.threads = 2;
  cfg.cycles = cycles;
  cfg.warmup = warmup;
  const RunStats st = run_cycles(t, *app, cfg);
  EXPECT_TRUE(st.conservation_ok && !st.deadlock) << t.spec();
  return {st.throughput, st.latency_mean};
}

// Saturation throughput = the largest accepted throughput over offered loads 0.5 .. 1.5 x bound
// (accepted = packets delivered per PE per cycle after a 1,000-cycle warm-up, 5,000 cycles; link
// time = in+out degree, 32-word buffers, 3 +- 1 words, seed 1). Measured:
//   torus:8x8 0.81, torus:16x16 0.80, cbanyan:n=4 0.85, cbanyan:n=5 0.84, cbanyan:n=4,S=6 0.91
// of the bound, so the test asks for >= 0.75 and < 1. Deep in saturation (3 x bound) the torus
// falls to 0.65 (8x8) and 0.37 (16x16) of the bound — dimension-order unfairness around the
// dateline, see docs/reproduction.md — while c-Banyan holds 0.78-0.85: asked >= 0.3 and >= 0.7.
// Measured with round-robin arbitration (the figures above). Oldest-first (the default) is fairer
// deep in saturation (torus:16x16 at 3 x bound: 0.86 of the bound instead of 0.37), and on
// cbanyan:n=4,S=6 its accepted rate reaches 1.01 of the bound: throttled sources inject at unequal
// rates, while the bound assumes every PE injects alike.
TEST(ChannelLoad, CycleEngineSaturatesBelowTheBoundAndWithinAStatedFraction) {
  EngineConfig rr;
  rr.arbitration = Arbitration::round_robin;
  struct Case {
    const char* spec;
    double peak_fraction, deep_fraction;
  };
  for (const Case& k : {Case{"torus:8x8", 0.75, 0.3}, Case{"torus:16x16", 0.75, 0.3}, Case{"cbanyan:n=4", 0.75, 0.7},
                        Case{"cbanyan:n=5", 0.75, 0.7}, Case{"cbanyan:n=4,S=6", 0.75, 0.7}}) {
    const Topology t = TopologyRegistry::parse(k.spec);
    const double bound = channel_load(t, TrafficMatrix::uniform()).bound;
    double peak = 0;
    for (double f : {0.5, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5}) {
      const Measured m = run_uniform(t, std::min(1.0, f * bound), 5000, 1000, rr);
      EXPECT_LT(m.accepted, bound) << k.spec << " at " << f << " x bound";
      peak = std::max(peak, m.accepted);
    }
    const Measured deep = run_uniform(t, std::min(1.0, 3 * bound), 5000, 1000, rr);
    std::printf("  %-16s bound %.5f  saturation %.5f (%.2f)  at 3x bound %.5f (%.2f)\n", k.spec, bound, peak,
                peak / bound, deep.accepted, deep.accepted / bound);
    EXPECT_GE(peak, k.peak_fraction * bound) << k.spec;
    EXPECT_LT(deep.accepted, bound) << k.spec;
    EXPECT_GE(deep.accepted, k.deep_fraction * bound) << k.spec;
  }
}

// Virtual cut-through against store-and-forward at saturation (issue 10): the same networks, rates
// and seeds; cut-through frees a buffer as soon as the head moves on, so its saturation throughput
// is unchanged or higher (2 % tolerance for the grid), and both stay below the channel-load bound.
TEST(ChannelLoad, CutThroughSaturatesAtLeastAsHighAsStoreAndForwardAndBelowTheBound) {
  for (const char* spec : {"torus:8x8", "cbanyan:n=4", "mesh:8x8", "fattree:5"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const double bound = channel_load(t, TrafficMatrix::uniform()).bound;
    double peak[2] = {0, 0};
    for (Timing timing : {Timing::vct, Timing::saf})
      for (double f : {0.6, 0.8, 0.9, 1.0, 1.2}) {
        EngineConfig cfg;
        cfg.timing = timing;
        const Measured m = run_uniform(t, std::min(1.0, f * bound), 4000, 1000, cfg);
        EXPECT_LT(m.accepted, bound) << spec << " " << to_string(timing) << " at " << f << " x bound";
        double& p = peak[timing == Timing::vct ? 0 : 1];
        p = std::max(p, m.accepted);
      }
    std::printf("  %-12s bound %.5f  saturation vct %.5f  saf %.5f\n", spec, bound, peak[0], peak[1]);
    EXPECT_GE(peak[0], 0.98 * peak[1]) << spec;
  }
}

// ---- Zero-load latency ------------------------------------------------------------------------------

std::string trace_path() { return ::testing::TempDir() + "rica_channel_load_trace.csv"; }

TEST(ChannelLoad, ZeroLoadLatencyIsTheRoutedSumOfLinkCycles) {
  // Per packet: latency = the cut-through timing over the route's hops of the sender's link time
  // (here the in+out degree, which differs between mesh corners, edges and interior and between
  // fat-tree levels), recomputed from route() for every traced packet; the mean is near
  // channel_load's zero_load_latency (a packet of the mean length) up to the little queueing a
  // 0.2% load causes and the spread of lengths.
  for (const char* spec : {"mesh:8x8", "fattree:5", "cccb:n=3", "cbanyan:n=4,S=6"}) {
    const Topology t = TopologyRegistry::parse(spec);
    EngineConfig cfg;
    cfg.trace = trace_path();
    const ChannelLoad c = channel_load(t, TrafficMatrix::uniform(), cfg);
    const Measured m = run_uniform(t, 0.002, 20000, 0, cfg);
    std::ifstream f(trace_path());
    std::string line;
    std::getline(f, line);
    std::size_t rows = 0, exact = 0;
    while (std::getline(f, line)) {
      unsigned src, dst, seq, hops;
      unsigned long long inject, deliver;
      ASSERT_EQ(std::sscanf(line.c_str(), "%u,%u,%u,%llu,%llu,%u", &src, &dst, &seq, &inject, &deliver, &hops), 6);
      unsigned words = 0;
      ASSERT_EQ(std::sscanf(line.c_str(), "%*u,%*u,%*u,%*u,%*u,%*u,%*u,%u", &words), 1);
      ZeroLoadTiming z;  // virtual cut-through over the sender's link times
      class_t cls = 0;
      for (node_t cur = src; cur != dst;) {
        const Hop h = t.route(cur, dst, cls);
        z.hop(c.cycles[cur], words, cfg.timing);
        cls = h.next_class();
        cur = t.out_link(cur, h.port()).peer;
      }
      const std::uint64_t expect = z.tail;
      ASSERT_GE(deliver - inject, expect) << spec << ": faster than the links";
      exact += deliver - inject == expect;
      ++rows;
    }
    ASSERT_GT(rows, 1000u) << spec;
    EXPECT_GE(exact * 10, rows * 9) << spec << ": at 0.2% load almost no packet waits";
    EXPECT_NEAR(m.latency, c.zero_load_latency, 0.03 * c.zero_load_latency) << spec;
  }
}

TEST(ChannelLoad, ZeroLoadLatencyWithWordSerialisation) {
  // --link-cycles words: a packet of w words holds each link w cycles; lengths are 3 +- 1. Cut-through:
  // the head moves on after one cycle per hop, the tail w cycles behind: mean hops - 1 + 3.
  // Store-and-forward: mean hops x 3.
  const Topology t = TopologyRegistry::parse("torus:8x8");
  for (Timing timing : {Timing::vct, Timing::saf}) {
    EngineConfig cfg;
    cfg.link_cycles_words = true;
    cfg.timing = timing;
    const ChannelLoad c = channel_load(t, TrafficMatrix::uniform(), cfg);
    EXPECT_NEAR(c.zero_load_latency, timing == Timing::vct ? c.mean_hops + 2 : 3 * c.mean_hops, 1e-9);
    const Measured m = run_uniform(t, 0.002, 20000, 0, cfg);
    EXPECT_NEAR(m.latency, c.zero_load_latency, 0.03 * c.zero_load_latency) << to_string(timing);
  }
}

// Regression: the zero-load latency was summed in floating point per worker thread, so its last
// digits followed how oneTBB split the sources (rica experiment's table.json differed run to run).
TEST(ChannelLoad, FiguresAreIdenticalForAnyThreadCount) {
  const Topology t = TopologyRegistry::parse("mesh:32x32");  // no symmetry: 1,024 sources to split
  EngineConfig cfg;  // 3 +- 1 words, link time = degree (rica experiment mdce-1024): averages in thirds
  auto with_threads = [&](std::size_t n) {
    tbb::global_control limit(tbb::global_control::max_allowed_parallelism, n);
    return channel_load(t, TrafficMatrix::uniform(), cfg);
  };
  const ChannelLoad one = with_threads(1);
  for (int k = 0; k < 4; ++k) {
    const ChannelLoad two = with_threads(2);
    EXPECT_EQ(two.zero_load_latency, one.zero_load_latency);  // bit for bit
    EXPECT_EQ(two.mean_hops, one.mean_hops);
    EXPECT_EQ(two.load, one.load);
    EXPECT_EQ(two.bound, one.bound);
  }
}

}  // namespace
}  // namespace rica
