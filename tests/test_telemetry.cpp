// Telemetry over time (rica/telemetry.hpp): the windows sum exactly to the run's totals, the
// per-link table sums to RunStats::link_packets, the tables are identical for 1 and 2 threads,
// the CSV is the one writer's and parses back, per-job rows appear for OS runs, and the latency
// distribution's columns are consistent.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "rica/engine.hpp"
#include "rica/os.hpp"
#include "rica/report.hpp"
#include "rica/telemetry.hpp"
#include "traffic.hpp"

namespace {

const std::vector<std::uint64_t>& ints(const rica::TelemetryTable& t, const std::string& name) {
  for (const auto& c : t.columns)
    if (c.name == name && !c.real) return c.ints;
  ADD_FAILURE() << "no integer column " << name;
  static const std::vector<std::uint64_t> none;
  return none;
}
std::uint64_t sum(const std::vector<std::uint64_t>& v) { return std::accumulate(v.begin(), v.end(), std::uint64_t{0}); }

rica::RunStats run_uniform(const char* spec, double rate, unsigned threads, rica::Telemetry* tel,
                           std::uint64_t cycles = 3000, std::uint64_t warmup = 0) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  rica::TrafficOptions opt;
  opt.rate = rate;
  opt.packets = cycles;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.threads = threads;
  cfg.cycles = cycles;
  cfg.warmup = warmup;
  std::vector<rica::Observer*> obs;
  if (tel) obs.push_back(tel);
  return rica::run(topo, *app, cfg, obs);
}

TEST(Telemetry, WindowsSumToTheRunsTotals) {
  rica::Telemetry tel(250, {.links = true});
  const rica::RunStats st = run_uniform("torus:6x6", 0.2, 2, &tel, 3000, 500);
  ASSERT_TRUE(st.conservation_ok);
  const rica::TelemetryTable& w = tel.windows();
  ASSERT_EQ(w.rows(), (st.cycles_run + 249) / 250);
  EXPECT_EQ(sum(ints(w, "injected")), st.injected);
  EXPECT_EQ(sum(ints(w, "delivered")), st.delivered);
  EXPECT_EQ(sum(ints(w, "measured")), st.measured);
  EXPECT_EQ(sum(ints(w, "packet_hops")), st.hops);
  EXPECT_EQ(sum(ints(w, "blocked")), st.blocked);
  EXPECT_EQ(ints(w, "end").back(), st.cycles_run);
  EXPECT_EQ(ints(w, "occupancy_words").back(), 0u);  // drained
  EXPECT_GT(*std::max_element(ints(w, "occupancy_words").begin(), ints(w, "occupancy_words").end()), 0u);
  // The latency sums give the run's mean exactly.
  EXPECT_NEAR(static_cast<double>(sum(ints(w, "latency_sum"))) / static_cast<double>(st.measured), st.latency_mean,
              1e-9 * st.latency_mean);
  EXPECT_NEAR(static_cast<double>(sum(ints(w, "net_latency_sum"))) / static_cast<double>(st.measured),
              st.net_latency_mean, 1e-9 * st.net_latency_mean);
  // Windows before the warm-up measure nothing; their mean latency is undefined (NaN, empty in CSV).
  EXPECT_EQ(ints(w, "measured").front(), 0u);
  EXPECT_TRUE(std::isnan(w.columns[8].reals.front()));
  // Per link: the windows sum to the run's link counts.
  const rica::TelemetryTable& l = tel.links();
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:6x6");
  std::vector<std::uint64_t> per_link(st.link_packets.size(), 0);
  const auto& node = ints(l, "node");
  const auto& port = ints(l, "port");
  const auto& packets = ints(l, "packets");
  for (std::size_t i = 0; i < l.rows(); ++i) per_link[node[i] * topo.ports() + port[i]] += packets[i];
  EXPECT_EQ(per_link, st.link_packets);
  // Per class: the words held sum to the window's occupancy.
  const rica::TelemetryTable& c = tel.classes();
  std::vector<std::uint64_t> by_window(w.rows(), 0);
  for (std::size_t i = 0; i < c.rows(); ++i) by_window[ints(c, "window")[i]] += ints(c, "words")[i];
  EXPECT_EQ(by_window, ints(w, "occupancy_words"));
  // The link table's words are the buffers links feed: at most the whole occupancy.
  std::vector<std::uint64_t> link_words(w.rows(), 0);
  for (std::size_t i = 0; i < l.rows(); ++i) link_words[ints(l, "window")[i]] += ints(l, "words")[i];
  for (std::size_t i = 0; i < w.rows(); ++i) EXPECT_LE(link_words[i], ints(w, "occupancy_words")[i]);
  EXPECT_EQ(tel.summary()["windows"], w.rows());
  EXPECT_FALSE(tel.summary()["links_truncated"].get<bool>());
}

