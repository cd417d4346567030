// Adaptive routing (rica/routing.hpp): for every adaptive routing at small sizes, exhaustively
// over every destination and every reachable (channel, class) state:
// - candidates and escape hops use present links, classes below the declared count, and deliver
//   exactly at the destination;
// - Duato's condition: the escape hops alone deliver every pair, and the extended channel
//   dependency graph of the escape channels (direct dependencies, and indirect ones through
//   adaptive-only channels) is acyclic;
// - no livelock: the state graph per destination is acyclic, so every sequence of choices
//   delivers; and every choice is shortest where the routing claims it (random walks are as long
//   as the deterministic route).
// Then the engines: cycle-engine traces identical for 1 and 2 threads under adaptive routing, the
// deterministic default unchanged, and adaptive beating deterministic at saturation on torus
// transpose.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "rica/engine.hpp"
#include "rica/faults.hpp"
#include "rica/registry.hpp"
#include "rica/routing.hpp"
#include "support.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

const char* const adaptive_specs[] = {
    "mesh:4x4", "mesh:3x3x2", "mesh:5x3", "torus:4x4", "torus:5x3", "torus:3x4x2", "torus:6", "torus:5x5", "kary:k=4,n=3",
    "torus:6x2", "hypercube:3", "hypercube:5", "fattree:3", "fattree:5", "cbanyan:n=3", "cbanyan:n=4", "cbanyan:n=3,S=5",
    "cbanyan:n=3,S=6", "cbanyan:n=3,S=4,wiring=parallel", "ccc:n=3", "ccc:n=3,S=4", "cb2:n=2", "cb2:n=3", "cccb:n=3",
    "cccb:n=2", "cb2:n=3,S=6", "cccb:n=3,S=6", "cb2:n=3,X=2,freed=parallel", "cccb:n=3,X=2", "mdce:B=1,C=2,n=2",
    "mdce:B=3,C=0,n=2", "mdce:B=1,C=1,P=2,n=3", "cb2:n=2,S=5,X=1,freed=parallel", "shuffle:4", "shuffle:5",
    "file:" RICA_SOURCE_DIR "/examples/ring8.txt", "file:" RICA_SOURCE_DIR "/tests/data/cube_switches.txt",
    "file:" RICA_SOURCE_DIR "/tests/data/irregular12.txt", "file:" RICA_SOURCE_DIR "/tests/data/irregular_switches.txt",
    "hyperx:3x4,T=2,K=2", "hyperx:2x3x2,T=1,K=3"};

std::string spec_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

struct Explored {
  std::uint64_t states = 0, multi = 0;  // reachable states; states with two or more distinct hops
  bool escape_cdg_acyclic = false, states_acyclic = true;
};

class AdaptiveRouting : public ::testing::TestWithParam<const char*> {};

/// The contract of the adaptive routing of t, exhaustively (the file's header). `pes`: the
/// sources and destinations to check (default: every PE).
void check_adaptive(const Topology& t, std::vector<node_t> pes = {});

TEST_P(AdaptiveRouting, CandidatesValidEscapeDuatoAcyclicAndEveryChoiceDelivers) {
  check_adaptive(TopologyRegistry::parse(GetParam()));
}

// Adaptive routing around static faults (rica/routing/faulty.hpp): the same contract on
// networks with failed links and PEs, between the surviving PEs; at= is not offered.
TEST(AdaptiveRouting, AroundStaticFaults) {
  for (const auto& [spec, faults, seed] :
       std::vector<std::tuple<const char*, const char*, std::uint64_t>>{{"torus:5x5", "links=4", 1},
                                                                        {"torus:4x4", "links=2,nodes=1", 3},
                                                                        {"mesh:4x4", "links=3", 2},
                                                                        {"cbanyan:n=3", "links=2", 5},
                                                                        {"debruijn:5", "links=3", 1},
                                                                        {"hypercube:4", "nodes=2", 4}}) {
    SCOPED_TRACE(std::string(spec) + " " + faults);
    const Topology t = with_faults(TopologyRegistry::parse(spec), faults, seed);
    ASSERT_TRUE(std::holds_alternative<FaultyTopology>(t.variant()));
    std::vector<node_t> alive;
    for (node_t v = 0; v < t.pes(); ++v)
      if (!std::get<FaultyTopology>(t.variant()).failed(v)) alive.push_back(v);
    check_adaptive(t, alive);
    if (::testing::Test::HasFatalFailure()) return;
  }
  const Topology dyn = with_faults(TopologyRegistry::parse("torus:4x4"), "links=2,at=10", 1);
  EXPECT_FALSE(offers(dyn, Routing::adaptive));
}

