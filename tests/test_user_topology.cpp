// UserTopology (rica/topology/user.hpp): a user's own routing callable in the Topology variant.
// A bidirectional ring with dateline classes, hand-written and registered by name, passes the
// topology contract (checked independently by tests/support.hpp), runs on both engines with
// every packet delivered exactly once, is deterministic on the cycle engine, and has the same
// metrics as the same ring given as a `file:` edge list and as torus:N. Bad descriptions and bad
// routings are refused with one-line messages naming the first bad pair.
#include <gtest/gtest.h>

#include <string>

#include "rica/engine.hpp"
#include "rica/metrics.hpp"
#include "rica/user_topology.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

static_assert(TopologyModel<UserTopology>);

/// Ports: 0 = +1 (arrives on in-port 0), 1 = -1 (in-port 1).
UserLinks ring_links(node_t n) {
  return [n](node_t v, port_t p) { return p == 0 ? Link{(v + 1) % n, 0} : Link{(v + n - 1) % n, 1}; };
}

/// Shortest way round (+ on a tie); class 1 from the dateline on (the wrap link n-1 -> 0 for +
/// packets, 0 -> n-1 for - packets), so the channel dependencies are acyclic.
UserRouting ring_routing(node_t n) {
  return [n](node_t cur, node_t dst, class_t cls) {
    if (cur == dst) return Hop::deliver();
    const node_t ahead = (dst + n - cur) % n;
    if (ahead <= n - ahead) return Hop::forward(0, cls == 1 || cur == n - 1 ? 1 : 0);
    return Hop::forward(1, cls == 1 || cur == 0 ? 1 : 0);
  };
}

UserTopologyDesc ring_desc(node_t n, std::string spec) {
  UserTopologyDesc d;
  d.spec = std::move(spec);
  d.nodes = n;
  d.ports = 2;
  d.buffer_classes = 2;
  d.links = ring_links(n);
  d.routing = ring_routing(n);
  return d;
}

Topology make_test_uring(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  if (n < 3 || n > 4096) throw usage_error("topology 'test-uring': n must be in 3..4096");
  return UserTopology(ring_desc(n, "test-uring:n=" + std::to_string(n)));
}
const TopologyRegistration test_uring{{"test-uring", "bidirectional ring, user routing with dateline classes",
                                       "test-uring:8", {{"n", "3..4096", "", "PEs"}}, "n", make_test_uring}};

/// The message of the usage_error `f` throws (fails the test when it throws none).
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const usage_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no usage_error";
  return {};
}

