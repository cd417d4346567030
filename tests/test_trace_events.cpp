// Trace-viewer export (rica/trace_events.hpp): with every packet followed, the journeys account for
// every delivered packet and every packet-hop of the run, with no stage missed, on a direct and an
// indirect network (router-only switches), deterministic and adaptive routing, both timing models;
// journeys are contiguous in time and end at their destinations; the bound holds; the JSON is
// well-formed trace-event JSON; an OS run gives halts and switch slices; following changes nothing.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "rica/engine.hpp"
#include "rica/os.hpp"
#include "rica/routing.hpp"
#include "rica/trace_events.hpp"
#include "traffic.hpp"

namespace {

struct Result {
  rica::RunStats st;
  nlohmann::json trace;  // the file, parsed
};

Result run_traced(const char* spec, rica::TraceEvents::Options opt, rica::EngineConfig cfg = {}, double rate = 0.1,
                  std::uint64_t cycles = 600, bool traced = true) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  rica::TrafficOptions to;
  to.rate = rate;
  to.packets = cycles;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), to);
  cfg.engine = rica::EngineKind::cycle;
  cfg.cycles = cycles;
  cfg.trace.clear();
  rica::TraceEvents te(opt);
  std::vector<rica::Observer*> obs;
  if (traced) obs.push_back(&te);
  Result r{rica::run(topo, *app, cfg, obs), {}};
  if (!traced) return r;
  // One file per process and run: ctest runs the cases of this suite as parallel processes.
  static int runs = 0;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("rica_test_trace_events." + std::to_string(::getpid()) + "." + std::to_string(++runs) +
                             ".json"))
                               .string();
  rica::TraceEvents::write(path, {{"test", &te}}, "test");
  std::ifstream in(path);
  r.trace = nlohmann::json::parse(in);
  std::remove(path.c_str());
  r.trace["summary"] = te.summary();
  return r;
}

/// Checks the events' shape and returns, per packet (args.packet), its hop slices in order.
std::map<std::string, std::vector<nlohmann::json>> journeys(const nlohmann::json& trace) {
  std::map<std::string, std::vector<nlohmann::json>> out;
  EXPECT_TRUE(trace.contains("traceEvents") && trace["traceEvents"].is_array());
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    EXPECT_TRUE(ph == "M" || ph == "X" || ph == "s" || ph == "t" || ph == "f") << e.dump();
    EXPECT_TRUE(e.at("pid").is_number_unsigned());
    if (ph == "M") continue;
    EXPECT_TRUE(e.at("ts").is_number_unsigned()) << e.dump();
    EXPECT_TRUE(e.at("tid").is_number_unsigned()) << e.dump();
    if (ph == "X") {
      EXPECT_TRUE(e.at("dur").is_number_unsigned()) << e.dump();
      if (e.at("cat") == "packet" && e.at("name") != "queued") out[e["args"]["packet"].get<std::string>()].push_back(e);
    } else {
      EXPECT_TRUE(e.at("id").is_string());
    }
  }
  return out;
}