void check_adaptive(const Topology& t, std::vector<node_t> pes) {
  if (pes.empty())
    for (node_t v = 0; v < t.pes(); ++v) pes.push_back(v);
  ASSERT_TRUE(offers(t, Routing::adaptive)) << t.spec();
  const port_t P = t.ports();
  const class_t C = routing_classes(t, Routing::adaptive);
  ASSERT_GE(C, t.buffer_classes());
  const node_t N = t.nodes();
  // A channel: (node, out-port, class); the state of a packet that just crossed it is (peer, class).
  auto channel = [&](node_t v, Hop h) { return (std::uint64_t{v} * P + h.port()) * C + h.next_class(); };
  struct Hops {
    std::vector<std::pair<std::uint64_t, Hop>> hops;  // (channel, hop): escape first
  };
  Explored ex;
  std::vector<std::uint64_t> escape_deps;
  // Pass 1, per destination: every reachable state, its hops, the escape channels.
  std::vector<std::unordered_map<std::uint64_t, std::vector<std::uint64_t>>> next(N);  // per dst: channel -> next channels
  std::unordered_set<std::uint64_t> escape_channels;
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> escape_of(N);  // per dst: channel -> escape channel
  auto node_of = [&](std::uint64_t ch) {
    const node_t v = static_cast<node_t>(ch / C / P);
    return t.out_link(v, static_cast<port_t>(ch / C % P)).peer;
  };
  for (node_t d : pes) {
    std::vector<std::uint64_t> todo;
    std::unordered_set<std::uint64_t> seen;
    auto expand = [&](node_t v, class_t cls, std::uint64_t from) {  // from: the channel in, or ~0 (injection)
      const CandidateSet cs = route_candidates(t, Routing::adaptive, v, d, cls);
      ASSERT_EQ(cs.escape.delivers(), v == d) << t.spec() << ": at " << v << " for " << d;
      if (v == d) {
        ASSERT_EQ(cs.size(), 0u);
        return;
      }
      std::set<std::uint64_t> outs;
      for (unsigned k = 0; k <= cs.size(); ++k) {
        const Hop h = k < cs.size() ? cs[k] : cs.escape;
        ASSERT_FALSE(h.delivers()) << t.spec() << ": a candidate delivers away from the destination";
        ASSERT_TRUE(t.out_link(v, h.port()).present()) << t.spec() << ": absent port " << h.port() << " at " << v;
        ASSERT_LT(h.next_class(), C) << t.spec();
        const std::uint64_t ch = channel(v, h);
        outs.insert(ch);
        if (seen.insert(ch).second) todo.push_back(ch);
      }
      ++ex.states;
      if (outs.size() > 1) ++ex.multi;
      const std::uint64_t esc = channel(v, cs.escape);
      escape_channels.insert(esc);
      if (from != ~std::uint64_t{0}) {
        next[d][from] = std::vector<std::uint64_t>(outs.begin(), outs.end());
        escape_of[d][from] = esc;
      }
    };
    for (node_t s : pes)
      if (s != d) expand(s, 0, ~std::uint64_t{0});
    while (!todo.empty()) {
      const std::uint64_t ch = todo.back();
      todo.pop_back();
      expand(node_of(ch), static_cast<class_t>(ch % C), ch);
      if (::testing::Test::HasFatalFailure()) return;
    }
    // No livelock: the states for d form a DAG (every path ends at d: the escape always exists).
    std::vector<std::uint64_t> deps;
    for (const auto& [from, outs] : next[d])
      for (std::uint64_t to : outs) deps.push_back(from << 32 | to);
    if (!test::acyclic(deps)) ex.states_acyclic = false;
  }
  EXPECT_TRUE(ex.states_acyclic) << t.spec() << ": some choice of candidates can loop";
  // Duato's extended CDG over the escape channels: from each escape channel c (for each d), the
  // escape channels reachable through adaptive-only channels (and directly).
  for (node_t d : pes) {
    for (const auto& [from, outs] : next[d]) {
      if (!escape_channels.count(from)) continue;
      std::vector<std::uint64_t> stack(outs.begin(), outs.end());
      std::unordered_set<std::uint64_t> visited;
      while (!stack.empty()) {
        const std::uint64_t ch = stack.back();
        stack.pop_back();
        if (!visited.insert(ch).second) continue;
        if (escape_channels.count(ch)) {
          escape_deps.push_back(from << 32 | ch);
          continue;
        }
        const auto it = next[d].find(ch);
        if (it != next[d].end()) stack.insert(stack.end(), it->second.begin(), it->second.end());
      }
    }
  }
  EXPECT_TRUE(test::acyclic(escape_deps)) << t.spec() << ": the escape channels' extended dependency graph has a cycle";
  EXPECT_GT(ex.multi, 0u) << t.spec() << ": never more than one way (not adaptive)";
  // The escape hops alone deliver every pair (the escape routing is connected).
  std::mt19937_64 rng(11);
  for (node_t s : pes)
    for (node_t d : pes) {
      if (s == d) continue;
      for (int escape_only = 0; escape_only < 2; ++escape_only) {
        node_t cur = s;
        class_t cls = 0;
        unsigned hops = 0;
        while (true) {
          const CandidateSet cs = route_candidates(t, Routing::adaptive, cur, d, cls);
          if (cs.escape.delivers()) break;
          Hop h = cs.escape;
          if (!escape_only) {  // random selection among candidates and escape
            const unsigned k = static_cast<unsigned>(rng() % (cs.size() + 1));
            if (k < cs.size()) h = cs[k];
          }
          cur = t.out_link(cur, h.port()).peer;
          cls = h.next_class();
          ASSERT_LE(++hops, N * C) << t.spec() << ": " << s << "->" << d << " does not arrive";
        }
        ASSERT_EQ(cur, d);
        // Shortest where claimed: as long as the deterministic route (table-routed graphs: at
        // least as long; their up*/down* escape need not be shortest).
        unsigned det = 0;
        for (node_t v = s, c = 0;;) {
          const Hop h = t.route(v, d, static_cast<class_t>(c));
          if (h.delivers()) break;
          v = t.out_link(v, h.port()).peer;
          c = h.next_class();
          ++det;
        }
        if (std::holds_alternative<GraphTopology>(t.variant()))
          EXPECT_GE(hops, det) << t.spec() << ": " << s << "->" << d;
        else
          EXPECT_EQ(hops, det) << t.spec() << ": " << s << "->" << d << (escape_only ? " (escape)" : " (random)");
      }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryAdaptiveRouting, AdaptiveRouting, ::testing::ValuesIn(adaptive_specs), spec_name);

TEST(AdaptiveRouting, OfferedWhereDocumentedAndRefusedElsewhere) {
  for (const char* spec : {"omega:3", "debruijn:4", "mxx:16", "product:torus:3x3*debruijn:3", "dce:n=4,delta=2",
                           "hier:mesh:3x3/debruijn:3"}) {
    const Topology t = TopologyRegistry::parse(spec);
    EXPECT_FALSE(offers(t, Routing::adaptive)) << spec;
    EXPECT_EQ(routing_names(t), std::vector<std::string>{"deterministic"});
    EXPECT_THROW(check_routing(t, Routing::adaptive), usage_error) << spec;
    EXPECT_NO_THROW(check_routing(t, Routing::deterministic));
  }
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("torus:4x4"), Routing::adaptive), 3);
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("mesh:4x4"), Routing::adaptive), 2);
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("hypercube:4"), Routing::adaptive), 2);
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("fattree:4"), Routing::adaptive), 1);
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("cbanyan:n=3"), Routing::adaptive), 3);
  EXPECT_EQ(routing_classes(TopologyRegistry::parse("file:" RICA_SOURCE_DIR "/tests/data/cube_switches.txt"),
                            Routing::adaptive),
            3);
  // A directed file: graph has no up*/down* escape; adaptive is not offered.
  const Topology directed = TopologyRegistry::parse("file:" RICA_SOURCE_DIR "/tests/data/directed_ring4.txt");
  EXPECT_FALSE(offers(directed, Routing::adaptive));
  EXPECT_THROW(check_routing(directed, Routing::adaptive), usage_error);
  EXPECT_EQ(routing_by_name("adaptive"), Routing::adaptive);
  EXPECT_THROW(routing_by_name("westfirst"), usage_error);
}

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

