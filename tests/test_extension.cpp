// Open for extension (docs/extending.md): applications and traffic patterns registered from user
// code are listed, built by name and run; bad registrations and misbehaving user patterns are
// refused with one-line usage errors. Registrations are process-wide: names here are unique.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <numeric>

#include "app_registry.hpp"
#include "reduce.hpp"
#include "rica/engine.hpp"
#include "rica/os.hpp"
#include "rica/os_policy.hpp"
#include "rica/user_topology.hpp"
#include "traffic.hpp"

namespace {

using rica::node_t;

// A user app: every PE sends one packet to its successor; the count is checked.
class Successor : public rica::App {
 public:
  void setup(rica::Machine& m) override {
    got_.assign(m.pes(), 0);
    h_ = m.add_handler([this](rica::Context& ctx, const rica::Packet&) { ++got_[ctx.pe()]; });
  }
  void start(rica::Context& ctx) override { ctx.send((ctx.pe() + 1) % ctx.pes(), h_); }
  std::uint64_t max_sends_per_pe() const override { return 1; }
  bool verify(std::string& why) const override {
    for (auto g : got_)
      if (g != 1) return why = "a PE got " + std::to_string(g), false;
    return true;
  }

 private:
  rica::handler_t h_ = 0;
  std::vector<std::uint64_t> got_;
};

const rica::AppRegistration successor_reg{{"test-successor", "each PE sends one packet to the next", "test-successor",
                                           {}, "",
                                           [](const rica::SpecArgs&, const rica::Topology&) {
                                             return std::unique_ptr<rica::App>(std::make_unique<Successor>());
                                           }}};

TEST(Extension, RegisteredAppIsListedAndRunsByName) {
  EXPECT_NE(rica::AppRegistry::help_text().find("test-successor"), std::string::npos);
  const rica::Topology t = rica::TopologyRegistry::parse("torus:4x4");
  for (auto engine : {rica::EngineKind::async, rica::EngineKind::cycle}) {
    auto app = rica::AppRegistry::make("test-successor", t);
    rica::EngineConfig cfg;
    cfg.engine = engine;
    cfg.threads = 2;
    const rica::RunStats st = rica::run(t, *app, cfg);
    EXPECT_TRUE(st.app_ok) << st.app_message;
    EXPECT_EQ(st.delivered, 16u);
  }
}

TEST(Extension, AppParametersAreCheckedAgainstTheirDocs) {
  rica::register_app(
      "test-param",
      [](const rica::SpecArgs& a, const rica::Topology&) -> std::unique_ptr<rica::App> {
        return std::make_unique<rica::examples::TreeReduce>(a.uint("rounds"));
      },
      "reduce under another name", {{"rounds", "1..9", "1", "rounds"}});
  const rica::Topology t = rica::TopologyRegistry::parse("mesh:4x4");
  EXPECT_NO_THROW(rica::AppRegistry::make("test-param:3", t));
  EXPECT_NO_THROW(rica::AppRegistry::make("test-param:rounds=2", t));
  EXPECT_THROW(rica::AppRegistry::make("test-param:laps=2", t), rica::usage_error);
  EXPECT_THROW(rica::AppRegistry::make("test-param:rounds=x", t), rica::usage_error);
}

TEST(Extension, BadRegistrationsAreRefused) {
  auto factory = [](const rica::SpecArgs&, const rica::Topology&) -> std::unique_ptr<rica::App> { return nullptr; };
  EXPECT_THROW(rica::register_app("reduce", factory, "taken"), rica::usage_error);
  EXPECT_THROW(rica::register_app("uniform", factory, "a traffic pattern's name"), rica::usage_error);
  EXPECT_THROW(rica::register_app("", factory, "empty"), rica::usage_error);
  EXPECT_THROW(rica::register_app("Bad Name", factory, "spaces"), rica::usage_error);
  EXPECT_THROW(rica::register_app("no-factory", nullptr, "none"), rica::usage_error);
  auto dest = [](const rica::SpecArgs&, const rica::traffic::PeSpace&, std::uint64_t) {
    return rica::traffic::Custom::Function([](node_t s, rica::Rng&) { return s; });
  };
  EXPECT_THROW(rica::register_traffic("uniform", dest, false, "taken"), rica::usage_error);
  EXPECT_THROW(rica::register_traffic("x y", dest, false, "bad"), rica::usage_error);
}

TEST(Extension, RegisteredTrafficRunsAndIsChecked) {
  rica::register_traffic(
      "test-reverse",
      [](const rica::SpecArgs& a, const rica::traffic::PeSpace& s, std::uint64_t) {
        const node_t n = s.pes, shift = a.uint("shift");
        return rica::traffic::Custom::Function([n, shift](node_t src, rica::Rng&) { return (n - 1 - src + shift) % n; });
      },
      false, "address reversal, shifted", {{"shift", "0..N-1", "0", "added mod N"}});
  EXPECT_NE(rica::TrafficRegistry::help_text().find("test-reverse"), std::string::npos);
  EXPECT_EQ(rica::TrafficRegistry::canonical("test-reverse:2"), "test-reverse:shift=2");
  const rica::Topology t = rica::TopologyRegistry::parse("hypercube:4");
  rica::TrafficOptions o;
  o.packets = 5;
  auto app = rica::TrafficRegistry::make("test-reverse", t, o);
  rica::EngineConfig cfg;
  cfg.threads = 2;
  const rica::RunStats st = rica::run(t, *app, cfg);
  EXPECT_TRUE(st.conservation_ok);
  EXPECT_EQ(st.delivered, 16u * 5);
  for (node_t p = 0; p < 16; ++p) EXPECT_EQ(st.pe_delivered[p], 5u) << p;  // a permutation: 5 each

  // A destination out of range is refused (at set-up: deterministic patterns are checked for
  // self-mapped PEs before anything is sent), naming the pattern.
  rica::register_traffic(
      "test-broken",
      [](const rica::SpecArgs&, const rica::traffic::PeSpace& s, std::uint64_t) {
        const node_t n = s.pes;
        return rica::traffic::Custom::Function([n](node_t, rica::Rng&) { return n; });
      },
      false, "always out of range");
  try {
    auto broken = rica::TrafficRegistry::make("test-broken", t, o);
    (void)rica::run(t, *broken, cfg);
    FAIL() << "an out-of-range destination was accepted";
  } catch (const rica::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("traffic 'test-broken': destination 16 of PE 0 is out of range 0..15"),
              std::string::npos)
        << e.what();
  }
}

