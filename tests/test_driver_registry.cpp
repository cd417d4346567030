// The driver registry (runtime/machine/driver_registry.hpp): an engine added from outside the
// runtime's files, with no edit of them. "serial" below is a whole driver in this file: one
// thread visits every node in order, sweep after sweep, through the one node step
// (runtime/machine/node_step.hpp) with its own step policy, and registers itself. rica::run then
// finds it by name and runs workloads exactly once; the checks of every entry point read its
// traits (it has none: no virtual clock, no windows, no timed faults, no router pipeline, one
// process); the built-in engines keep their numbers and traits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../runtime/machine/driver_registry.hpp"
#include "../runtime/machine/node_step.hpp"
#include "../runtime/machine/run_frame.hpp"
#include "rica/engine.hpp"
#include "rica/faults.hpp"
#include "traffic.hpp"

namespace {

using namespace rica::detail;
using rica::node_t;

/// The serial engine's step policy: a head moves at once when its packet fits downstream by the
/// node's credit view, else it waits for the next sweep; one pass over the inputs per step. Work
/// bits are kept exact: set by a push into the input, cleared by the pop that empties it (one
/// thread owns every node, so no atomics and no wake-ups).
struct SerialStep {
  static constexpr bool may_idle = false;
  Machine& m;
  rica::detail::ThreadStats& ts;
  std::uint64_t* const work;
  SerialStep(Machine& mm, rica::detail::ThreadStats& t, node_t v) : m(mm), ts(t), work(mm.work(v)) {}

  static constexpr bool held(node_t) noexcept { return false; }
  static constexpr void begin(PeState&, node_t) noexcept {}
  static constexpr bool window_open() noexcept { return true; }
  static bool source(const PeState& s) noexcept { return s.injq_head != s.injq.size(); }
  std::uint64_t mask(std::uint32_t w) const noexcept { return work[w]; }
  static constexpr bool has_head(const PeState&, std::uint32_t) noexcept { return true; }
  static constexpr bool ready(const rica::Packet&) noexcept { return true; }
  bool deliver(PeState& s, node_t v, std::uint32_t i, const rica::Packet&) {
    m.deliver_head(s, v, i, ts, *this);
    return true;
  }
  bool forward(PeState& s, node_t v, std::uint32_t i, const rica::Packet& head, const HopPlan& h) {
    if (!m.peer_buffer(h.peer, h.in).fits(m.credits(v)[h.out], m.config().buffer_words, head.words)) {
      ++s.blocked;
      return false;
    }
    m.move(s, v, i, h, ts, *this);
    return true;
  }
  static constexpr bool more() noexcept { return true; }
  static constexpr bool again(bool) noexcept { return false; }
  static constexpr bool end(const PeState&, node_t) noexcept { return true; }

  void popped(node_t v, std::uint32_t i, unsigned, bool, bool now_empty) {
    if (now_empty) m.work(v)[i >> 6] &= ~(std::uint64_t{1} << (i & 63));
  }
  static constexpr void stamp(rica::Packet&, const rica::Packet&, node_t, rica::port_t) noexcept {}
  void pushed(node_t peer, std::uint32_t in) { m.work(peer)[in >> 6] |= std::uint64_t{1} << (in & 63); }
};

/// Sweeps every node in order until nothing generates and no packet is left; a deadlock when
/// 1,000 sweeps in a row move nothing while packets are left.
void drive_serial(Machine& m, rica::RunStats& st) {
  RunFrame frame(m, RunFrame::Main::steps);
  m.clock().start();
  frame.start_clock(m.clock().origin());
  rica::detail::ThreadStats& ts = m.thread_stats()[0];
  visit_routed(
      m.topology(), m.config().routing,
      [&](const auto& t) {
        std::uint64_t last = ~std::uint64_t{0}, still = 0;
        for (;;) {
          for (node_t v = 0; v < m.nodes(); ++v) {
            SerialStep e(m, ts, v);
            node_step(m, t, v, e);
          }
          if (!m.generating() && !m.packets_left()) return;
          const std::uint64_t progress = ts.hops + ts.delivered;
          still = progress == last ? still + 1 : 0;
          last = progress;
          if (still >= 1000 && m.packets_left()) {
            st.deadlock = true;
            return;
          }
        }
      },
      m.config().seed);
  frame.stop_clock(st);
}

// Registered when the program starts, like a built-in: no edit of the runtime's files.
const DriverRegistration serial{DriverEntry{{"serial", "one thread, every node in order, sweep after sweep", {}, 0},
                                            drive_serial}};

rica::RunStats run_uniform(const char* spec, rica::EngineConfig cfg, std::uint64_t packets = 50, double rate = 0.5) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  rica::TrafficOptions opt;
  opt.rate = rate;
  opt.packets = packets;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({topo.pes()}), opt);
  return rica::run(topo, *app, cfg);
}

rica::EngineConfig serial_config() {
  rica::EngineConfig cfg;
  cfg.engine = rica::engine_kind_by_name("serial");
  cfg.threads = 1;
  return cfg;
}

