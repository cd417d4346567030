// The collectives as applications (apps/collectives): every kind and algorithm runs on real data,
// verified against the serial reference, with exactly the closed form's messages, on power-of-two
// and other PE counts and both engines; 1 and 2 threads give identical results; where no two
// messages of a step share a link (recursive doubling on a hypercube, identity mapping) the
// emulated time is within 5 % of the alpha-beta model; refusals name the parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app_registry.hpp"
#include "collective_app.hpp"
#include "rica/collectives.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"

using namespace rica;

namespace {

struct Result {
  RunStats st;
  nlohmann::json app;
};

Result run_spec(const std::string& topo, const std::string& spec, unsigned threads = 1,
                EngineKind engine = EngineKind::cycle) {
  const Topology t = TopologyRegistry::parse(topo);
  auto app = AppRegistry::make(spec, t);
  EngineConfig cfg;
  cfg.engine = engine;
  cfg.threads = threads;
  cfg.seed = 11;
  Result r{run(t, *app, cfg), {}};
  r.app = app->summary();
  return r;
}

std::string app_name(coll::Kind k) { return k == coll::Kind::reduce ? "reduce-root" : std::string(coll::name(k)); }

}  // namespace

TEST(CollectiveApps, EveryKindAndAlgorithmVerifies) {
  for (const char* topo : {"hypercube:4", "torus:3x4"})  // 16 and 12 PEs
    for (coll::Kind k : coll::kinds())
      for (coll::Algorithm a : coll::algorithms(k)) {
        std::string spec = app_name(k) + ":algorithm=" + std::string(coll::name(a));
        if (k != coll::Kind::barrier) spec += ",bytes=100";
        if (k == coll::Kind::bcast) spec += ",segment=40";
        if (k == coll::Kind::bcast || k == coll::Kind::reduce || k == coll::Kind::gather || k == coll::Kind::scatter)
          spec += ",root=5";
        if (k == coll::Kind::allreduce) spec += ",op=max,iterations=2";
        const Result r = run_spec(topo, spec);
        EXPECT_TRUE(r.st.app_ok) << topo << " " << spec << ": " << r.st.app_message;
        EXPECT_TRUE(r.st.conservation_ok) << spec;
        EXPECT_FALSE(r.st.deadlock) << spec;
        EXPECT_EQ(r.app["messages"], r.app["messages_closed_form"]) << topo << " " << spec;
        EXPECT_EQ(r.st.delivered, r.app["packets"].get<std::uint64_t>()) << spec;
        EXPECT_GT(r.app["cycles"].get<std::uint64_t>(), 0u) << spec;
      }
}

TEST(CollectiveApps, AsyncEngineAndMappings) {
  for (const char* spec : {"allreduce:algorithm=ring,bytes=300,map=random", "alltoall:algorithm=bruck,bytes=24",
                           "bcast:algorithm=scatter-allgather,bytes=999,root=3,map=embed"}) {
    const Result r = run_spec("torus:4x4", spec, 2, EngineKind::async);
    EXPECT_TRUE(r.st.app_ok) << spec << ": " << r.st.app_message;
    EXPECT_EQ(r.app["messages"], r.app["messages_closed_form"]) << spec;
    EXPECT_TRUE(r.app["cycles"].is_null());
  }
}

TEST(CollectiveApps, OneAndTwoThreadsIdentical) {
  for (const char* spec : {"allreduce:algorithm=rabenseifner,bytes=2000", "alltoall:algorithm=linear,bytes=64",
                           "allgather:algorithm=bruck,bytes=48", "bcast:algorithm=pipeline,bytes=4000,segment=500"}) {
    const Result a = run_spec("torus:4x5", spec, 1), b = run_spec("torus:4x5", spec, 2);
    EXPECT_EQ(a.app.dump(), b.app.dump()) << spec;
    EXPECT_EQ(a.st.latency_mean, b.st.latency_mean) << spec;
    EXPECT_EQ(a.st.cycles_run, b.st.cycles_run) << spec;
  }
}

TEST(CollectiveApps, RecursiveDoublingOnAHypercubeMatchesTheModel) {
  // Every step pairs r with r xor 2^k: one link each way, no two messages share a link.
  for (const char* topo : {"hypercube:4", "hypercube:6"})
    for (unsigned bytes : {8u, 240u, 4096u, 32768u}) {
      const std::string spec = "allreduce:algorithm=recursive-doubling,bytes=" + std::to_string(bytes);
      const Result r = run_spec(topo, spec);
      ASSERT_TRUE(r.st.app_ok) << r.st.app_message;
      const double cyc = r.app["cycles"].get<double>(), model = r.app["model_cycles"].get<double>();
      EXPECT_NEAR(cyc / model, 1.0, 0.05) << topo << " bytes=" << bytes << ": " << cyc << " cycles, model " << model;
    }
}

TEST(CollectiveApps, VerifyFailsWhenNotRun) {
  const Topology t = TopologyRegistry::parse("hypercube:3");
  auto app = AppRegistry::make("allreduce:bytes=64", t);
  Machine m(t, 1);
  app->setup(m);
  std::string why;
  EXPECT_FALSE(app->verify(why));
  EXPECT_NE(why.find("stopped"), std::string::npos) << why;
}

TEST(CollectiveApps, Refusals) {
  const Topology t = TopologyRegistry::parse("torus:4x4");
  auto refuses = [&](const std::string& spec, const std::string& needle) {
    try {
      (void)AppRegistry::make(spec, t);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const usage_error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << spec << ": " << e.what();
    }
  };
  refuses("allreduce:algorithm=bruck", "algorithm");
  refuses("allreduce:bytes=0", "bytes");
  refuses("bcast:root=16", "root");
  refuses("allreduce:root=1", "root");  // no such parameter
  refuses("reduce-root:op=avg", "op");
  refuses("allreduce:iterations=0", "iterations");
  refuses("alltoall:map=diagonal", "map");
  refuses("alreduce", "did you mean 'allreduce'");
}
