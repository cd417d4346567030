// The broadcast app (apps/examples/broadcast.hpp): every PE reached exactly once, messages and
// duplicates accounted for, depth against an independent BFS of the topology's node graph, and
// the de Bruijn paper's "broadcast in 2 log2 N" (§6) for n = 3..10.
#include "broadcast.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "app_registry.hpp"
#include "rica/engine.hpp"
#include "rica/graph.hpp"
#include "rica/registry.hpp"

namespace {

using rica::node_t;
using rica::Topology;
using rica::TopologyRegistry;
using rica::examples::Broadcast;
using rica::examples::BroadcastRule;

Topology topo(const std::string& spec) { return TopologyRegistry::parse(spec); }

/// Zero-contention timing: one cycle per link, one-word packets.
rica::EngineConfig unit_engine() {
  rica::EngineConfig cfg;
  cfg.threads = 1;
  cfg.link_cycles = 1;
  cfg.packet_words = 1;
  cfg.packet_spread = 0;
  return cfg;
}

/// Eccentricity of `src` among the PEs of a direct network, by BFS on the node graph (rica::bfs,
/// independent of the app's own PE graph).
std::uint32_t direct_eccentricity(const Topology& t, node_t src) {
  const rica::Graph g = rica::build_graph(t);
  std::vector<std::uint32_t> dist;
  std::vector<node_t> queue;
  rica::bfs(g, src, dist, queue);
  std::uint32_t e = 0;
  for (node_t p = 0; p < t.pes(); ++p) e = std::max(e, dist[p]);
  return e;
}

std::unique_ptr<Broadcast> run(const Topology& t, const std::string& spec, rica::RunStats& st, bool cycle = true) {
  auto app = rica::AppRegistry::make(spec, t);
  auto* b = dynamic_cast<Broadcast*>(app.get());
  EXPECT_NE(b, nullptr);
  app.release();
  std::unique_ptr<Broadcast> out(b);
  st = cycle ? rica::run_cycles(t, *out, unit_engine()) : rica::run_async(t, *out, unit_engine());
  return out;
}

TEST(Broadcast, PeGraphOfDirectAndIndirectNetworks) {
  // Direct: the out-link peers.
  const auto mesh = rica::examples::pe_graph(topo("mesh:3x3"));
  EXPECT_EQ(std::vector<node_t>(mesh.neighbours(0).begin(), mesh.neighbours(0).end()), (std::vector<node_t>{1, 3}));
  EXPECT_EQ(mesh.neighbours(4).size(), 4u);
  const auto db = rica::examples::pe_graph(topo("debruijn:3"));  // directed: x -> 2x, 2x+1 (mod 8)
  EXPECT_EQ(std::vector<node_t>(db.neighbours(3).begin(), db.neighbours(3).end()), (std::vector<node_t>{6, 7}));
  // Indirect: every PE reaches every other through switches only.
  for (const char* spec : {"omega:4", "fattree:4"}) {
    const auto g = rica::examples::pe_graph(topo(spec));
    for (node_t p = 0; p < g.pes; ++p) ASSERT_EQ(g.neighbours(p).size(), g.pes - 1) << spec;
  }
}

TEST(Broadcast, EveryPeOnceDepthIsTheEccentricity) {
  for (const char* spec : {"mesh:4x4", "torus:5x5", "hypercube:5", "debruijn:5", "ubruijn:5", "ccc:n=3", "cccb:n=2",
                           "mesh8:5", "omega:4", "fattree:4"}) {
    const Topology t = topo(spec);
    for (const node_t source : {node_t{0}, t.pes() - 1}) {
      for (const char* rule : {"flood", "tree"}) {
        SCOPED_TRACE(std::string(spec) + " source " + std::to_string(source) + " " + rule);
        rica::RunStats st;
        const auto b = run(t, fmt::format("broadcast:source={},rule={}", source, rule), st);
        ASSERT_FALSE(st.deadlock) << st.deadlock_report;
        ASSERT_TRUE(st.conservation_ok && st.app_ok) << st.app_message;
        EXPECT_EQ(b->first_receipts(), t.pes() - 1);
        for (node_t p = 0; p < t.pes(); ++p) {
          const auto& r = b->results()[p];
          ASSERT_TRUE(r.reached) << p;
          if (p != source) {
            ASSERT_GE(r.received, 1u) << p;
          }
        }
        EXPECT_EQ(b->duplicates(), b->messages() - (t.pes() - 1));
        EXPECT_EQ(st.delivered, b->messages());
        const std::uint32_t ecc = t.direct() ? direct_eccentricity(t, source) : 1;
        EXPECT_EQ(b->eccentricity(), ecc);
        // The tree's depth is the BFS eccentricity whatever the timing. A flood's first copy may
        // come along a longer chain (a PE's copies leave one per cycle, so its 8th neighbour on
        // the eight-neighbour mesh waits while a chain moves on); with unit links and one-word
        // packets the networks of degree <= 4 here still reach every PE first by a shortest path.
        if (std::string(rule) == "tree" || std::string(spec) != "mesh8:5") {
          EXPECT_EQ(b->depth(), ecc);
        } else {
          EXPECT_GE(b->depth(), ecc);  // from PE 0: depth 8, eccentricity 4
        }
        if (std::string(rule) == "tree") {
          EXPECT_EQ(b->messages(), t.pes() - 1);
          EXPECT_EQ(b->duplicates(), 0u);
        } else {
          // Flooding: each PE sends to every neighbour but the sender of its first copy.
          std::uint64_t most = 0, least = 0;
          const auto g = rica::examples::pe_graph(t);
          for (node_t p = 0; p < t.pes(); ++p) {
            most += g.neighbours(p).size();
            least += g.neighbours(p).size() - (p != source ? 1 : 0);
          }
          EXPECT_LE(b->messages(), most);
          EXPECT_GE(b->messages(), least);
        }
        // Per first copy, the network links crossed are at least its PE-hops.
        EXPECT_GE(b->summary().at("links").get<std::uint32_t>(), b->depth());
        EXPECT_GT(b->time(), 0u);
      }
    }
  }
}

TEST(Broadcast, AsyncEngineReachesEveryPeOnce) {
  for (const char* spec : {"torus:4x4", "ubruijn:6"}) {
    const Topology t = topo(spec);
    rica::RunStats st;
    const auto b = run(t, "broadcast:rule=flood", st, false);
    ASSERT_TRUE(st.conservation_ok && st.app_ok) << st.app_message;
    EXPECT_EQ(b->first_receipts(), t.pes() - 1);
    EXPECT_GE(b->depth(), b->eccentricity());  // asynchronous timing may take a longer path first
  }
}

TEST(Broadcast, DeBruijnWithinTwoLog2N) {
  // The paper (§6): broadcast time 2 log2 N (hypercube: log2 N). In PE-hops the flood's depth is
  // the source's eccentricity: n on the directed de Bruijn network, at most n undirected.
  for (unsigned n = 3; n <= 10; ++n) {
    for (const std::string family : {"debruijn", "ubruijn"}) {
      SCOPED_TRACE(family + ":" + std::to_string(n));
      const Topology t = topo(family + ":" + std::to_string(n));
      rica::RunStats st;
      const auto b = run(t, "broadcast", st);
      ASSERT_TRUE(st.conservation_ok && st.app_ok) << st.app_message;
      EXPECT_EQ(b->first_receipts(), t.pes() - 1);
      EXPECT_EQ(b->depth(), direct_eccentricity(t, 0));
      EXPECT_LE(b->depth(), 2 * n);
      if (family == "debruijn") {
        EXPECT_EQ(b->depth(), n);  // 0 -> ... needs n shifts to reach 11..1
      }
      EXPECT_EQ(b->summary().at("two_log2_pes").get<unsigned>(), 2 * n);
    }
  }
}

// The one-port model of the BFS tree: the hypercube's tree is the binomial tree, log2 N steps
// (each PE sends to one child per step, the biggest subtree first); a path of k PEs from an end
// takes k - 1; a star (the source of an indirect network sends to all) N - 1.
TEST(Broadcast, OnePortStepsOfTheTree) {
  const auto steps = [](const std::string& spec, const std::string& app) {
    const Topology t = topo(spec);
    auto a = rica::AppRegistry::make(app, t);
    rica::RunStats st = rica::run_cycles(t, *a, unit_engine());
    EXPECT_TRUE(st.app_ok) << st.app_message;
    return a->summary().at("one_port_steps").get<unsigned>();
  };
  for (unsigned n = 2; n <= 8; ++n) EXPECT_EQ(steps(fmt::format("hypercube:{}", n), "broadcast:rule=tree"), n);
  EXPECT_EQ(steps("mesh:7", "broadcast:rule=tree"), 6u);
  EXPECT_EQ(steps("mesh:7", "broadcast:source=3,rule=tree"), 4u);  // 2 children, 3 hops each side
  EXPECT_EQ(steps("omega:3", "broadcast:rule=tree"), 7u);
  // The paper's bound on de Bruijn (§6): 2 log2 N.
  for (unsigned n = 3; n <= 10; ++n) EXPECT_LE(steps(fmt::format("ubruijn:{}", n), "broadcast:rule=tree"), 2 * n);
}

TEST(Broadcast, BadParameters) {
  const Topology t = topo("mesh:4x4");
  EXPECT_THROW((void)rica::AppRegistry::make("broadcast:source=16", t), rica::usage_error);
  EXPECT_THROW((void)rica::AppRegistry::make("broadcast:rule=star", t), rica::usage_error);
  EXPECT_NE(rica::AppRegistry::help_text().find("broadcast"), std::string::npos);
  // An indirect network's PE graph is complete: 16,384 PEs would need 2^28 pairs.
  EXPECT_THROW((void)rica::examples::pe_graph(topo("omega:14")), rica::usage_error);
}

}  // namespace