TEST(Telemetry, IdenticalForOneAndTwoThreadsAndChangesNothing) {
  const rica::RunStats plain = run_uniform("torus:4x4", 0.3, 1, nullptr);
  rica::Telemetry a(100, {.links = true}), b(100, {.links = true});
  const rica::RunStats one = run_uniform("torus:4x4", 0.3, 1, &a);
  const rica::RunStats two = run_uniform("torus:4x4", 0.3, 2, &b);
  EXPECT_EQ(one.link_packets, plain.link_packets);
  EXPECT_EQ(one.latency_mean, plain.latency_mean);
  EXPECT_EQ(two.cycles_run, plain.cycles_run);
  EXPECT_EQ(a.windows().csv(), b.windows().csv());
  EXPECT_EQ(a.links().csv(), b.links().csv());
  EXPECT_EQ(a.classes().csv(), b.classes().csv());
}

TEST(Telemetry, CsvParsesBackThroughTheOneReader) {
  rica::Telemetry tel(500, {.links = true});
  (void)run_uniform("mesh:4x4", 0.1, 1, &tel, 2000, 600);
  const auto rows = rica::report::csv_parse(tel.windows().csv());
  ASSERT_EQ(rows.size(), tel.windows().rows() + 1);
  EXPECT_EQ(rows[0][0], "window");
  EXPECT_EQ(rows[0].size(), tel.windows().columns.size());
  EXPECT_EQ(rows[1][8], "");  // the first window measured nothing: mean latency left empty
  const auto links = rica::report::csv_parse(tel.links().csv());
  EXPECT_EQ(links[0], (std::vector<std::string>{"window", "end", "node", "port", "peer", "packets", "words"}));
}

TEST(Telemetry, LinkTableCapped) {
  rica::Telemetry::Options o;
  o.links = true;
  o.max_link_rows = 100;  // torus:4x4 has 64 out-links: one window fits
  rica::Telemetry tel(100, o);
  const rica::RunStats st = run_uniform("torus:4x4", 0.3, 1, &tel, 1000);
  EXPECT_EQ(tel.links().rows(), 64u);
  EXPECT_TRUE(tel.summary()["links_truncated"].get<bool>());
  EXPECT_EQ(sum(ints(tel.windows(), "delivered")), st.delivered);  // the other tables are whole
}

