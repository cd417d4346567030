// The analysis commands as typed library requests (include/rica/request/): a C++ caller gets the
// CLI's refusals (one line naming the parameter) and the same figures as the functions underneath;
// Ctrl-C (rica/interrupt.hpp) stops the requests and an async-engine run.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "experiment.hpp"
#include "rica/interrupt.hpp"
#include "rica/registry.hpp"
#include "rica/request/bound.hpp"
#include "rica/request/embed.hpp"
#include "rica/request/partition.hpp"
#include "rica/request/run.hpp"
#include "rica/faults.hpp"
#include "traffic.hpp"

#include "refusal.hpp"

using namespace rica;

namespace {
using test::refusal;

/// Clears the stop request however the test ends (it is process-wide).
struct ClearInterrupt {
  ClearInterrupt() { clear_interrupt(); }
  ~ClearInterrupt() { clear_interrupt(); }
};
}  // namespace

TEST(Requests, EmbedRefusesAsTheCli) {
  request::Embed r;
  r.guest = "tre";
  r.host = "torus:4x4";
  EXPECT_NE(refusal([&] { request::validate(r); }).find("did you mean 'tree'?"), std::string::npos);
  r.guest = "tree";
  r.host = "torsu:4x4";
  EXPECT_NE(refusal([&] { request::validate(r); }).find("'torus'"), std::string::npos);
  r.host = "torus:4x4";
  r.threads = 5000;
  EXPECT_EQ(refusal([&] { request::validate(r); }), "--threads: '5000' is not an integer in [0, 1024]");
  r.threads = 1;
  r.map = "grey";
  EXPECT_NE(refusal([&] { (void)request::run(r); }).find("grey"), std::string::npos);
}

TEST(Requests, EmbedRunsTheEmbedding) {
  request::Embed r;
  r.guest = "tree";
  r.host = "ubruijn:6";
  r.threads = 1;
  const request::EmbedOutcome out = request::run(r);
  const Topology host = TopologyRegistry::parse("ubruijn:6");
  const EmbedResult direct = embed(parse_guest("tree", host.pes(), false), host);
  EXPECT_EQ(out.result.dilation, direct.dilation);
  EXPECT_EQ(out.result.congestion, direct.congestion);
  EXPECT_EQ(out.to_json(), to_json(direct));
  EXPECT_NE(out.text().find("dilation        " + std::to_string(direct.dilation)), std::string::npos);
}

TEST(Requests, PartitionRefusesAsTheCli) {
  request::Partition r;
  r.topology = "torus:4x4";
  r.samples = 0;
  EXPECT_EQ(refusal([&] { request::validate(r); }), "--samples: '0' is not an integer in [1, 1048576]");
  r.samples = 8;
  r.pairs = "foo";
  EXPECT_EQ(refusal([&] { request::validate(r); }), "--pairs 'foo': valid: auto, all, sample");
  r.pairs = "all";
  r.parts = defaults::limits::parts + 1;
  EXPECT_NE(refusal([&] { request::validate(r); }).find("--parts"), std::string::npos);
  r.parts = 4;
  r.dims = "9:1";
  EXPECT_NE(refusal([&] { (void)request::run(r); }), "(accepted)");
}

TEST(Requests, PartitionRunsThePlan) {
  request::Partition r;
  r.topology = "cccb:n=2";
  r.parts = 4;
  r.threads = 1;
  const request::PartitionOutcome out = request::run(r);
  PartitionRequest cut;
  cut.parts = 4;
  const PartitionPlan direct = partition(TopologyRegistry::parse("cccb:n=2"), cut);
  ASSERT_EQ(out.plan.parts.size(), direct.parts.size());
  EXPECT_EQ(out.plan.closed_count(), direct.closed_count());
  EXPECT_EQ(out.plan.rule, direct.rule);
  EXPECT_NE(out.text().find(std::to_string(direct.closed_count()) + " of 4 closed"), std::string::npos);
}

TEST(Requests, BoundRefusesAsTheCli) {
  request::Bound r;
  EXPECT_NE(refusal([&] { request::validate(r); }).find("topology"), std::string::npos);
  r.topologies = {"torus:4x4"};
  r.traffic = "tornadoo";
  EXPECT_NE(refusal([&] { request::validate(r); }).find("'tornado'"), std::string::npos);
  r.traffic = "uniform";
  r.engine.threads = 5000;
  EXPECT_NE(refusal([&] { request::validate(r); }).find("--threads"), std::string::npos);
  r.engine.threads = 1;
  r.engine.rank_split = RankSplit::partition;  // an MPI machine's option: the bound splits nothing
  EXPECT_EQ(refusal([&] { request::validate(r); }).rfind("--rank-split: ", 0), 0u);
}