TEST(DriverRegistry, TestDriverIsRegisteredAfterTheBuiltIns) {
  const std::vector<rica::EngineInfo> all = rica::engines();
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[0].name, "async");
  EXPECT_EQ(all[1].name, "cycle");
  EXPECT_EQ(rica::engine_kind_by_name("async"), rica::EngineKind::async);
  EXPECT_EQ(rica::engine_kind_by_name("cycle"), rica::EngineKind::cycle);
  EXPECT_EQ(rica::engine_kind_by_name("serial"), serial.kind);
  EXPECT_GE(static_cast<unsigned>(serial.kind), 2u);
  EXPECT_STREQ(rica::to_string(serial.kind), "serial");
  EXPECT_EQ(rica::engine_info(serial.kind).doc, "one thread, every node in order, sweep after sweep");
  // The built-ins' traits, as the checks read them.
  const rica::EngineTraits& a = rica::engine_traits(rica::EngineKind::async);
  const rica::EngineTraits& c = rica::engine_traits(rica::EngineKind::cycle);
  EXPECT_FALSE(a.virtual_clock || a.link_timing || a.router_cycles || a.timed_faults);
  EXPECT_TRUE(a.windows);  // telemetry windows of W microseconds, the workers paused
  EXPECT_TRUE(a.over_ranks);
  EXPECT_TRUE(c.virtual_clock && c.link_timing && c.router_cycles && c.timed_faults && c.windows && c.over_ranks);
  EXPECT_EQ(rica::engines_with(&rica::EngineTraits::windows), (std::vector<std::string>{"async", "cycle"}));
  EXPECT_EQ(rica::engines_with(&rica::EngineTraits::virtual_clock), std::vector<std::string>{"cycle"});
}

TEST(DriverRegistry, SerialDriverRunsExactlyOnce) {
  // PEs only, router-only switches (omega), several buffer classes (torus), adaptive routing.
  for (const char* spec : {"torus:4x4", "omega:n=3", "hypercube:n=4", "cccb:n=2"}) {
    SCOPED_TRACE(spec);
    const rica::RunStats st = run_uniform(spec, serial_config());
    const rica::Topology topo = rica::TopologyRegistry::parse(spec);
    EXPECT_FALSE(st.deadlock) << st.deadlock_report;
    EXPECT_TRUE(st.conservation_ok);
    EXPECT_TRUE(st.app_ok) << st.app_message;
    EXPECT_EQ(st.injected, 50u * topo.pes());
    EXPECT_EQ(st.delivered, st.injected);
    EXPECT_EQ(st.duplicates, 0u);
    EXPECT_EQ(st.lost, 0u);
    EXPECT_EQ(st.in_network, 0u);
    EXPECT_GT(st.hops, 0u);
    EXPECT_EQ(st.latency_unit, "ns");  // no virtual clock
  }
  rica::EngineConfig adaptive = serial_config();
  adaptive.routing = rica::Routing::adaptive;
  const rica::RunStats st = run_uniform("torus:4x4", adaptive);
  EXPECT_TRUE(st.conservation_ok);
  EXPECT_EQ(st.delivered, 50u * 16);
}

TEST(DriverRegistry, SerialDriverReportsADeadlock) {
  // Every packet in class 0 on a ring: the machine fills and stops; the driver says so and
  // rica::run finds the waiting cycle, with every packet still counted once.
  rica::EngineConfig cfg = serial_config();
  cfg.classes = false;
  cfg.buffer_words = 4;
  cfg.packet_words = 4;
  cfg.packet_spread = 0;
  const rica::RunStats st = run_uniform("torus:8", cfg, 400, 1.0);
  ASSERT_TRUE(st.deadlock);
  EXPECT_NE(st.deadlock_report.find("waiting cycle"), std::string::npos) << st.deadlock_report;
  EXPECT_EQ(st.duplicates, 0u);
  EXPECT_EQ(st.lost, 0u);
  EXPECT_EQ(st.injected, st.delivered + st.in_network);
}

/// The refusal's one line, or "" when it ran.
std::string refusal(rica::EngineConfig cfg, const char* spec = "torus:4x4") {
  try {
    run_uniform(spec, cfg, 5);
  } catch (const rica::usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(DriverRegistry, ChecksReadTheTraits) {
  rica::EngineConfig cfg = serial_config();
  cfg.router_cycles = 2;
  EXPECT_EQ(refusal(cfg), "--router-cycles applies to the cycle engine only; add --engine cycle or drop --router-cycles");
  cfg.router_cycles = 0;
  const rica::Topology faulty = rica::with_faults(rica::TopologyRegistry::parse("torus:4x4"), "links=1,at=10", 1);
  rica::TrafficOptions opt;
  opt.packets = 5;
  auto app = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({16}), opt);
  try {
    rica::run(faulty, *app, cfg);
    ADD_FAILURE() << "timed faults ran on an engine without a clock";
  } catch (const rica::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "--faults at=CYCLE applies to the cycle engine only (the serial engine has no "
                                     "clock); add --engine cycle or drop --faults at=CYCLE");
  }
  rica::EngineConfig unknown = serial_config();
  unknown.engine = static_cast<rica::EngineKind>(200);
  EXPECT_NE(refusal(unknown).find("no engine number 200"), std::string::npos);
}

TEST(DriverRegistry, NamesAreCheckedAndSuggested) {
  try {
    rica::engine_kind_by_name("serail");
    ADD_FAILURE();
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("did you mean 'serial'?"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("valid: async, cycle, serial"), std::string::npos) << e.what();
  }
  auto drive = [](Machine&, rica::RunStats&) {};
  EXPECT_THROW(register_driver(DriverEntry{{"serial", "again", {}, 0}, drive}), rica::usage_error);
  EXPECT_THROW(register_driver(DriverEntry{{"Bad Name", "", {}, 0}, drive}), rica::usage_error);
  EXPECT_THROW(register_driver(DriverEntry{{"nodrive", "", {}, 0}, nullptr}), rica::usage_error);
}

}  // namespace
