// Faults (docs/faults.md): the rerouting tables around failed links and nodes on several families
// (every surviving pair delivered over surviving links along a shortest surviving path, classes
// within the declared count, channel dependency graph acyclic), the refusal of a disconnecting
// fault set, exactly-once delivery under static faults in both engines, the accounting of
// dynamic faults (injected = delivered + in network + dropped by faults) and the determinism of
// the cycle engine with faults for 1 and 2 threads.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "rica/engine.hpp"
#include "rica/faults.hpp"
#include "rica/registry.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

const FaultyTopology& faulty(const Topology& t) { return std::get<FaultyTopology>(t.variant()); }

/// Hop distances to `d` over the base's links minus failed ones (an independent BFS).
std::vector<unsigned> distances_to(const Topology& base, const FaultyTopology& f, node_t d) {
  const unsigned inf = std::numeric_limits<unsigned>::max();
  std::vector<std::vector<node_t>> rev(base.nodes());
  for (node_t v = 0; v < base.nodes(); ++v)
    for (port_t p = 0; p < base.ports(); ++p) {
      const Link l = base.out_link(v, p);
      if (l.present() && !f.failed_link(v, p) && !f.failed(v) && !f.failed(l.peer)) rev[l.peer].push_back(v);
    }
  std::vector<unsigned> dist(base.nodes(), inf);
  std::vector<node_t> q{d};
  dist[d] = 0;
  for (std::size_t h = 0; h < q.size(); ++h)
    for (node_t u : rev[q[h]])
      if (dist[u] == inf) dist[u] = dist[q[h]] + 1, q.push_back(u);
  return dist;
}

/// Checks the contract of a faulty network: every ordered pair of surviving PEs delivered over
/// links that exist and have not failed, along a shortest surviving path, with classes below the
/// declared count, and an acyclic channel dependency graph.
void check_rerouting(const Topology& t) {
  const FaultyTopology& f = faulty(t);
  const Topology& base = f.base();
  test::expect_consistent_links(t);
  std::vector<std::pair<node_t, node_t>> pairs;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d)
      if (s != d && !f.failed(s) && !f.failed(d)) pairs.emplace_back(s, d);
  const auto st = test::trace_pairs(t, pairs, true);
  EXPECT_EQ(st.pairs, pairs.size());
  EXPECT_LT(st.max_class, t.buffer_classes());
  EXPECT_TRUE(test::acyclic(st.deps)) << t.spec() << " " << f.faults_text() << ": channel dependency cycle";
  // Routes avoid failed links and are shortest on the surviving graph.
  for (node_t d = 0; d < t.pes(); ++d) {
    if (f.failed(d)) continue;
    const auto dist = distances_to(base, f, d);
    for (node_t s = 0; s < t.pes(); ++s) {
      if (s == d || f.failed(s)) continue;
      node_t cur = s;
      class_t cls = 0;
      unsigned hops = 0;
      while (cur != d && hops <= t.nodes()) {
        const Hop h = t.route(cur, d, cls);
        ASSERT_FALSE(h.delivers()) << "delivered at " << cur << " instead of " << d;
        ASSERT_FALSE(f.failed_link(cur, h.port())) << t.spec() << ": " << s << "->" << d << " crosses a failed link";
        const Link l = base.out_link(cur, h.port());
        ASSERT_TRUE(l.present());
        ASSERT_FALSE(f.failed(l.peer));
        cur = l.peer;
        cls = h.next_class();
        ++hops;
      }
      ASSERT_EQ(hops, dist[s]) << t.spec() << " " << f.faults_text() << ": " << s << "->" << d << " not shortest";
    }
  }
}

TEST(Faults, ReroutingDeliversEverySurvivingPairDeadlockFree) {
  const char* specs[] = {"torus:4x4",  "mesh:5x4",   "torus:3x4x2", "hypercube:4",  "debruijn:5", "ubruijn:5",
                         "mxx:16",     "mesh8:6",    "cbanyan:n=3", "dce:n=4,delta=2", "comega:n=3", "fattree:4",
                         "shuffle:5",  "cccb:n=3",   "mdce:B=1,C=1,P=2,n=3", "dragonfly:h=2", "hyperx:3x3,T=1",
                         "slimfly:q=3,p=1"};
  for (const char* spec : specs) {
    const Topology base = TopologyRegistry::parse(spec);
    unsigned checked = 0;
    for (const char* faults : {"links=1", "links=3", "links=2,nodes=1", "nodes=2"}) {
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        try {
          const Topology t = with_faults(base, faults, seed);
          check_rerouting(t);
          ++checked;
        } catch (const usage_error& e) {  // this draw disconnects the network: refused, naming a pair
          EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << spec << ": " << e.what();
        }
      }
    }
    EXPECT_GT(checked, 3u) << spec << ": too few connected fault sets to test";
  }
}