TEST(Requests, BoundRunsTheChannelLoad) {
  request::Bound r;
  r.topologies = {"torus:4x4", "mesh:4x4"};
  r.traffic = "transpose";
  r.engine.threads = 1;
  std::size_t rows_seen = 0;
  const request::BoundOutcome out = request::run(r, [&](const auto&, const auto&) { ++rows_seen; });
  ASSERT_EQ(out.rows.size(), 2u);
  EXPECT_EQ(rows_seen, 2u);
  EngineConfig cfg;
  cfg.engine = EngineKind::cycle;
  const Topology t = TopologyRegistry::parse("mesh:4x4");
  const ChannelLoad direct = channel_load(t, experiments::traffic_matrix("transpose", t, cfg.seed), cfg);
  EXPECT_DOUBLE_EQ(out.rows[1].load.bound, direct.bound);
  const nlohmann::json j = out.to_json();
  ASSERT_EQ(j.size(), 2u);
  EXPECT_TRUE(j[0].contains("link_cycles"));
}

TEST(Requests, StopRequestStopsAnAnalysis) {
  ClearInterrupt guard;
  request_interrupt();
  request::Bound b;
  b.topologies = {"torus:8x8"};
  b.engine.threads = 1;
  EXPECT_THROW((void)request::run(b), interrupted);
  request::Partition p;
  p.topology = "torus:8x8";
  p.parts = 4;
  p.threads = 1;
  EXPECT_THROW((void)request::run(p), interrupted);
  request::Embed e;
  e.guest = "ring";
  e.host = "torus:8x8";
  e.threads = 1;
  EXPECT_THROW((void)request::run(e), interrupted);
}

// The async engine reads the stop request once per block run: a run of a hundred million packets
// ends within a second of the request and throws `interrupted` (nothing collected).
TEST(Requests, StopRequestStopsTheAsyncEngine) {
  ClearInterrupt guard;
  const Topology t = TopologyRegistry::parse("torus:32x32");
  TrafficOptions opt;
  opt.rate = 1;
  opt.packets = 100000;
  auto app = TrafficRegistry::make("uniform", t, opt);
  EngineConfig cfg;
  cfg.engine = EngineKind::async;
  cfg.threads = 2;
  auto done = std::async(std::launch::async, [&] { return run(t, *app, cfg); });
  ASSERT_EQ(done.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout) << "finished too soon";
  const auto sent = std::chrono::steady_clock::now();
  request_interrupt();
  ASSERT_EQ(done.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "the run did not stop";
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(2));
  EXPECT_THROW((void)done.get(), interrupted);
}

// rica run as a library request (rica/request/run.hpp): the CLI's refusals, a replayed trace's
// window resolved in the plan, and the seeds' means beside the first seed's figures.
TEST(Requests, RunRefusesAsTheCliAndResolvesThePlan) {
  request::Run r;
  r.topology = "torus:4x4";
  r.rate = 1e-5;  // below the async engine's minimum
  EXPECT_NE(refusal([&] { (void)request::prepare(r); }).find("--rate: 1e-05 is below the async engine's minimum"),
            std::string::npos);
  r.rate = 0.05;
  r.traffic = "unifrom";
  EXPECT_NE(refusal([&] { (void)request::prepare(r); }).find("did you mean 'uniform'"), std::string::npos);
  r.traffic = "uniform";
  r.telemetry = 5;  // W microseconds on the async engine: at least 100
  EXPECT_NE(refusal([&] { request::validate(r); }).find("--telemetry = 5 is out of range"), std::string::npos);
  r.telemetry.reset();
  r.app = "reduce:rounds=2";
  r.faults = parse_fault_spec("nodes=1");
  EXPECT_NE(refusal([&] { (void)request::prepare(r); }).find("an application (--app) needs every PE"),
            std::string::npos);
  r.app.clear();
  r.faults.reset();
  r.engine.seed = ~std::uint64_t{0};
  r.seeds = 2;
  EXPECT_NE(refusal([&] { request::validate(r); }).find("--seed/--seeds"), std::string::npos);

  request::Run c;
  c.topology = "torus:4x4";
  c.engine.engine = EngineKind::cycle;
  c.engine.threads = 1;
  c.engine.cycles = 300;
  c.rate = 0.05;
  c.seeds = 3;
  request::RunPlan plan = request::prepare(c);
  EXPECT_EQ(plan.packets, 300u);  // the window, cycle engine
  EXPECT_EQ(plan.traffic, "uniform");
  const request::RunOutcome out = request::run(c, std::move(plan));
  EXPECT_EQ(out.status(), 0);
  EXPECT_EQ(out.more.size(), 2u);
  EXPECT_EQ(out.seeds["count"], 3);
  EXPECT_EQ(out.seeds["figures"]["delivered"]["values"][0].get<double>(), static_cast<double>(out.stats.delivered));
  const nlohmann::json j = out.to_json(c);
  EXPECT_EQ(j["packets_per_pe"], 300);
  EXPECT_EQ(j["traffic"], "uniform");
  EXPECT_TRUE(j["app_spec"].is_null());
  // The same run straight through rica::run gives the same figures (the cycle engine is deterministic).
  auto app = TrafficRegistry::make("uniform", TopologyRegistry::parse("torus:4x4"),
                                   TrafficOptions{0.05, 300, 1, defaults::traffic::backlog});
  EXPECT_EQ(rica::run(TopologyRegistry::parse("torus:4x4"), *app, c.engine).delivered, out.stats.delivered);
}
