// The experiments component (apps/experiments): traffic matrices against the patterns' own draws,
// the papers' set-ups, rate grids, the saturation figures of a sweep, the paced mesh emulation,
// and sweeps that give the same points however many runs go at once.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>

#include "experiment.hpp"
#include "saturation.hpp"
#include "rica/partition.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "sweep.hpp"
#include "traffic.hpp"

namespace rica::experiments {
namespace {

std::vector<double> dense_row(const TrafficMatrix& m, node_t src, node_t pes) {
  TrafficMatrix::Row row;
  m.row(src, pes, row);
  std::vector<double> p(pes, 0.0);
  for (const auto& [d, x] : row) p[d] += x;
  return p;
}

TEST(TrafficMatrices, LocalizedMatchesThePatternsOwnDraws) {
  // The closed-form offsets against 400,000 draws of traffic::Localized from one source: every
  // destination's frequency within 5 standard deviations of its probability.
  for (const char* spec : {"cccb:n=4", "torus:32x32", "omega:6"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const node_t n = t.pes();
    const node_t src = n / 3;
    const auto p = dense_row(traffic_matrix("localized", t), src, n);
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-9) << spec;
    EXPECT_EQ(p[src], 0.0) << spec;
    const auto pattern = TrafficRegistry::pattern("localized", t);
    Rng rng(7);
    const int draws = 400000;
    std::vector<int> hits(n, 0);
    for (int i = 0; i < draws; ++i) ++hits[traffic::destination(pattern, src, rng)];
    for (node_t d = 0; d < n; ++d) {
      const double sigma = std::sqrt(draws * p[d] * (1 - p[d])) + 1;
      ASSERT_NEAR(hits[d], draws * p[d], 5 * sigma) << spec << " destination " << d;
    }
  }
  // A range-k coordinate: offset probabilities sum to 1 and are symmetric (random sign).
  for (std::uint32_t k : {2u, 5u, 16u, 128u}) {
    const auto q = localized_offsets(k);
    EXPECT_NEAR(std::accumulate(q.begin(), q.end(), 0.0), 1.0, 1e-12) << k;
    for (std::uint32_t d = 1; d < k; ++d) EXPECT_NEAR(q[d], q[k - d], 1e-15) << k;
  }
}

TEST(TrafficMatrices, QuarterHotspotMeshAndDeterministicRows) {
  const Topology t = TopologyRegistry::parse("torus:8x8");
  const auto quarter = dense_row(traffic_matrix("quarter", t), 20, 64);
  for (node_t d = 0; d < 64; ++d) EXPECT_NEAR(quarter[d], d / 16 == 1 && d != 20 ? 1.0 / 15 : 0.0, 1e-15);
  const auto hot = dense_row(traffic_matrix("hotspot:fraction=0.1,hot=5", t), 9, 64);
  EXPECT_NEAR(hot[5], 0.1 + 0.9 / 63, 1e-15);
  EXPECT_NEAR(hot[6], 0.9 / 63, 1e-15);
  EXPECT_NEAR(std::accumulate(hot.begin(), hot.end(), 0.0), 1.0, 1e-12);
  EXPECT_NEAR(dense_row(traffic_matrix("hotspot:fraction=0.1,hot=5", t), 5, 64)[6], 1.0 / 63, 1e-15);  // hot PE: uniform
  const auto mesh = dense_row(traffic_matrix("mesh", t), 0, 64);
  EXPECT_EQ(mesh[1], 0.25);
  EXPECT_EQ(mesh[7], 0.25);
  EXPECT_EQ(mesh[8], 0.25);
  EXPECT_EQ(mesh[56], 0.25);
  const auto tr = dense_row(traffic_matrix("transpose", t), 1, 64);  // (1,0) -> (0,1)
  EXPECT_EQ(tr[8], 1.0);
  EXPECT_TRUE(traffic_matrix("uniform", t).is_uniform());
  EXPECT_THROW((void)traffic_matrix("mesh", TopologyRegistry::parse("torus:4x2")), usage_error);
  EXPECT_THROW((void)traffic_matrix("nosuch", t), usage_error);
}

// partition:parts=K: each row is uniform over the other PEs of the source's partition, the
// partitions being rica::partition's (checked against a plan computed here).
TEST(TrafficMatrices, PartitionRowsAreUniformInsideThePlansPartitions) {
  const Topology t = TopologyRegistry::parse("cccb:n=3");
  PartitionRequest req;
  req.parts = 16;
  const PartitionPlan plan = partition(t, req);
  const TrafficMatrix m = traffic_matrix("partition:parts=16", t);
  for (node_t s : {node_t{0}, node_t{37}, t.pes() - 1}) {
    const auto row = dense_row(m, s, t.pes());
    const double size = static_cast<double>(plan.parts[plan.part_of[s]].pes.size());
    for (node_t d = 0; d < t.pes(); ++d)
      EXPECT_EQ(row[d], d != s && plan.part_of[d] == plan.part_of[s] ? 1.0 / (size - 1) : 0.0) << s << "->" << d;
    EXPECT_NEAR(std::accumulate(row.begin(), row.end(), 0.0), 1.0, 1e-12);
  }
}

TEST(Setups, EveryNetworkHas1024PesAndCarriesEveryPattern) {  // (adaptive: 256 PEs; modern: about 1,024)
  for (const experiments::Setup& s : setups()) {
    std::map<std::string, int> labels;
    for (const Network& n : s.networks) {
      EXPECT_EQ(labels[n.label]++, 0) << s.name << ": label " << n.label << " twice";
      const Topology t = TopologyRegistry::parse(n.spec);
      if (s.name == "modern-16k") {  // "about 16,384": dragonfly:8 has 16,512, slimfly:q=23 19,044
        EXPECT_TRUE(t.pes() >= 16384u && t.pes() <= 19044u) << s.name << " " << n.spec;
        EXPECT_TRUE(offers(t, n.routing)) << s.name << " " << n.label;
        continue;  // the patterns' dense bounds at 16K are the experiment's work, not a unit test's
      }
      if (s.name == "modern")  // "about 1,024": dragonfly:4 has 1,056, slimfly:q=9 1,134
        EXPECT_TRUE(t.pes() >= 1024u && t.pes() <= 1134u) << s.name << " " << n.spec;
      else
        EXPECT_EQ(t.pes(), s.name == "adaptive" ? 256u : 1024u) << s.name << " " << n.spec;
      EXPECT_TRUE(offers(t, n.routing)) << s.name << " " << n.label;
      EngineConfig cfg = engine_config(s);
      for (const auto& pattern : s.patterns) {
        if (s.skip.count(pattern) && std::count(s.skip.at(pattern).begin(), s.skip.at(pattern).end(), n.label)) continue;
        (void)make_app({.network = n.label, .topology = t, .traffic = pattern, .rate = 0.1, .seed = 1, .paced = true, .faults = ""}, cfg);
        if (pattern == "quarter" || pattern == "mesh") {  // the dense rows are the experiment's own work
          EXPECT_GT(channel_load(t, traffic_matrix(pattern, t), cfg).bound, 0.0) << n.spec << " " << pattern;
        }
      }
    }
  }
  EXPECT_EQ(setup_by_name("mdce-1024").networks.size(), 9u);
  EXPECT_EQ(setup_by_name("mdce-1024").patterns.size(), 5u);
  EXPECT_EQ(engine_config(setup_by_name("mdce-1024")).buffer_words, 32u);
  EXPECT_EQ(engine_config(setup_by_name("rwc1")).buffer_words, 16u);
  EXPECT_TRUE(engine_config(setup_by_name("rwc1")).link_cycles_words);
  EXPECT_THROW((void)setup_by_name("mdce"), usage_error);
}

TEST(RateGrid, LogSpacedUpToPastTheBound) {
  for (double bound : {0.004, 0.05, 0.3, 1.0}) {
    for (bool quick : {false, true}) {
      const auto r = rate_grid(bound, quick, nullptr);
      ASSERT_GE(r.size(), quick ? 2u : 5u);
      EXPECT_TRUE(std::is_sorted(r.begin(), r.end()));
      EXPECT_EQ(std::adjacent_find(r.begin(), r.end()), r.end());
      EXPECT_LE(r.front(), 0.05 * bound * 1.001);
      EXPECT_GE(r.back(), std::min(1.0, 1.5 * bound * 0.999));
      EXPECT_LE(r.back(), 1.0);
    }
  }
  const auto hot = rate_grid(0.01, true, nullptr, 4.0);
  EXPECT_NEAR(hot.back(), 1.5 / 1.6 * 4 * 0.01, 1e-9);
  EXPECT_EQ(grid_reach("hotspot:fraction=0.05,hot=0"), 4.0);
  EXPECT_EQ(grid_reach("uniform"), 1.6);
  const auto m = rate_grid(0.5, false, TrafficRegistry::paced("mesh"));
  EXPECT_EQ(m.back(), 1.0);
  EXPECT_NEAR(m.front(), 0.03 * 0.5 / 4, 1e-6);
  // A set-up's own --quick fractions (modern-16k: 5, 50, 70, 90 and 150 % of the bound); the
  // full grid does not use them.
  const auto& fifths = setup_by_name("modern-16k").quick_rates;
  const auto q = rate_grid(0.2, true, nullptr, 1.6, fifths);
  ASSERT_EQ(q.size(), 5u);
  EXPECT_NEAR(q[2], 0.7 * 0.2, 1e-9);
  EXPECT_NEAR(q.back(), 1.5 * 0.2, 1e-9);
  EXPECT_EQ(rate_grid(0.2, false, nullptr, 1.6, fifths), rate_grid(0.2, false, nullptr));
  EXPECT_EQ(rate_grid(0.2, true, nullptr).size(), 4u);  // the default quick grid is unchanged
}

// Pacing is the traffic entry's trait (TrafficEntry::paced), read through the registry: mesh (any
// variant) declares it, open-loop patterns and file traffic do not; the rate grid divides by the
// declared round, and a sweep job of a paced pattern runs the entry's App.
TEST(RateGrid, PacingIsTheTrafficEntrysTrait) {
  for (const auto& e : TrafficRegistry::available()) EXPECT_EQ(e.paced.has_value(), e.name == "mesh") << e.name;
  ASSERT_NE(TrafficRegistry::paced("mesh"), nullptr);
  EXPECT_EQ(TrafficRegistry::paced("mesh")->round_packets, 4u);
  EXPECT_EQ(TrafficRegistry::paced("mesh:wrap=0"), TrafficRegistry::paced("mesh"));
  EXPECT_EQ(TrafficRegistry::paced("hotspot:0.1"), nullptr);
  EXPECT_EQ(TrafficRegistry::paced("matrix:any.txt"), nullptr);
  EXPECT_THROW((void)TrafficRegistry::paced("mehs"), usage_error);
  const PacedSchedule two{2, nullptr};
  EXPECT_NEAR(rate_grid(0.5, false, &two).front(), 0.03 * 0.5 / 2, 1e-6);
  EXPECT_EQ(rate_grid(0.5, false, &two).back(), 1.0);
  const Topology t = TopologyRegistry::parse("torus:4x4");
  EngineConfig cfg;
  cfg.cycles = 100;
  const auto paced = make_app({.network = "", .topology = t, .traffic = "mesh:wrap=0", .rate = 0.5, .paced = true, .faults = ""}, cfg);
  EXPECT_NE(dynamic_cast<const PacedMeshEmulation*>(paced.get()), nullptr);
  const auto closed = make_app({.network = "", .topology = t, .traffic = "mesh", .rate = 0.5, .paced = false, .faults = ""}, cfg);
  EXPECT_NE(dynamic_cast<const MeshEmulation*>(closed.get()), nullptr);
  EXPECT_EQ(TrafficRegistry::make_paced("uniform", traffic::PeSpace::of(t), 0.5, 10), nullptr);
}

SweepPoint point(double rate, double accepted, double latency, std::uint64_t seed = 1) {
  SweepPoint p{.network = "X", .topology = "torus:4x4", .traffic = "uniform", .routing = "deterministic", .faults = "none"};
  p.rate = p.offered = rate;
  p.accepted = accepted;
  p.latency_mean = latency;
  p.delivered = static_cast<std::uint64_t>(accepted * 1000);
  p.seed = seed;
  return p;
}

TEST(Summary, SaturationKneeAndSeeds) {
  ChannelLoad load;
  load.bound = 0.5;
  load.zero_load_latency = 9;
  // Latency 10 at the lowest rate; 3x = 30 is crossed between 0.3 (lat 20) and 0.4 (lat 40).
  const Summary s = summarize({point(0.1, 0.1, 10), point(0.3, 0.3, 20), point(0.4, 0.35, 40), point(0.8, 0.33, 300)}, load);
  EXPECT_DOUBLE_EQ(s.zero_load, 10);
  EXPECT_DOUBLE_EQ(s.zero_load_routed, 9);
  EXPECT_DOUBLE_EQ(s.saturation, 0.35);
  EXPECT_DOUBLE_EQ(s.offered_at_saturation, 0.4);
  EXPECT_EQ(s.delivered_at_saturation, 350u);
  EXPECT_TRUE(s.knee_reached);
  EXPECT_NEAR(s.knee, 0.325, 1e-12);
  // Never reaching 3x: the knee is the saturation, flagged.
  const Summary flat = summarize({point(0.1, 0.1, 10), point(0.2, 0.2, 12)}, load);
  EXPECT_FALSE(flat.knee_reached);
  EXPECT_DOUBLE_EQ(flat.knee, 0.2);
  // Two seeds: per-rate means; the spread of each seed's best.
  const Summary two = summarize({point(0.1, 0.1, 10, 1), point(0.2, 0.2, 12, 1), point(0.1, 0.1, 10, 2),
                                 point(0.2, 0.1, 50, 2)}, load);
  EXPECT_EQ(two.seeds, 2u);
  EXPECT_DOUBLE_EQ(two.saturation, 0.15);
  EXPECT_DOUBLE_EQ(two.saturation_min, 0.1);
  EXPECT_DOUBLE_EQ(two.saturation_max, 0.2);
  EXPECT_TRUE(two.knee_reached);  // mean latency 31 at rate 0.2
}

// The knee is computed in one place (find_knee): rica experiment's table and rica sweep's summary
// give the same knee for the same points, in any order of the points.
TEST(Summary, OneKneeForSweepAndExperiment) {
  ChannelLoad load;
  load.bound = 0.5;
  const std::vector<std::vector<SweepPoint>> sets = {
      {point(0.4, 0.35, 40), point(0.1, 0.1, 10), point(0.8, 0.33, 300), point(0.3, 0.3, 20)},
      {point(0.1, 0.1, 10), point(0.2, 0.2, 12)},
      {point(0.1, 0.1, 31), point(0.2, 0.15, 90)},  // latency grows past 3x zero-load only later
      {point(0.1, 0.1, 10, 1), point(0.2, 0.2, 12, 1), point(0.1, 0.1, 10, 2), point(0.2, 0.1, 50, 2)}};
  for (const auto& pts : sets) {
    const Summary e = summarize(pts, load);
    const SweepSummary w = summarize_sweep(pts, &load);
    EXPECT_EQ(e.knee, w.knee);
    EXPECT_EQ(e.knee_reached, w.knee_reached);
  }
  const Knee k = find_knee({0.1, 0.3, 0.35, 0.33}, {10, 20, 40, 300});
  EXPECT_TRUE(k.reached);
  EXPECT_NEAR(k.accepted, 0.325, 1e-12);
  EXPECT_FALSE(find_knee({}, {}).reached);
}

TEST(PacedMesh, MoreRoundsAtHigherRateAndEveryPacketAccountedFor) {
  const Topology t = TopologyRegistry::parse("torus:4x4");
  EngineConfig cfg;
  cfg.threads = 1;
  cfg.cycles = 2000;
  cfg.link_cycles = 2;
  std::uint64_t last = 0;
  for (double rate : {0.01, 0.1, 1.0}) {
    PacedMeshEmulation app(traffic::MeshLayout(traffic::PeSpace::of(t)), rate, cfg.cycles);
    const RunStats st = run_cycles(t, app, cfg);
    ASSERT_TRUE(st.conservation_ok && st.app_ok && !st.deadlock) << rate << ": " << st.app_message;
    const auto started = app.started(), completed = app.completed();
    const std::uint64_t rounds = std::accumulate(started.begin(), started.end(), std::uint64_t{0});
    EXPECT_EQ(st.delivered, 4 * rounds);
    for (node_t v = 0; v < 16; ++v) {
      EXPECT_LE(completed[v], started[v] + 1) << "neighbours wait for our rounds";
      EXPECT_LE(started[v], completed[v] + 1) << "a PE starts a round only when its last one completed";
    }
    EXPECT_GT(rounds, last) << rate;
    last = rounds;
    if (rate == 1.0) {
      // Closed loop: one hop of 2 cycles each way, so a round takes a few cycles and no PE can
      // run ahead of its neighbours by more than one round.
      EXPECT_GT(rounds, 16u * 2000 / 10);
      const auto [lo, hi] = std::minmax_element(started.begin(), started.end());
      EXPECT_LE(*hi - *lo, 4u);
    }
  }
}

TEST(PacedMesh, NonWrappingRoundsWaitForEachPesOwnNeighbours) {
  const Topology t = TopologyRegistry::parse("mesh:4x4");
  EngineConfig cfg;
  cfg.threads = 1;
  cfg.cycles = 1500;
  for (double rate : {0.05, 1.0}) {
    const auto layout = TrafficRegistry::mesh_layout("mesh:wrap=0", traffic::PeSpace::of(t));
    ASSERT_TRUE(layout && !layout->wrap);
    PacedMeshEmulation app(*layout, rate, cfg.cycles);
    const RunStats st = run_cycles(t, app, cfg);
    ASSERT_TRUE(st.conservation_ok && st.app_ok && !st.deadlock) << rate << ": " << st.app_message;
    const auto started = app.started(), completed = app.completed();
    // Degrees of the open 4 x 4 mesh: corners 2, edges 3, interior 4, counted independently.
    std::uint64_t expect = 0;
    for (node_t v = 0; v < 16; ++v) {
      const unsigned x = v % 4, y = v / 4;
      const unsigned d = (x > 0) + (x < 3) + (y > 0) + (y < 3);
      expect += std::uint64_t{d} * started[v];
      EXPECT_LE(completed[v], started[v] + 1);
      EXPECT_LE(started[v], completed[v] + 1);
    }
    EXPECT_EQ(st.delivered, expect);
    EXPECT_GT(expect, 0u);
  }
  // The channel-load matrix spreads each PE's unit over its own neighbours.
  const auto m = traffic_matrix("mesh:wrap=0", t);
  EXPECT_EQ(m.name(), "mesh:wrap=0");
  TrafficMatrix::Row row;
  m.row(0, 16, row);
  EXPECT_EQ(row, (TrafficMatrix::Row{{1, 0.5}, {4, 0.5}}));
  row.clear();
  m.row(1, 16, row);
  ASSERT_EQ(row.size(), 3u);
  for (const auto& [d, w] : row) EXPECT_DOUBLE_EQ(w, 1.0 / 3) << d;
}

TEST(Sweep, PointsDoNotDependOnRunsAtOnceOrThreads) {
  std::vector<SweepJob> jobs;
  for (const char* spec : {"torus:4x4", "hypercube:4", "omega:4"})
    for (const char* traffic : {"uniform", "hotspot", "mesh"})
      for (double r : {0.05, 0.3}) jobs.push_back({.network = spec, .topology = TopologyRegistry::parse(spec), .traffic = traffic, .rate = r, .seed = 3, .paced = true, .faults = ""});
  EngineConfig cfg;
  cfg.cycles = 800;
  cfg.threads = 1;
  const auto a = run_sweep(jobs, cfg, 1);
  const auto b = run_sweep(jobs, cfg, 2);
  cfg.threads = 2;
  const auto c = run_sweep(jobs, cfg, 1);
  ASSERT_EQ(a.size(), jobs.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(points_csv_row(a[i], "p"), points_csv_row(b[i], "p")) << i;
    EXPECT_EQ(points_csv_row(a[i], "p"), points_csv_row(c[i], "p")) << i;
    EXPECT_GT(a[i].delivered, 0u) << i;
  }
  EXPECT_EQ(a[5].offered, std::min(1.0, 4 * 0.3));  // paced mesh: 4 packets per round
}

TEST(Sweep, OptionParsing) {
  EXPECT_EQ(parse_rates("0.1,0.2").size(), 2u);
  EXPECT_EQ(parse_rates("0.1:0.5:0.1").size(), 5u);
  EXPECT_THROW((void)parse_rates("0,0.1"), usage_error);
  EXPECT_THROW((void)parse_rates("0.5:0.1:0.1"), usage_error);
  EngineConfig cfg;
  set_link_cycles(cfg, "words");
  EXPECT_TRUE(cfg.link_cycles_words);
  set_link_cycles(cfg, "7");
  EXPECT_EQ(cfg.link_cycles, 7u);
  EXPECT_FALSE(cfg.link_cycles_words);
  EXPECT_EQ(link_cycles_text(cfg), "7");
  set_link_cycles(cfg, "degree");
  EXPECT_EQ(link_cycles_text(cfg), "degree");
  EXPECT_THROW(set_link_cycles(cfg, "fast"), usage_error);
  set_packet_words(cfg, "4:2");
  EXPECT_EQ(cfg.packet_words, 4u);
  EXPECT_EQ(cfg.packet_spread, 2u);
  EXPECT_THROW(set_packet_words(cfg, "x"), usage_error);
  EXPECT_EQ(csv_field("torus:4x4"), "torus:4x4");
  EXPECT_EQ(csv_field("dce:n=7,S=8"), "\"dce:n=7,S=8\"");
  EXPECT_EQ(csv_field("a\"b"), "\"a\"\"b\"");
}

}  // namespace
}  // namespace rica::experiments