TEST(Telemetry, PerJobRowsForTimeSharedJobs) {
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:4x4");
  std::vector<std::unique_ptr<rica::App>> apps;
  std::vector<rica::JobSpec> jobs;
  rica::OsConfig os;
  std::vector<rica::node_t> pes(topo.pes());
  std::iota(pes.begin(), pes.end(), rica::node_t{0});
  for (unsigned j = 0; j < 2; ++j) {
    rica::TrafficOptions opt;
    opt.rate = 0.05;
    opt.packets = 40;
    opt.seed = 1 + j;
    apps.push_back(rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt));
    jobs.push_back({j ? "b" : "a", apps.back().get(), pes});
    os.slots.push_back({j});
  }
  os.slice = 300;
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.cycles = std::uint64_t{1} << 31;
  rica::Telemetry::Options o;
  o.jobs = true;
  rica::Telemetry tel(100, o);
  std::vector<rica::Observer*> obs{&tel};
  const rica::OsStats st = rica::run_jobs(topo, jobs, cfg, os, obs);
  ASSERT_TRUE(st.machine.conservation_ok);
  ASSERT_FALSE(st.switches.empty());
  const rica::TelemetryTable& j = tel.jobs();
  ASSERT_GT(j.rows(), 0u);
  // Every delivery lands on some job's row; both jobs appear.
  EXPECT_EQ(sum(ints(j, "delivered")), st.machine.delivered);
  std::vector<bool> seen(256, false);
  for (auto x : ints(j, "job")) seen.at(x) = true;
  EXPECT_TRUE(seen[0] && seen[1]);
  EXPECT_GT(tel.halts().rows(), 0u);  // switches halt nodes
  // Latency per job: both jobs' histograms, adding up to the run's.
  ASSERT_EQ(st.machine.job_latency_histograms.size(), 2u);
  for (std::size_t b = 0; b < st.machine.latency_histogram.size(); ++b)
    EXPECT_EQ(st.machine.job_latency_histograms[0][0][b] + st.machine.job_latency_histograms[1][0][b],
              st.machine.latency_histogram[b]);
  EXPECT_GT(sum(st.machine.job_latency_histograms[1][0]), 0u);
  EXPECT_EQ(tel.csv_paths("x.").size(), 4u);  // windows, classes, jobs, halts (no links unless asked)
}

