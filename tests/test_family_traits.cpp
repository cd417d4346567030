// Self-registering topology families (rica/topology/family.hpp): every built-in family's entries
// come from its own files; the traits the analyses use are found by capability and are right for
// every registered family; a family from outside rica (tests/family_circulant.cpp, linked into
// this test) gets the same powers: orbits, port-keeping symmetry, its own partition rule.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "rica/channel_load.hpp"
#include "rica/engine.hpp"
#include "rica/metrics.hpp"
#include "rica/partition.hpp"
#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"
#include "rica/user_topology.hpp"

using namespace rica;

namespace {

/// A bidirectional ring as a user topology with the given orbits and port claim (dateline-free
/// distance classes, so rotations keep classes too).
Topology ring(unsigned n, bool orbits, bool keeps_ports) {
  UserTopologyDesc d;
  d.spec = "ring:n=" + std::to_string(n);
  d.nodes = d.pes = n;
  d.ports = 2;
  d.buffer_classes = static_cast<class_t>(n / 2 + 1);
  d.links = [n](node_t v, port_t p) { return p == 0 ? Link{(v + 1) % n, 0} : Link{(v + n - 1) % n, 1}; };
  d.routing = [n](node_t cur, node_t dst, class_t cls) {
    if (cur == dst) return Hop::deliver();
    const node_t ahead = (dst + n - cur) % n;
    return Hop::forward(ahead <= n - ahead ? 0 : 1, static_cast<class_t>(cls + 1));
  };
  if (orbits) d.orbits.assign(n, 0);
  d.symmetry_keeps_ports = keeps_ports;
  return UserTopology(std::move(d));
}

}  // namespace

TEST(FamilyTraits, EveryBuiltinNameIsRegisteredByItsFamily) {
  std::set<std::string> names;
  for (const TopologyEntry& e : TopologyRegistry::available()) names.insert(e.name);
  for (const char* name : {"cbanyan", "ccc", "comega", "dce", "mdce", "cccb", "cb2", "mxx", "mesh8", "torus8", "mesh",
                           "torus", "kary", "hypercube", "debruijn", "ubruijn", "shuffle", "msn", "omega", "fattree",
                           "dragonfly", "hyperx", "slimfly", "product", "hier", "file", "circulant"})
    EXPECT_TRUE(names.count(name)) << name;
  EXPECT_EQ(TopologyRegistry::available().front().name, "cbanyan");  // the first line of the family list
}

// The trait that replaced channel_load.cpp's list of families: wherever a registered family uses
// its orbits for the channel load, each link's load equals the walk over every source. Runs over
// every registered family's own example, so a new family is checked without an edit here.
TEST(FamilyTraits, PortKeepingSymmetryGivesTheAllPairsLoadForEveryRegisteredFamily) {
  unsigned symmetric = 0;
  for (const TopologyEntry& e : TopologyRegistry::available()) {
    if (e.name == "file") continue;  // its example is a path relative to the source tree
    const Topology t = TopologyRegistry::parse(e.example);
    if (t.pes() > 1100) continue;
    const ChannelLoad sym = channel_load(t, TrafficMatrix::uniform());
    if (sym.method != "exact-symmetry") {
      EXPECT_TRUE(t.orbit_count() == 0 || !t.symmetry_keeps_ports()) << e.example;
      continue;
    }
    ++symmetric;
    const ChannelLoad all = channel_load(t, TrafficMatrix::uniform(), EngineConfig{}, {.force_all_pairs = true});
    for (std::size_t i = 0; i < all.load.size(); ++i)
      ASSERT_NEAR(sym.load[i], all.load[i], 1e-9) << e.example << " link " << i;
  }
  EXPECT_GE(symmetric, 10u);
}

TEST(FamilyTraits, WithoutThePortClaimOrbitsDoNotShortcutTheChannelLoad) {
  EXPECT_EQ(channel_load(ring(12, true, true), TrafficMatrix::uniform()).method, "exact-symmetry");
  EXPECT_EQ(channel_load(ring(12, true, false), TrafficMatrix::uniform()).method, "exact-all-pairs");
  EXPECT_EQ(channel_load(ring(12, false, true), TrafficMatrix::uniform()).method, "exact-all-pairs");
  // A product keeps ports when both factors do.
  EXPECT_TRUE(ProductTopology(ring(4, true, true), TopologyRegistry::parse("torus:3x3")).symmetry_keeps_ports());
  EXPECT_FALSE(ProductTopology(ring(4, true, false), TopologyRegistry::parse("torus:3x3")).symmetry_keeps_ports());
  EXPECT_FALSE(TopologyRegistry::parse("omega:3").symmetry_keeps_ports());
}