TEST(Faults, DynamicReroutingIsDeadlockFreeFromAnyBaseClass) {
  // With at=, the rerouting classes follow the base's; a packet in any base class is routed
  // afresh from where it is. Trace from every node, starting in every base class.
  for (const char* spec : {"torus:4x4", "debruijn:5", "cbanyan:n=3", "mxx:16"}) {
    const Topology base = TopologyRegistry::parse(spec);
    const Topology t = with_faults(base, "links=2,at=100", 7);
    const FaultyTopology& f = faulty(t);
    EXPECT_EQ(f.class_offset(), base.buffer_classes());
    std::vector<std::uint64_t> deps;
    const port_t P = t.ports();
    const class_t C = t.buffer_classes();
    for (class_t c0 = 0; c0 < f.class_offset(); ++c0)
      for (node_t s = 0; s < t.nodes(); ++s)
        for (node_t d = 0; d < t.pes(); ++d) {
          if (s == d) continue;
          node_t cur = s;
          class_t cls = c0;
          std::uint64_t prev = ~std::uint64_t{0};
          for (unsigned hops = 0; cur != d; ++hops) {
            ASSERT_LE(hops, t.nodes());
            const Hop h = t.route(cur, d, cls);
            ASSERT_FALSE(h.delivers());
            ASSERT_FALSE(f.failed_link(cur, h.port()));
            ASSERT_GE(h.next_class(), f.class_offset());
            ASSERT_LT(h.next_class(), C);
            const std::uint64_t ch = (std::uint64_t{cur} * P + h.port()) * C + h.next_class();
            if (prev != ~std::uint64_t{0}) deps.push_back(prev << 32 | ch);
            prev = ch;
            cur = t.out_link(cur, h.port()).peer;
            cls = h.next_class();
          }
        }
    EXPECT_TRUE(test::acyclic(deps)) << spec;
  }
}

TEST(Faults, DisconnectingFaultSetIsRefusedNamingAPair) {
  const std::string path = ::testing::TempDir() + "rica_cut.txt";
  {
    std::ofstream f(path);
    f << "# cut PE 5 of torus:4x4 off\nlink 5 4\nlink 5 6\nlink 5 1\nlink 5 9\n";
  }
  const Topology base = TopologyRegistry::parse("torus:4x4");
  try {
    (void)with_faults(base, "file:" + path, 1);
    FAIL() << "a disconnecting fault set was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot reach"), std::string::npos) << e.what();
  }
  // Without one of the four links it is connected, and PE 5 still reached over the last one.
  {
    std::ofstream f(path);
    f << "link 5 4\nlink 5 6\nlink 5 1\n";
  }
  const Topology t = with_faults(base, "file:" + path, 1);
  check_rerouting(t);
  std::remove(path.c_str());
}

TEST(Faults, SpecParsing) {
  const FaultSpec f = parse_fault_spec("file:a,b.txt,links=3,at=9");
  EXPECT_EQ(f.file, "a,b.txt");
  EXPECT_EQ(f.links, 3u);
  EXPECT_EQ(f.at, 9u);
  EXPECT_EQ(parse_fault_spec(f.text()).text(), f.text());
  for (const char* bad : {"", "links", "links=-1", "nodes=1,nodes=2", "at=0,links=1", "at=5", "x=1", "links=1,"})
    EXPECT_THROW((void)parse_fault_spec(bad), usage_error) << bad;
  // Random draws depend on the seed only.
  const Topology base = TopologyRegistry::parse("torus:8x8");
  const FaultSet a = resolve_faults(base, parse_fault_spec("links=5,nodes=2"), 3);
  const FaultSet b = resolve_faults(base, parse_fault_spec("links=5,nodes=2"), 3);
  EXPECT_EQ(a.links, b.links);
  EXPECT_EQ(a.nodes, b.nodes);
  EXPECT_EQ(a.links.size(), 5u);
  EXPECT_EQ(a.nodes.size(), 2u);
}

TEST(Faults, DeBruijnSparePerNecklaceReplacesTheFirstFailureOfEachNecklace) {
  const Topology base = TopologyRegistry::parse("ubruijn:4,spares=necklace");
  EXPECT_EQ(base.spec(), "ubruijn:n=4,spares=necklace");
  EXPECT_EQ(TopologyRegistry::parse(base.spec()).spec(), base.spec());
  const std::string path = ::testing::TempDir() + "rica_spares.txt";
  auto faults = [&](const std::string& text) {
    std::ofstream(path) << text;
    return resolve_faults(base, parse_fault_spec("file:" + path), 1);
  };
  // 1, 2, 4, 8 form one necklace (rotations of 0001); 3 = 0011 another.
  FaultSet f = faults("node 1\nnode 3\n");
  EXPECT_EQ(f.replaced, (std::vector<node_t>{1, 3}));
  EXPECT_TRUE(f.nodes.empty());
  const Topology repaired = with_faults(base, "file:" + path, 1);
  EXPECT_FALSE(std::holds_alternative<FaultyTopology>(repaired.variant())) << "every failure repaired: intact network";
  f = faults("node 2\nnode 8\nnode 3\n");
  EXPECT_EQ(f.replaced, (std::vector<node_t>{2, 3}));
  EXPECT_EQ(f.nodes, (std::vector<node_t>{8}));  // its necklace's spare is taken
  const Topology t = with_faults(base, "file:" + path, 1);
  ASSERT_TRUE(std::holds_alternative<FaultyTopology>(t.variant()));
  EXPECT_EQ(faulty(t).failed_nodes(), (std::vector<node_t>{8}));
  check_rerouting(t);
  // Without spares every failure stays.
  const Topology plain = TopologyRegistry::parse("ubruijn:4");
  EXPECT_EQ(resolve_faults(plain, parse_fault_spec("file:" + path), 1).nodes, (std::vector<node_t>{2, 3, 8}));
  std::remove(path.c_str());
}