// A user topology family: a bidirectional ring of n PEs built as an edge list (table routing).
rica::Topology make_test_ring(const rica::SpecArgs& a) {
  const unsigned n = a.uint("n");
  if (n < 3 || n > 4096) throw rica::usage_error("topology 'test-ring': n must be in 3..4096");
  rica::EdgeList g;
  g.nodes = g.pes = n;
  for (node_t v = 0; v < n; ++v) {
    g.arcs.emplace_back(v, (v + 1) % n);
    g.arcs.emplace_back(v, (v + n - 1) % n);
  }
  return rica::GraphTopology(g, "test-ring:n=" + std::to_string(n));
}
const rica::TopologyRegistration test_ring{{"test-ring", "bidirectional ring (a user family)", "test-ring:8",
                                            {{"n", "3..4096", "", "PEs"}}, "n", make_test_ring}};

TEST(Extension, RegisteredTopologyParsesRoutesAndRuns) {
  EXPECT_NE(rica::TopologyRegistry::help_text().find("test-ring"), std::string::npos);
  const rica::Topology t = rica::TopologyRegistry::parse("test-ring:10");
  EXPECT_EQ(t.pes(), 10u);
  EXPECT_EQ(t.spec(), "test-ring:n=10");
  EXPECT_EQ(rica::TopologyRegistry::parse(t.spec()).pes(), 10u);  // spec() round-trips
  unsigned hops = 0;
  for (node_t cur = 0; cur != 5; ++hops) {
    const rica::Hop h = t.route(cur, 5, 0);
    ASSERT_FALSE(h.delivers());
    cur = t.out_link(cur, h.port()).peer;
  }
  EXPECT_EQ(hops, 5u);  // the shorter way round
  EXPECT_THROW(rica::TopologyRegistry::parse("test-ring:2"), rica::usage_error);
  EXPECT_THROW(rica::TopologyRegistry::parse("test-ring:n=5,k=1"), rica::usage_error);
  rica::TrafficOptions o;
  o.packets = 20;
  auto app = rica::TrafficRegistry::make("uniform", t, o);
  rica::EngineConfig cfg;
  cfg.engine = rica::EngineKind::cycle;
  cfg.threads = 2;
  const rica::RunStats st = rica::run(t, *app, cfg);
  EXPECT_TRUE(st.conservation_ok);
  EXPECT_EQ(st.delivered, 200u);
  EXPECT_THROW(rica::register_topology({"torus", "taken", "", {}, "", make_test_ring}), rica::usage_error);
}

