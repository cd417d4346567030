// The topology contract (include/rica/topology/model.hpp), checked for every family at small
// sizes exhaustively and at the papers' largest sizes on a random sample: consistent links,
// routing that delivers every pair over existing links within the declared classes, and an
// acyclic channel dependency graph (Dally-Seitz: deadlock freedom proved, not hoped).
#include <gtest/gtest.h>

#include <cctype>

#include "rica/metrics.hpp"
#include "rica/registry.hpp"
#include "support.hpp"

namespace rica {
namespace {

const char* const small_specs[] = {
    "cbanyan:n=3", "cbanyan:n=4", "cbanyan:n=3,S=5", "cbanyan:n=3,S=4,wiring=parallel", "ccc:n=3", "ccc:n=4",
    "ccc:n=3,S=4", "dce:n=4,delta=2", "dce:n=4,delta=3", "dce:n=3,delta=2,S=5", "cb2:n=3", "cccb:n=3",
    "mdce:B=1,C=1,P=2,n=3", "mdce:B=0,C=2,n=3", "mdce:B=3,C=0,n=2", "mdce:B=1,C=2,n=2", "cb2:n=3,S=6", "cccb:n=3,S=6",
    "cb2:n=3,X=2", "cb2:n=3,X=2,freed=parallel", "cccb:n=3,X=2", "mdce:B=1,C=1,P=2,n=3,S=4",
    "mdce:B=2,C=1,n=2,S=3,X=1", "cb2:n=2,S=5,X=1,freed=parallel", "mdce:B=0,C=2,n=2,S=3", "mxx:16", "mxx:32",
    "mxx:12,route=paper", "mxx:16,route=paper", "mxx:32,route=paper",
    "mesh8:6", "mesh8:7", "torus8:6", "torus8:7", "torus8:3", "torus8:4", "torus8:6,classes=distance", "mesh:5x4", "torus:4x4", "torus:5x3", "torus:3x4x2",
    "mesh:3x3x3", "hypercube:5", "debruijn:6", "debruijn:6,route=shift", "debruijn:5,spares=necklace", "ubruijn:5,spares=necklace", "ubruijn:6",
    "ubruijn:6,route=minshift", "ubruijn:5,improved=1", "ubruijn:6,route=simple", "ubruijn:5,improved=1,route=simple",
    "ubruijn:2,route=simple", "comega:n=3", "comega:n=4", "comega:n=3,S=5", "comega:n=4,S=6", "comega:n=2,S=4", "comega:n=2,S=3", "shuffle:6", "msn:6x6", "msn:4x8", "omega:5",
    "fattree:5", "product:torus:3x3*debruijn:3", "product:cbanyan:n=2*ccc:n=2", "hier:mesh:3x3/debruijn:3",
    "hier:torus:3x3/cbanyan:n=2/iface=4", "dragonfly:h=1", "dragonfly:h=2", "dragonfly:h=2,arrangement=relative",
    "dragonfly:h=2,p=1,a=3", "dragonfly:h=3,a=1", "hyperx:4x4,T=2", "hyperx:2x3x2,T=1", "hyperx:5", "slimfly:q=3",
    "slimfly:q=5,p=2"};

class SmallTopology : public ::testing::TestWithParam<const char*> {};

/// Test names from specs: "cbanyan:n=3,S=5" -> "cbanyan_n_3_S_5".
std::string spec_name(const ::testing::TestParamInfo<const char*>& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

TEST_P(SmallTopology, LinksRoutingClassesAndDeadlockFreedom) {
  const Topology t = TopologyRegistry::parse(GetParam());
  test::expect_consistent_links(t);
  const auto st = test::trace_pairs(t, test::all_pairs(t), true);
  EXPECT_EQ(st.pairs, std::uint64_t{t.pes()} * (t.pes() - 1));
  EXPECT_LT(st.max_class, t.buffer_classes());
  EXPECT_TRUE(test::acyclic(st.deps)) << t.spec() << ": channel dependency graph has a cycle";
  // The spec string is canonical: parsing it again gives the same network.
  const Topology again = TopologyRegistry::parse(t.spec());
  EXPECT_EQ(again.spec(), t.spec());
  EXPECT_EQ(again.nodes(), t.nodes());
}

TEST_P(SmallTopology, SymmetryGivesTheAllPairsFigures) {
  const Topology t = TopologyRegistry::parse(GetParam());
  if (t.orbit_count() == 0) GTEST_SKIP() << "no symmetry declared";
  MetricsOptions all, sym;
  all.force_all_pairs = true;
  sym.decompose = false;  // products would be combined from their factors (tested below)
  const auto a = compute_metrics(t, all), s = compute_metrics(t, sym);
  EXPECT_EQ(s.method, "exact-symmetry");
  EXPECT_EQ(a.method, "exact-all-pairs");
  EXPECT_EQ(s.diameter, a.diameter);
  EXPECT_EQ(s.routed_diameter, a.routed_diameter);
  EXPECT_NEAR(s.mean_distance, a.mean_distance, 1e-9);
  EXPECT_NEAR(s.routed_mean_distance, a.routed_mean_distance, 1e-9);
  EXPECT_NEAR(s.avg_relay, a.avg_relay, 1e-6);
  EXPECT_NEAR(s.max_relay, a.max_relay, 1e-6);
}

TEST_P(SmallTopology, VertexTransitiveClaimHoldsForEdgeConnectivity) {
  const Topology t = TopologyRegistry::parse(GetParam());
  if (!t.vertex_transitive()) GTEST_SKIP() << "not declared vertex-transitive";
  MetricsOptions flows;
  flows.force_all_pairs = true;  // skip the theorem: compute max-flows
  const auto by_flow = edge_connectivity(t, flows), by_theorem = edge_connectivity(t);
  EXPECT_NE(by_flow.method, by_theorem.method);
  EXPECT_EQ(by_flow.value, by_theorem.value) << t.spec();
}

INSTANTIATE_TEST_SUITE_P(AllFamilies, SmallTopology, ::testing::ValuesIn(small_specs), spec_name);

// Meshes and Cartesian products are combined from their factors (distances add); every figure
// must equal the all-pairs BFS and route enumeration over the whole product. The factors cover
// closed forms (mesh paths), symmetry, all pairs, non-minimal routing that revisits nodes
// (directed de Bruijn shift routing), multi-class factors and nested products.
const char* const product_specs[] = {
    "mesh:5x4", "mesh:3x3x3", "mesh:2x7", "mesh:6x2x3", "mesh:9", "product:torus:3x3*debruijn:3",
    "product:cbanyan:n=2*ccc:n=2", "product:(mesh:3x4)*(ubruijn:3)", "product:(debruijn:3,route=shift)*(mesh:4)",
    "product:(mesh:4)*(debruijn:3,route=shift)", "product:(product:(mesh:3x2)*(torus:3))*(hier:mesh:2x2/debruijn:2)",
    "product:(msn:4x4)*(mesh8:3)", "product:(torus:5)*(cccb:n=2)", "product:(torus:3x4)*(hypercube:2)",
    "product:(ubruijn:3)*(ubruijn:3,route=simple)", "product:(mesh8:3)*(mesh:2)", "product:(comega:n=2)*(mesh:3)"};

class ProductTopologies : public ::testing::TestWithParam<const char*> {};

TEST_P(ProductTopologies, DecompositionGivesTheAllPairsFigures) {
  const Topology t = TopologyRegistry::parse(GetParam());
  MetricsOptions all;
  all.force_all_pairs = true;
  const auto a = compute_metrics(t, all), p = compute_metrics(t);
  EXPECT_EQ(p.method, "exact-product");
  EXPECT_FALSE(p.method_detail.empty());
  EXPECT_EQ(a.method, "exact-all-pairs");
  EXPECT_EQ(p.diameter, a.diameter);
  EXPECT_EQ(p.routed_diameter, a.routed_diameter);
  EXPECT_NEAR(p.mean_distance, a.mean_distance, 1e-9);
  EXPECT_NEAR(p.mean_distance_incl_self, a.mean_distance_incl_self, 1e-9);
  EXPECT_NEAR(p.routed_mean_distance, a.routed_mean_distance, 1e-9);
  EXPECT_NEAR(p.avg_relay, a.avg_relay, 1e-6);
  EXPECT_NEAR(p.max_relay, a.max_relay, 1e-6);
  EXPECT_EQ(p.classes_used, a.classes_used);
  EXPECT_EQ(p.fault_tolerance, a.fault_tolerance);
}
INSTANTIATE_TEST_SUITE_P(MeshesAndProducts, ProductTopologies, ::testing::ValuesIn(product_specs), spec_name);

// Tori use their symmetry while it fits the budget, else the product of rings in closed form;
// with no budget at all they must still agree with all-pairs BFS and route tracing.
TEST(ProductTopologies, TorusDecompositionGivesTheAllPairsFigures) {
  for (const char* spec : {"torus:5x4", "torus:3x4x2", "torus:2x3", "kary:k=4,n=3", "torus:7", "torus:6x2", "torus:8x5"}) {
    const Topology t = TopologyRegistry::parse(spec);
    MetricsOptions all, none;
    all.force_all_pairs = true;
    none.exact_work_limit = 1;
    const auto a = compute_metrics(t, all), p = compute_metrics(t, none);
    EXPECT_EQ(p.method, "exact-product") << spec;
    EXPECT_EQ(p.diameter, a.diameter) << spec;
    EXPECT_EQ(p.routed_diameter, a.routed_diameter) << spec;
    EXPECT_NEAR(p.mean_distance, a.mean_distance, 1e-9) << spec;
    EXPECT_NEAR(p.routed_mean_distance, a.routed_mean_distance, 1e-9) << spec;
    EXPECT_NEAR(p.avg_relay, a.avg_relay, 1e-6) << spec;
    EXPECT_NEAR(p.max_relay, a.max_relay, 1e-6) << spec;
    EXPECT_EQ(p.classes_used, a.classes_used) << spec;
    EXPECT_EQ(compute_metrics(t).method, "exact-symmetry") << spec;  // small: one orbit fits
  }
}

TEST(ProductTopologies, LargeTorusIsExact) {
  // 2M PEs: one orbit's routes alone exceed the exact budget, so this used to be sampled.
  const auto m = compute_metrics(TopologyRegistry::parse("torus:2048x1024"));
  EXPECT_EQ(m.method, "exact-product");
  EXPECT_EQ(m.diameter, 1024u + 512u);
  EXPECT_NEAR(m.mean_distance_incl_self, 2048 / 4.0 + 1024 / 4.0, 1e-9);  // k/4 per even ring
  EXPECT_EQ(m.classes_used, 2u);
}

// The example: exact at 512K PEs (it used to be a sample of 4 sources).
TEST(ProductTopologies, LargeMeshIsExact) {
  const auto m = compute_metrics(TopologyRegistry::parse("mesh:1024x512"));
  EXPECT_EQ(m.method, "exact-product");
  EXPECT_EQ(m.diameter, 1023u + 511u);
  EXPECT_EQ(m.routed_diameter, 1534u);
  // Per dimension (k^2 - 1) / (3k) over all k^2 ordered pairs (self = 0): 341.33 + 170.67.
  const double k1 = 1024, k2 = 512;
  EXPECT_NEAR(m.mean_distance_incl_self, (k1 * k1 - 1) / (3 * k1) + (k2 * k2 - 1) / (3 * k2), 1e-9);
  EXPECT_NEAR(m.mean_distance_incl_self, 512.0, 1e-3);
  EXPECT_DOUBLE_EQ(m.mean_distance_error, 0.0);
  // The centre node relays most: 2x(k-1-x) pairs per path, combined by the product rule.
  const double r1 = 2.0 * 511 * 512, r2 = 2.0 * 255 * 256;
  EXPECT_NEAR(m.max_relay, k2 * r1 + k1 * r2 + (k1 - 1) * (k2 - 1), 1e-3);
  EXPECT_EQ(m.fault_tolerance, 2u);
  EXPECT_NE(m.fault_tolerance_method.find("product theorem"), std::string::npos) << m.fault_tolerance_method;
}

TEST(ProductTopologies, LargeProductWithSymmetricFactorsIsExact) {
  const auto m = compute_metrics(TopologyRegistry::parse("product:(mesh:512)*(debruijn:10)"));
  EXPECT_EQ(m.method, "exact-product");
  const auto d = compute_metrics(TopologyRegistry::parse("debruijn:10"));
  EXPECT_EQ(m.diameter, 511u + d.diameter);
  EXPECT_EQ(m.routed_diameter, 511u + d.routed_diameter);
  const double n1 = 512;
  EXPECT_NEAR(m.mean_distance_incl_self, (n1 * n1 - 1) / (3 * n1) + d.mean_distance_incl_self, 1e-9);
}

// Exact buffer-class counts (spec note 4): computed from every route, not trusted.
TEST(BufferClasses, SpiralClassesAreExactlyWhatThePapersSay) {
  for (auto [spec, classes] : std::vector<std::pair<const char*, unsigned>>{
           {"cbanyan:n=3", 3}, {"cbanyan:n=4", 3}, {"cbanyan:n=3,S=4", 3}, {"ccc:n=3", 3}, {"ccc:n=4", 3},
           {"cb2:n=3", 4}, {"cccb:n=3", 3}, {"cccb:n=2", 3}, {"cb2:n=2", 4}}) {
    const Topology t = TopologyRegistry::parse(spec);
    EXPECT_EQ(t.buffer_classes(), classes) << spec;
    const auto st = test::trace_pairs(t, test::all_pairs(t), false);
    EXPECT_EQ(st.max_class + 1, classes) << spec << ": the routes use fewer classes than declared";
  }
}

// The papers' largest configurations: the same checks on a random sample of pairs.
class LargeTopology : public ::testing::TestWithParam<const char*> {};
TEST_P(LargeTopology, SampledRoutesDeliverWithinClassesAndDiameter) {
  const Topology t = TopologyRegistry::parse(GetParam());
  const auto st = test::trace_pairs(t, test::random_pairs(t, 20000, 7), false);
  EXPECT_EQ(st.pairs, 20000u);
  EXPECT_LT(st.max_class, t.buffer_classes());
}
INSTANTIATE_TEST_SUITE_P(PapersLargest, LargeTopology,
                         ::testing::Values("cccb:n=8", "cb2:n=8", "cbanyan:n=15,S=16", "ccc:n=15,S=16", "mxx:256",
                                           "torus:1024x512", "torus:64x64x128", "mesh:1024x512", "fattree:19",
                                           "omega:19", "hypercube:19", "debruijn:19", "torus8:512"),
                         spec_name);

}  // namespace
}  // namespace rica