RunStats run(const std::string& spec, const std::string& traffic, Routing r, unsigned threads, double rate,
             std::uint64_t cycles, const std::string& trace = "") {
  const Topology t = TopologyRegistry::parse(spec);
  TrafficOptions opt;
  opt.rate = rate;
  opt.packets = cycles;
  auto app = TrafficRegistry::make(traffic, t, opt);
  EngineConfig cfg;
  cfg.threads = threads;
  cfg.cycles = cycles;
  cfg.warmup = cycles / 4;
  cfg.trace = trace;
  cfg.routing = r;
  return run_cycles(t, *app, cfg);
}

TEST(AdaptiveRouting, CycleEngineIdenticalForOneAndTwoThreads) {
  const std::string a = ::testing::TempDir() + "rica_adapt_a.csv", b = ::testing::TempDir() + "rica_adapt_b.csv";
  for (const char* spec : {"torus:8x8", "hypercube:6", "fattree:6", "cccb:n=3", "cbanyan:n=4,S=8"}) {
    const auto x = run(spec, "uniform", Routing::adaptive, 1, 0.3, 600, a);
    const auto y = run(spec, "uniform", Routing::adaptive, 2, 0.3, 600, b);
    const std::string ta = slurp(a);
    EXPECT_GT(ta.size(), 100u) << spec;
    EXPECT_EQ(ta, slurp(b)) << spec << ": 1 vs 2 threads";
    EXPECT_TRUE(x.conservation_ok && y.conservation_ok && !x.deadlock) << spec;
    EXPECT_EQ(x.delivered, y.delivered);
  }
}