TEST(TraceEvents, EveryPacketAndHopOfTheRunOnEveryKindOfNetwork) {
  for (const char* spec : {"torus:4x4", "omega:4", "cccb:n=2", "hypercube:4"}) {
    for (const rica::Timing timing : {rica::Timing::vct, rica::Timing::saf}) {
      SCOPED_TRACE(std::string(spec) + (timing == rica::Timing::vct ? " vct" : " saf"));
      rica::EngineConfig cfg;
      cfg.timing = timing;
      const Result r = run_traced(spec, {1'000'000, 0, false}, cfg);
      ASSERT_TRUE(r.st.conservation_ok);
      const auto& s = r.trace["summary"];
      EXPECT_EQ(s["gaps"], 0u);
      EXPECT_EQ(s["unfinished"], 0u);
      EXPECT_EQ(s["hops"], r.st.hops);  // every packet-hop of the run is a slice
      const auto j = journeys(r.trace);
      EXPECT_EQ(j.size(), s["packets"].get<std::size_t>());
      std::uint64_t in_network = 0;  // packets that crossed at least one link (those followed)
      for (const auto& [name, hops] : j) {
        in_network += 1;
        // Contiguous: each stage starts after the previous one ended; the last ends at delivery.
        for (std::size_t h = 1; h < hops.size(); ++h)
          EXPECT_GE(hops[h]["ts"].get<std::uint64_t>(),
                    hops[h - 1]["ts"].get<std::uint64_t>() + hops[h - 1]["dur"].get<std::uint64_t>())
              << name;
        const std::string dst = name.substr(name.find('>') + 1, name.find('#') - name.find('>') - 1);
        EXPECT_EQ(hops.back()["tid"].get<std::uint64_t>(), std::stoull(dst)) << name;
        EXPECT_TRUE(hops.back()["args"]["delivered"].is_number()) << name;
      }
      EXPECT_EQ(in_network, s["delivered"].get<std::uint64_t>());
      EXPECT_GT(in_network, 0u);
      EXPECT_LE(in_network, r.st.delivered);
    }
  }
}

TEST(TraceEvents, AdaptiveRoutingToo) {
  rica::EngineConfig cfg;
  cfg.routing = rica::Routing::adaptive;
  const Result r = run_traced("torus:4x4", {1'000'000, 0, false}, cfg, 0.3);
  ASSERT_TRUE(r.st.conservation_ok);
  EXPECT_EQ(r.trace["summary"]["gaps"], 0u);
  EXPECT_EQ(r.trace["summary"]["hops"], r.st.hops);
}

TEST(TraceEvents, BoundedAndFromTheWarmUp) {
  const Result r = run_traced("torus:4x4", {25, 200, false}, {}, 0.2);
  EXPECT_EQ(r.trace["summary"]["packets"], 25u);
  for (const auto& [name, hops] : journeys(r.trace)) EXPECT_GE(hops.front()["ts"].get<std::uint64_t>(), 200u) << name;
  EXPECT_THROW(rica::TraceEvents(rica::TraceEvents::Options{0, 0, false}), rica::usage_error);
}

TEST(TraceEvents, FollowingChangesNothing) {
  const Result a = run_traced("torus:4x4", {1'000'000, 0, false});
  const Result b = run_traced("torus:4x4", {1'000'000, 0, false}, {}, 0.1, 600, false);
  EXPECT_EQ(a.st.delivered, b.st.delivered);
  EXPECT_EQ(a.st.hops, b.st.hops);
  EXPECT_EQ(a.st.latency_mean, b.st.latency_mean);
  EXPECT_EQ(a.st.cycles_run, b.st.cycles_run);
}

TEST(TraceEvents, OsRunHaltsAndSwitchPhases) {
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
  rica::TraceEvents te({100, 0, true});
  std::vector<rica::Observer*> obs{&te};
  const rica::OsStats st = rica::run_jobs(topo, jobs, cfg, os, obs);
  ASSERT_TRUE(st.machine.conservation_ok);
  ASSERT_FALSE(st.switches.empty());
  te.add_switches(st.switches);
  const nlohmann::json s = te.summary();
  EXPECT_EQ(s["switches"], st.switches.size());
  EXPECT_GT(s["halts"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(s["packets"], 100u);
  std::ostringstream text;
  text << "{\"traceEvents\":[" << te.events(1, "os") << "]}";
  const nlohmann::json j = nlohmann::json::parse(text.str());
  std::size_t switch_slices = 0, halted = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const std::string name = e["name"];
    switch_slices += name.rfind("switch slot", 0) == 0;
    halted += name == "halted";
  }
  EXPECT_EQ(switch_slices, st.switches.size());
  EXPECT_EQ(halted, s["halts"].get<std::size_t>());
}

}  // namespace