TEST(FamilyTraits, UserOrbitsAreUsedByTheMetricsAndChecked) {
  const Topology t = ring(10, true, true);
  EXPECT_EQ(t.orbit_count(), 1u);
  EXPECT_TRUE(t.vertex_transitive());
  const TopologyMetrics sym = compute_metrics(t);
  MetricsOptions all;
  all.force_all_pairs = true;
  const TopologyMetrics exact = compute_metrics(t, all);
  EXPECT_EQ(sym.method, "exact-symmetry");
  EXPECT_EQ(sym.diameter, exact.diameter);
  EXPECT_DOUBLE_EQ(sym.mean_distance, exact.mean_distance);

  UserTopologyDesc d;
  d.spec = "bad";
  d.nodes = d.pes = 4;
  d.arcs = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  d.routing = [](node_t cur, node_t dst, class_t) {
    return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  };
  d.buffer_classes = 1;
  d.check_routing = false;
  d.orbits = {0, 0, 2, 2};  // orbit 1 has no node
  EXPECT_THROW(UserTopology{d}, usage_error);
  d.orbits = {0, 0, 0};  // one number short
  EXPECT_THROW(UserTopology{d}, usage_error);
}

TEST(FamilyTraits, AFamilyFromOutsidePartitionsByItsOwnRule) {
  const Topology t = TopologyRegistry::parse("circulant:n=16,s=3");
  PartitionRequest r;
  r.parts = 4;
  const PartitionPlan plan = partition(t, r);
  EXPECT_EQ(plan.rule, "circulant-arcs");
  ASSERT_EQ(plan.parts.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(plan.parts[k].pes.front(), 4 * k);
  r.dims = {{0, 1}};
  EXPECT_THROW((void)partition(t, r), usage_error);
  // Without a rule: the generic search.
  PartitionRequest r2;
  r2.parts = 2;
  EXPECT_EQ(partition(ring(12, true, true), r2).rule.rfind("search:", 0), 0u);
}

TEST(FamilyTraits, BuiltinRulesAndFormsAreFoundByCapability) {
  PartitionRequest r;
  r.parts = 4;
  EXPECT_EQ(partition(TopologyRegistry::parse("hypercube:4"), r).rule, "hypercube-subcubes");
  EXPECT_EQ(partition(TopologyRegistry::parse("torus:4x4"), r).rule, "torus-blocks");
  EXPECT_EQ(partition(TopologyRegistry::parse("dce:n=3,delta=1"), r).rule, "dce-rows");
  EXPECT_EQ(partition(TopologyRegistry::parse("fattree:4"), r).rule, "fattree-subtrees");
  EXPECT_EQ(partition(TopologyRegistry::parse("cccb:n=2"), r).rule, "mdce-dims");
  EXPECT_EQ(partition(TopologyRegistry::parse("cccb:n=3,S=4"), r).rule.rfind("search:", 0), 0u);  // not basic
  EXPECT_TRUE(TopologyRegistry::parse("mesh:3x5").grid_form().has_value());
  EXPECT_EQ(TopologyRegistry::parse("hypercube:3").grid_form()->decompose, GridForm::Decompose::never);
  EXPECT_FALSE(TopologyRegistry::parse("debruijn:4").grid_form().has_value());
  EXPECT_EQ(TopologyRegistry::parse("debruijn:4").auto_embedding(true), "debruijn");
  EXPECT_EQ(TopologyRegistry::parse("shuffle:4").auto_embedding(false), "debruijn");
  EXPECT_EQ(TopologyRegistry::parse("hypercube:4").auto_embedding(true), "gray");
  EXPECT_EQ(TopologyRegistry::parse("hypercube:4").auto_embedding(false), "");
  EXPECT_EQ(TopologyRegistry::parse("dce:n=3").bit_addressing()->columns, 3u);
  EXPECT_TRUE(TopologyRegistry::parse("product:torus:4x4*hypercube:2").product_factors().has_value());
}