TEST(AdaptiveRouting, AsyncEngineDeliversEveryPacketExactlyOnce) {
  for (const char* spec : {"torus:8x8", "cb2:n=3", "fattree:5"}) {
    const Topology t = TopologyRegistry::parse(spec);
    TrafficOptions opt;
    opt.rate = 1.0;
    opt.packets = 300;
    auto app = TrafficRegistry::make("uniform", t, opt);
    EngineConfig cfg;
    cfg.threads = 2;
    cfg.routing = Routing::adaptive;
    const RunStats st = run_async(t, *app, cfg);
    EXPECT_TRUE(st.conservation_ok && !st.deadlock) << spec;
    EXPECT_EQ(st.delivered, st.injected) << spec;
    EXPECT_EQ(st.duplicates, 0u) << spec;
  }
}

// Transpose on an 8x8 torus: dimension order piles the packets of a row onto few links; minimal
// adaptive spreads them over both dimensions' minimal paths. Saturation throughput (offered 1.0).
TEST(AdaptiveRouting, BeatsDeterministicAtSaturationOnTorusTranspose) {
  const auto det = run("torus:8x8", "transpose", Routing::deterministic, 2, 1.0, 2000);
  const auto ada = run("torus:8x8", "transpose", Routing::adaptive, 2, 1.0, 2000);
  ASSERT_TRUE(det.conservation_ok && ada.conservation_ok && !det.deadlock && !ada.deadlock);
  std::printf("  torus:8x8 transpose accepted: deterministic %.4f, adaptive %.4f\n", det.throughput, ada.throughput);
  EXPECT_GT(ada.throughput, 1.15 * det.throughput);
}

// Adaptive selection in the cycle engine: a node plans all its heads from the credit view at the
// start of the cycle and each out-port moves at most one packet per cycle, so a head must not pick
// a port an earlier head of the same visit already took (or whose link is busy) when another
// candidate has room. Without that (the selection of before, by occupancy alone) the heads that
// could use either of two links all chose the less occupied one and the other idled: uniform
// traffic at saturation, one cycle per packet per link, accepted (deterministic / adaptive)
// hyperx:4x4,T=8,K=2 0.5845 / 0.4210, hypercube:6 0.8548 / 0.7386, fattree:6 0.6934 / 0.5331,
// torus:8x8 0.5958 / 0.5592; with it adaptive accepts at least the deterministic routing's
// (docs/topologies.md, HyperX).
TEST(AdaptiveRouting, AcceptsAtLeastTheDeterministicRoutingsUniformSaturation) {
  for (const char* spec : {"hyperx:4x4,T=8,K=2", "hypercube:6", "fattree:6", "torus:8x8"}) {
    const auto accepted = [&](Routing r) {
      const Topology t = TopologyRegistry::parse(spec);
      TrafficOptions opt;
      opt.rate = 1.0;
      opt.packets = 1000000;  // the window ends the run
      auto app = TrafficRegistry::make("uniform", t, opt);
      EngineConfig cfg;
      cfg.threads = 2;
      cfg.cycles = 600;
      cfg.warmup = 200;
      cfg.link_cycles = 1;
      cfg.routing = r;
      const RunStats st = run_cycles(t, *app, cfg);
      EXPECT_TRUE(st.conservation_ok && !st.deadlock && st.duplicates == 0) << spec;
      return st.throughput;
    };
    const double det = accepted(Routing::deterministic), ada = accepted(Routing::adaptive);
    std::printf("  %s uniform accepted: deterministic %.4f, adaptive %.4f\n", spec, det, ada);
    EXPECT_GE(ada, det - 0.02) << spec;
  }
}

}  // namespace
}  // namespace rica