TEST(Telemetry, LatencyDistributionColumns) {
  std::vector<std::uint64_t> h(64 * 8, 0);
  h[3] = 2;   // latency 3
  h[24] = 5;  // [8, 9)
  h[40] = 3;  // msb 5, sub 0: [32, 36)
  const nlohmann::json d = rica::report::latency_distribution(h, "cycles");
  EXPECT_EQ(d["total"], 10u);
  EXPECT_EQ(d["low"], (std::vector<std::uint64_t>{3, 8, 32}));
  EXPECT_EQ(d["high"], (std::vector<std::uint64_t>{4, 9, 36}));
  EXPECT_EQ(d["count"], (std::vector<std::uint64_t>{2, 5, 3}));
  EXPECT_DOUBLE_EQ(d["cdf"].back().get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(d["cdf"][0].get<double>(), 0.2);
  // Every value falls in the bucket whose bounds hold it.
  for (std::uint64_t x : {0ull, 7ull, 8ull, 9ull, 15ull, 16ull, 1000ull, 123456789ull}) {
    unsigned b = 0;
    while (rica::latency_bucket_low(b + 1) <= x) ++b;
    EXPECT_LE(rica::latency_bucket_low(b), x);
    EXPECT_GT(rica::latency_bucket_low(b + 1), x);
  }
}

TEST(Telemetry, AsyncEngineWindowsSumToTheRun) {
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:4x4");
  rica::TrafficOptions opt;
  opt.packets = 20;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  rica::EngineConfig cfg;
  cfg.threads = 2;
  rica::Telemetry tel(rica::defaults::telemetry::window, {.links = true});
  std::vector<rica::Observer*> obs{&tel};
  const rica::RunStats st = rica::run(topo, *app, cfg, obs);
  ASSERT_GT(tel.windows().rows(), 0u);  // at least the last window
  EXPECT_EQ(sum(ints(tel.windows(), "delivered")), st.delivered);
  EXPECT_EQ(sum(ints(tel.windows(), "injected")), st.injected);
  EXPECT_EQ(sum(ints(tel.windows(), "packet_hops")), st.hops);
  EXPECT_EQ(sum(ints(tel.links(), "packets")), st.hops);
  EXPECT_EQ(tel.summary()["time_unit"], "ns");
  // Every stop of the world timed (the last window's read too): at least one per window.
  EXPECT_GE(tel.summary()["stops"].get<std::uint64_t>(), tel.windows().rows());
  EXPECT_GT(tel.summary()["stopped_s"].get<double>(), 0.0);
}

// The per-link table only when asked (most of a window's cost); the rest identical either way;
// each stop timed, its sum a share of the run's wall time.
TEST(Telemetry, LinksOnlyWhenAskedAndStopsTimed) {
  rica::Telemetry plain(100), with(100, {.links = true});
  (void)run_uniform("torus:4x4", 0.3, 1, &plain, 1000);
  (void)run_uniform("torus:4x4", 0.3, 1, &with, 1000);
  EXPECT_EQ(plain.links().rows(), 0u);
  EXPECT_GT(with.links().rows(), 0u);
  EXPECT_EQ(plain.csv_paths("x.").size(), 2u);  // windows, classes
  EXPECT_EQ(with.csv_paths("x.").size(), 3u);
  EXPECT_EQ(plain.windows().csv(), with.windows().csv());
  EXPECT_EQ(plain.classes().csv(), with.classes().csv());
  const nlohmann::json s = plain.summary();
  EXPECT_FALSE(s["links"].get<bool>());
  EXPECT_FALSE(s["rows"].contains("links"));
  EXPECT_TRUE(with.summary()["links"].get<bool>());
  EXPECT_GE(s["stops"].get<std::uint64_t>(), plain.windows().rows());
  EXPECT_GT(s["stopped_s"].get<double>(), 0.0);
  EXPECT_GT(s["stopped_share"].get<double>(), 0.0);
  EXPECT_LT(s["stopped_share"].get<double>(), 1.0);
}

// MachineView::held_per_class is the sum of every input buffer's words and packets per class.
TEST(Telemetry, HeldPerClassSumsEveryBuffer) {
  struct Check : rica::Observer {
    Check() : rica::Observer(37) {}
    unsigned windows = 0, nonzero = 0;
    void on_window(const rica::MachineView& v, std::uint64_t, std::uint64_t) override {
      std::vector<std::uint64_t> w(v.classes()), p(v.classes()), w2(v.classes(), 0), p2(v.classes(), 0);
      v.held_per_class(w, p);
      for (rica::node_t n = 0; n < v.nodes(); ++n)
        for (rica::port_t q = 0; q < v.ports(); ++q)
          for (rica::class_t c = 0; c < v.classes(); ++c)
            if (const std::uint32_t x = v.buffer_words(n, q, c)) w2[c] += x, p2[c] += v.buffer_packets(n, q, c);
      EXPECT_EQ(w, w2);
      EXPECT_EQ(p, p2);
      ++windows, nonzero += w2[0] + w2[1] > 0;
    }
  } check;
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:5x5");
  rica::TrafficOptions opt;
  opt.rate = 0.4;
  opt.packets = 1000;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.cycles = 1000;
  std::vector<rica::Observer*> obs{&check};
  ASSERT_TRUE(rica::run(topo, *app, cfg, obs).conservation_ok);
  EXPECT_GT(check.windows, 10u);
  EXPECT_GT(check.nonzero, 5u);
}

// Latency per buffer class (the class a packet is delivered from) and per job: the groups'
// histograms add up to the run's, in the JSON as well.
TEST(Telemetry, LatencyPerClassAndJob) {
  const rica::RunStats st = run_uniform("torus:4x4", 0.2, 2, nullptr);  // dateline classes: 2
  ASSERT_EQ(st.class_latency_histograms.size(), 2u);
  EXPECT_TRUE(st.job_latency_histograms.empty());  // one job: the run's own
  for (int k = 0; k < 2; ++k) {
    const auto& run = k ? st.net_latency_histogram : st.latency_histogram;
    for (std::size_t b = 0; b < run.size(); ++b)
      EXPECT_EQ(st.class_latency_histograms[0][k][b] + st.class_latency_histograms[1][k][b], run[b]) << b;
  }
  EXPECT_GT(sum(st.class_latency_histograms[1][0]), 0u);  // some packets crossed a dateline
  const nlohmann::json j = rica::report::run_summary(rica::TopologyRegistry::parse("torus:4x4"), rica::EngineConfig{}, st);
  ASSERT_EQ(j["latency_distribution"]["classes"].size(), 2u);
  EXPECT_EQ(j["latency_distribution"]["classes"][1]["class"], 1u);
  EXPECT_FALSE(j["latency_distribution"].contains("jobs"));
  const std::uint64_t c0 = j["latency_distribution"]["classes"][0]["total"]["total"];
  const std::uint64_t c1 = j["latency_distribution"]["classes"][1]["total"]["total"];
  EXPECT_EQ(c0 + c1, st.measured);
}

}  // namespace