void expect_error(const std::string& msg, const std::string& part) {
  EXPECT_NE(msg.find(part), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << "not one line: " << msg;
}

TEST(UserTopology, RegisteredRingParsesAndPassesTheContract) {
  EXPECT_NE(TopologyRegistry::help_text().find("test-uring"), std::string::npos);
  for (unsigned n : {3u, 4u, 7u, 8u, 16u}) {
    const Topology t = TopologyRegistry::parse("test-uring:" + std::to_string(n));
    ASSERT_TRUE(std::holds_alternative<UserTopology>(t.variant()));
    EXPECT_EQ(t.spec(), "test-uring:n=" + std::to_string(n));
    EXPECT_EQ(TopologyRegistry::parse(t.spec()).spec(), t.spec());  // spec() parses back
    EXPECT_EQ(t.nodes(), n);
    EXPECT_EQ(t.pes(), n);
    EXPECT_EQ(t.ports(), 2u);
    EXPECT_EQ(t.buffer_classes(), 2u);
    EXPECT_EQ(t.shape(), Shape{n});
    EXPECT_EQ(t.out_link(0, 2), Link{});  // no such port
    test::expect_consistent_links(t);
    const test::RouteStats st = test::trace_pairs(t, test::all_pairs(t), true);
    EXPECT_EQ(st.pairs, std::uint64_t{n} * (n - 1));
    EXPECT_EQ(st.max_hops, n / 2);
    EXPECT_TRUE(test::acyclic(st.deps)) << t.spec();  // the independent Dally-Seitz check
  }
  EXPECT_THROW(TopologyRegistry::parse("test-uring:2"), usage_error);
  // A component of the composites, like any family.
  const Topology p = TopologyRegistry::parse("product:(test-uring:4)*(mesh:3)");
  const test::RouteStats st = test::trace_pairs(p, test::all_pairs(p), true);
  EXPECT_EQ(st.pairs, 12u * 11u);
  EXPECT_TRUE(test::acyclic(st.deps));
}

TEST(UserTopology, ArcsGiveTheSameLinksAsTheCallable) {
  const node_t n = 6;
  UserTopologyDesc d = ring_desc(n, "ring-arcs");
  d.links = nullptr;
  for (node_t v = 0; v < n; ++v) d.arcs.emplace_back(v, (v + 1) % n);  // port 0 of every node: +1
  for (node_t v = 0; v < n; ++v) d.arcs.emplace_back(v, (v + n - 1) % n);
  const UserTopology a(std::move(d)), b(ring_desc(n, "ring-links"));
  ASSERT_EQ(a.ports(), 2u);
  // The arcs number in-ports by (source node, source port): same peers and ports, in-ports differ.
  for (node_t v = 0; v < n; ++v)
    for (port_t p = 0; p < 2; ++p) EXPECT_EQ(a.out_link(v, p).peer, b.out_link(v, p).peer);
  test::expect_consistent_links(Topology(a));
}

TEST(UserTopology, EveryPacketIsDeliveredOnceOnBothEngines) {
  const Topology t = TopologyRegistry::parse("test-uring:12");
  for (auto engine : {EngineKind::async, EngineKind::cycle}) {
    TrafficOptions o;
    o.packets = 50;
    o.rate = 0.3;
    auto app = TrafficRegistry::make("uniform", t, o);
    EngineConfig cfg;
    cfg.engine = engine;
    cfg.threads = 2;
    const RunStats st = run(t, *app, cfg);
    EXPECT_TRUE(st.conservation_ok) << to_string(engine);
    EXPECT_FALSE(st.deadlock) << st.deadlock_report;
    EXPECT_EQ(st.injected, 12u * 50);
    EXPECT_EQ(st.delivered, 12u * 50) << to_string(engine);
    EXPECT_EQ(st.duplicates + st.lost + st.in_network, 0u);
    EXPECT_LE(st.hops_max, 6u);
  }
}

TEST(UserTopology, CycleEngineIsDeterministicAcrossThreadCounts) {
  const Topology t = TopologyRegistry::parse("test-uring:16");
  auto once = [&](unsigned threads) {
    TrafficOptions o;
    o.packets = 400;
    o.rate = 0.5;
    auto app = TrafficRegistry::make("uniform", t, o);
    EngineConfig cfg;
    cfg.threads = threads;
    cfg.cycles = 3000;
    return run_cycles(t, *app, cfg);
  };
  const RunStats a = once(1), b = once(2);
  ASSERT_TRUE(a.conservation_ok && b.conservation_ok);
  EXPECT_GT(a.delivered, 0u);
  EXPECT_EQ(a.delivered, b.delivered);
  EXPECT_EQ(a.hops, b.hops);
  EXPECT_EQ(a.blocked, b.blocked);
  EXPECT_EQ(a.cycles_run, b.cycles_run);
  EXPECT_EQ(a.latency_mean, b.latency_mean);
  EXPECT_EQ(a.latency_max, b.latency_max);
  EXPECT_EQ(a.link_packets, b.link_packets);
  EXPECT_EQ(a.pe_delivered, b.pe_delivered);
}

TEST(UserTopology, MetricsEqualTheSameRingAsFileAndAsTorus) {
  for (node_t n : {7u, 8u, 12u}) {
    const Topology user = TopologyRegistry::parse("test-uring:" + std::to_string(n));
    EdgeList g;
    g.nodes = g.pes = n;
    for (node_t v = 0; v < n; ++v) {  // port 0 = +1 first: table routing's tie (lowest port) is + too
      g.arcs.emplace_back(v, (v + 1) % n);
      g.arcs.emplace_back(v, (v + n - 1) % n);
    }
    const Topology file = GraphTopology(g, "file:ring.txt");
    const Topology torus = TopologyRegistry::parse("torus:" + std::to_string(n));
    const TopologyMetrics u = compute_metrics(user);
    EXPECT_EQ(u.method, "exact-all-pairs");
    for (const Topology* other : {&file, &torus}) {
      const TopologyMetrics o = compute_metrics(*other);
      SCOPED_TRACE(o.spec);
      EXPECT_EQ(u.links, o.links);
      EXPECT_DOUBLE_EQ(u.degree, o.degree);
      EXPECT_EQ(u.degree_in, o.degree_in);
      EXPECT_EQ(u.degree_out, o.degree_out);
      EXPECT_EQ(u.diameter, o.diameter);
      EXPECT_DOUBLE_EQ(u.mean_distance, o.mean_distance);
      EXPECT_EQ(u.routed_diameter, o.routed_diameter);
      EXPECT_DOUBLE_EQ(u.routed_mean_distance, o.routed_mean_distance);
      EXPECT_NEAR(u.avg_relay, o.avg_relay, 1e-9);
      EXPECT_NEAR(u.max_relay, o.max_relay, 1e-9);
      EXPECT_EQ(u.fault_tolerance, o.fault_tolerance);
      EXPECT_DOUBLE_EQ(u.cost, o.cost);
    }
    EXPECT_EQ(u.buffer_classes, compute_metrics(torus).buffer_classes);
  }
}

TEST(UserTopology, BadDescriptionsAreRefused) {
  auto build = [](auto edit) {
    return error_of([&] {
      UserTopologyDesc d = ring_desc(6, "bad");
      edit(d);
      (void)UserTopology(std::move(d));
    });
  };
  expect_error(build([](UserTopologyDesc& d) { d.buffer_classes = 0; }),
               "user topology 'bad': buffer_classes must be at least 1");
  expect_error(build([](UserTopologyDesc& d) { d.pes = 1; }), "user topology 'bad': pes = 1 is out of range [2, nodes = 6]");
  expect_error(build([](UserTopologyDesc& d) { d.nodes = 1; }), "nodes = 1 is out of range");
  expect_error(build([](UserTopologyDesc& d) { d.routing = nullptr; }), "no routing callable");
  expect_error(build([](UserTopologyDesc& d) { d.links = nullptr; }), "no links");
  expect_error(build([](UserTopologyDesc& d) { d.arcs = {{0, 1}}; }), "not both");
  expect_error(build([](UserTopologyDesc& d) { d.ports = 0; }), "ports must be at least 1");
  expect_error(build([](UserTopologyDesc& d) {
                 d.links = [](node_t v, port_t p) { return p == 0 ? Link{(v + 1) % 6, 0} : Link{v == 3 ? 9u : (v + 5) % 6, 1}; };
               }),
               "link from node 3 port 1 ends at node 9, outside [0, 5]");
  expect_error(build([](UserTopologyDesc& d) {
                 d.links = [](node_t v, port_t p) { return p == 0 ? Link{(v + 1) % 6, 0} : Link{(v + 5) % 6, 0}; };
               }),
               "in-port 0 of node 1 is fed by two links (from node 0 port 0 and node 2 port 1)");
  expect_error(build([](UserTopologyDesc& d) {
                 d.links = [](node_t v, port_t p) { return p == 0 ? Link{(v + 1) % 6, 0} : Link{(v + 5) % 6, 2}; };
               }),
               "arrives on in-port 2, but ports = 2");
  expect_error(build([](UserTopologyDesc& d) { d.labels = {"a"}; }), "1 labels for 6 nodes");
  expect_error(build([](UserTopologyDesc& d) { d.shape = {2, 2}; }), "shape 2x2 has 4 PEs, not 6");
}

TEST(UserTopology, BadRoutingsAreRefusedNamingThePair) {
  auto with_routing = [](UserRouting r, class_t classes = 2) {
    return error_of([&] {
      UserTopologyDesc d = ring_desc(6, "bad");
      d.routing = std::move(r);
      d.buffer_classes = classes;
      (void)UserTopology(std::move(d));
    });
  };
  // Ping-pong between two nodes: a loop.
  expect_error(with_routing([](node_t cur, node_t dst, class_t) {
                 return cur == dst ? Hop::deliver() : Hop::forward(cur % 2 == 0 ? 0 : 1, 0);
               }),
               "user topology 'bad': the route from PE 2 to PE 0 loops (node 2 in class 0 twice)");
  // A class beyond the declared count.
  const UserRouting good = ring_routing(6);
  expect_error(with_routing([good](node_t cur, node_t dst, class_t cls) {
                 const Hop h = good(cur, dst, cls);
                 return h.delivers() || cur != 4 ? h : Hop::forward(h.port(), 2);
               }),
               "the route from PE 3 to PE 0 takes class 2 at node 4; buffer classes are 0..1");
  // One class only: the ring's channels depend on each other in a cycle (deadlock-prone).
  const std::string msg = with_routing([good](node_t cur, node_t dst, class_t cls) {
    const Hop h = good(cur, dst, cls);
    return h.delivers() ? h : Hop::forward(h.port(), 0);
  }, 1);
  expect_error(msg,
               "user topology 'bad': the routing can deadlock: a cycle of 6 channel dependencies, e.g. link 3 -> 4 "
               "(port 0, class 0) then link 4 -> 5 (port 0, class 0), used by the route from PE 3 to PE 0");
  // A port the node does not have; delivery at the wrong node; a route too long.
  expect_error(with_routing([](node_t cur, node_t dst, class_t) { return cur == dst ? Hop::deliver() : Hop::forward(3, 0); }),
               "the route from PE 1 to PE 0 leaves node 1 through port 3, which has no link");
  expect_error(with_routing([](node_t, node_t, class_t) { return Hop::deliver(); }),
               "the route from PE 1 to PE 0 delivers at node 1");
  // Always +1, and round once more before delivering (class 1 marks the second visit): too long.
  expect_error(with_routing([](node_t cur, node_t dst, class_t cls) {
                 if (cur == dst && cls == 1) return Hop::deliver();
                 return Hop::forward(0, static_cast<class_t>(cur == dst ? 1 : cls));
               }),
               "does not arrive within 6 hops");
  // Large networks skip the automatic check; check_routing() runs it on demand.
  UserTopologyDesc d = ring_desc(6, "unchecked");
  d.routing = [](node_t, node_t, class_t) { return Hop::deliver(); };
  d.check_routing = false;
  const UserTopology t(std::move(d));
  expect_error(error_of([&] { t.check_routing(); }), "user topology 'unchecked': the route from PE 1 to PE 0 delivers");
}

}  // namespace
}  // namespace rica