// The switch policy of docs/extending.md, verbatim: drain with twice the restore cost.
class DrainLater : public rica::SwitchPolicyImpl {
  std::optional<std::uint64_t> clear(rica::SwitchState& s, const rica::NodeSwitch& n, std::uint64_t now,
                                     std::uint64_t& packets, std::uint64_t& words) override {
    if (!rica::drain_frozen(s, n, now)) return std::nullopt;               // ask again next cycle
    const std::uint64_t saved = rica::drain_sweep(s, n, now, n.v, packets, words);
    return now + 2 * s.words_cost(saved);                                  // twice drain's restore cost
  }
};
const rica::SwitchPolicyRegistration later{
    "drain-later", "drain with a slower save path", [] { return std::make_unique<DrainLater>(); }};

TEST(Extension, RegisteredSwitchPolicyRunsByName) {
  EXPECT_EQ(rica::policy_by_name("drain-later"), later.policy);
  bool listed = false;
  for (const auto& [name, doc] : rica::switch_policies()) listed |= name == "drain-later";
  EXPECT_TRUE(listed);
  const rica::Topology topo = rica::TopologyRegistry::parse("torus:4x4");
  rica::TrafficOptions opt;
  opt.rate = 1.0;
  opt.packets = 200;
  auto a = rica::TrafficRegistry::make("uniform", rica::traffic::PeSpace::of_shape({16}), opt);
  auto b = rica::TrafficRegistry::make("hotspot", rica::traffic::PeSpace::of_shape({16}), opt);
  std::vector<node_t> all(16);
  std::iota(all.begin(), all.end(), 0);
  std::vector<rica::JobSpec> jobs{{"A", a.get(), all}, {"B", b.get(), all}};
  rica::EngineConfig cfg;
  cfg.threads = 2;
  cfg.cycles = 1u << 30;
  cfg.link_cycles = 1;
  rica::OsConfig os;
  os.slots = {{0}, {1}};
  os.slice = 20;
  os.policy = later.policy;
  const rica::OsStats s = rica::run_jobs(topo, jobs, cfg, os);
  EXPECT_TRUE(s.machine.conservation_ok);
  EXPECT_EQ(s.machine.lost + s.machine.duplicates + s.misdelivered, 0u);
  EXPECT_GE(s.switches.size(), 10u);
  std::uint64_t saved = 0;
  for (const auto& r : s.switches) saved += r.packets_saved;
  EXPECT_GT(saved, 0u);  // the policy took packets out of the network
  EXPECT_EQ(s.jobs[0].delivered + s.jobs[1].delivered, 2u * 16 * 200);
  EXPECT_THROW(rica::register_switch_policy("drain-later", "again", [] { return std::make_unique<DrainLater>(); }),
               rica::usage_error);
}

}  // namespace