RunStats run_traffic(const Topology& t, const char* traffic, bool cycle, unsigned threads, std::uint64_t cycles,
                     double rate, const std::string& trace = "") {
  TrafficOptions opt;
  opt.rate = rate;
  opt.packets = cycle ? cycles : 100;
  auto app = TrafficRegistry::make(traffic, t, opt);
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.cycles = cycles;
  cfg.trace = trace;
  return cycle ? run_cycles(t, *app, cfg) : run_async(t, *app, cfg);
}

TEST(Faults, ExactlyOnceUnderStaticFaultsInBothEngines) {
  for (const char* spec : {"torus:8x8", "debruijn:6", "cccb:n=3", "mxx:16"}) {
    // The first seed whose draw leaves the network connected (de Bruijn's out-degree is 2).
    std::optional<Topology> ft;
    for (std::uint64_t seed = 5; !ft && seed < 50; ++seed) try {
        ft = with_faults(TopologyRegistry::parse(spec), "links=3,nodes=2", seed);
      } catch (const usage_error&) {
      }
    ASSERT_TRUE(ft) << spec;
    const Topology& t = *ft;
    for (const char* traffic : {"uniform", "bitcomp"}) {
      if (std::string(traffic) == "bitcomp" && std::string(spec) == "cccb:n=3") continue;  // 96 PEs
      for (bool cycle : {false, true}) {
        const RunStats st = run_traffic(t, traffic, cycle, 2, 400, cycle ? 0.1 : 1.0);
        EXPECT_FALSE(st.deadlock) << spec << " " << traffic << ": " << st.deadlock_report;
        EXPECT_TRUE(st.conservation_ok) << spec << " " << traffic;
        EXPECT_EQ(st.verify_method, "bitmap");
        EXPECT_TRUE(st.app_ok) << spec << " " << traffic << ": " << st.app_message;
        EXPECT_EQ(st.dropped_by_faults, 0u);  // static: no packet is ever addressed to a failed PE
        EXPECT_GT(st.delivered, 0u);
        EXPECT_EQ(st.pe_injected[faulty(t).failed_nodes()[0]], 0u);
        EXPECT_EQ(st.pe_delivered[faulty(t).failed_nodes()[1]], 0u);
      }
    }
  }
}

TEST(Faults, DynamicFailureAccountingBalances) {
  std::uint64_t dropped = 0;
  for (const char* spec : {"torus:8x8", "debruijn:6", "cccb:n=3"}) {
    const Topology t = with_faults(TopologyRegistry::parse(spec), "links=4,nodes=2,at=300", 2);
    const RunStats st = run_traffic(t, "uniform", true, 2, 800, 0.3);
    EXPECT_FALSE(st.deadlock) << spec << ": " << st.deadlock_report;
    EXPECT_EQ(st.fault_cycle, 300u);
    EXPECT_EQ(st.injected, st.delivered + st.in_network + st.dropped_by_faults) << spec;
    EXPECT_TRUE(st.conservation_ok) << spec;
    EXPECT_EQ(st.duplicates, 0u);
    EXPECT_EQ(st.lost, 0u);
    dropped += st.dropped_by_faults;
  }
  EXPECT_GT(dropped, 0u) << "at 0.3 packets/PE/cycle failing nodes must hold packets";
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Faults, CycleEngineDeterministicWithFaultsForOneAndTwoThreads) {
  for (const char* faults : {"links=4,nodes=1", "links=4,nodes=2,at=250"}) {
    const Topology t = with_faults(TopologyRegistry::parse("torus:16x16"), faults, 4);
    const std::string a = ::testing::TempDir() + "rica_faults_a.csv", b = ::testing::TempDir() + "rica_faults_b.csv";
    const RunStats sa = run_traffic(t, "uniform", true, 1, 600, 0.2, a);
    const RunStats sb = run_traffic(t, "uniform", true, 2, 600, 0.2, b);
    EXPECT_EQ(sa.delivered, sb.delivered);
    EXPECT_EQ(sa.dropped_by_faults, sb.dropped_by_faults);
    EXPECT_EQ(sa.cycles_run, sb.cycles_run);
    const std::string ta = slurp(a), tb = slurp(b);
    EXPECT_GT(ta.size(), 1000u);
    EXPECT_TRUE(ta == tb) << faults << ": traces differ between 1 and 2 threads";
    std::remove(a.c_str());
    std::remove(b.c_str());
  }
}

}  // namespace
}  // namespace rica
