// Partitions (include/rica/partition.hpp, docs/topologies.md): the rules give closed
// partitions, the verification agrees with a naive all-pairs walk, torus blocks are closed exactly
// when the shorter way between any two of their coordinates runs inside them, open partitions
// are named open with real offending hops, and bad requests are refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "rica/partition.hpp"
#include "rica/registry.hpp"

namespace rica {
namespace {

PartitionPlan cut(const std::string& spec, std::uint32_t k, const std::string& dims = "",
                  PairCheck pairs = PairCheck::automatic) {
  const Topology t = TopologyRegistry::parse(spec);
  PartitionRequest r;
  r.parts = k;
  if (!dims.empty()) r.dims = parse_dim_cuts(dims);
  r.verify.pairs = pairs;
  return partition(t, r);
}

PartitionPlan cut_at(const std::string& spec, const std::vector<std::string>& cuts) {
  PartitionRequest r;
  for (const auto& c : cuts) r.cuts.push_back(parse_axis_cut(c));
  return partition(TopologyRegistry::parse(spec), r);
}

/// Every PE in exactly one partition; local and global maps inverse; local order ascending;
/// the local shape has as many PEs as the partition.
void expect_consistent_maps(const PartitionPlan& plan) {
  ASSERT_EQ(plan.part_of.size(), plan.pes);
  ASSERT_EQ(plan.local_of.size(), plan.pes);
  std::vector<int> seen(plan.pes, 0);
  for (std::uint32_t p = 0; p < plan.parts.size(); ++p) {
    const Partition& P = plan.parts[p];
    EXPECT_TRUE(std::is_sorted(P.pes.begin(), P.pes.end()));
    EXPECT_EQ(shape_size(P.shape), P.pes.size()) << plan.spec << " partition " << p;
    for (node_t i = 0; i < P.pes.size(); ++i) {
      const node_t g = P.pes[i];
      ASSERT_LT(g, plan.pes);
      ++seen[g];
      EXPECT_EQ(plan.part_of[g], p);
      EXPECT_EQ(plan.local_of[g], i);
      EXPECT_EQ(plan.global_pe(p, i), g);
    }
  }
  for (node_t v = 0; v < plan.pes; ++v) {
    if (plan.part_of[v] == PartitionPlan::none) {
      EXPECT_EQ(seen[v], 0);
    } else {
      EXPECT_EQ(seen[v], 1) << plan.spec << " PE " << v;
    }
  }
}

/// Independent check: walk every ordered pair of every partition without memo; the plan's
/// leaving counts, outside nodes and link sets must match exactly (direct networks).
void expect_matches_naive(const Topology& t, const PartitionPlan& plan) {
  ASSERT_TRUE(t.direct());
  for (std::uint32_t p = 0; p < plan.parts.size(); ++p) {
    const Partition& P = plan.parts[p];
    std::set<link_id> links;
    std::set<node_t> outside;
    std::uint64_t leaving = 0;
    for (node_t s : P.pes)
      for (node_t d : P.pes) {
        if (s == d) continue;
        node_t cur = s;
        class_t cls = 0;
        bool leaves = false;
        for (unsigned hops = 0;; ++hops) {
          ASSERT_LT(hops, t.nodes() * t.buffer_classes());
          const Hop h = t.route(cur, d, cls);
          if (h.delivers()) break;
          links.insert(plan.link(cur, h.port()));
          cur = t.out_link(cur, h.port()).peer;
          cls = h.next_class();
          if (plan.part_of[cur] != p) {
            leaves = true;
            outside.insert(cur);
          }
        }
        leaving += leaves ? 1 : 0;
      }
    EXPECT_EQ(P.leaving_pairs, leaving) << plan.spec << " partition " << p;
    EXPECT_EQ(P.pairs_covered, P.pairs);
    EXPECT_EQ(std::vector<link_id>(links.begin(), links.end()), P.links) << plan.spec << " partition " << p;
    EXPECT_EQ(std::vector<node_t>(outside.begin(), outside.end()), P.outside_nodes) << plan.spec << " partition " << p;
    EXPECT_EQ(P.closed, leaving == 0);
  }
}

/// An offending hop is real: the route src -> dst takes port `port` at `from` into `to`, and
/// `to` is not the partition's own (another partition's PE, or a switch others use too).
void expect_real_example(const Topology& t, const PartitionPlan& plan, std::uint32_t p, const OutsideHop& h) {
  EXPECT_EQ(plan.part_of[h.src], p);
  EXPECT_EQ(plan.part_of[h.dst], p);
  node_t cur = h.src;
  class_t cls = 0;
  bool found = false;
  while (true) {
    const Hop hop = t.route(cur, h.dst, cls);
    if (hop.delivers()) break;
    const Link l = t.out_link(cur, hop.port());
    if (cur == h.from && hop.port() == h.port && l.peer == h.to) found = true;
    cur = l.peer;
    cls = hop.next_class();
  }
  EXPECT_TRUE(found) << plan.spec << ": example hop not on its route";
  if (h.to < plan.pes) {
    EXPECT_NE(plan.part_of[h.to], p);
  } else {
    EXPECT_EQ(plan.node_owner[h.to], PartitionPlan::shared);
  }
}

/// A closed partition of a direct network: its routes use only its PEs and links between them,
/// and it owns them.
void expect_closed_territory(const PartitionPlan& plan, std::uint32_t p, const Topology& t) {
  const Partition& P = plan.parts[p];
  EXPECT_EQ(P.nodes, P.pes);
  for (link_id l : P.links) {
    const node_t v = static_cast<node_t>(l / plan.ports);
    const Link lk = t.out_link(v, static_cast<port_t>(l % plan.ports));
    EXPECT_EQ(plan.part_of[v], p);
    EXPECT_EQ(plan.part_of[lk.peer], p);
    EXPECT_EQ(plan.link_owner[l], p);
  }
}

TEST(Partition, CBanyanRowsAreClosedWholeRings) {
  for (const char* spec : {"cbanyan:n=3", "cbanyan:n=4", "cbanyan:n=3,S=5", "cbanyan:n=3,S=4,wiring=parallel",
                           "ccc:n=3", "dce:n=4,delta=2"}) {
    const Topology t = TopologyRegistry::parse(spec);
    const auto dce = std::get<DceTopology>(t.variant());
    for (std::uint32_t k = 1; k <= (1u << dce.bits()); k *= 2) {
      const PartitionPlan plan = cut(spec, k);
      SCOPED_TRACE(std::string(spec) + " K=" + std::to_string(k));
      EXPECT_EQ(plan.rule, "dce-rows");
      ASSERT_EQ(plan.parts.size(), k);
      EXPECT_TRUE(plan.all_closed());
      expect_consistent_maps(plan);
      for (std::uint32_t p = 0; p < k; ++p) {
        const Partition& P = plan.parts[p];
        EXPECT_TRUE(P.isolated);
        // Whole rings: every column of each of the partition's rows, rows contiguous.
        const node_t rows = (node_t{1} << dce.bits()) / k;
        ASSERT_EQ(P.pes.size(), rows * dce.ring());
        for (node_t i = 0; i < P.pes.size(); ++i) EXPECT_EQ(P.pes[i], p * rows * dce.ring() + i);
        EXPECT_EQ(P.shape, (Shape{dce.ring(), rows}));
        expect_closed_territory(plan, p, t);
      }
    }
  }
}

TEST(Partition, MdceDimensionsAreClosed) {
  struct Case {
    const char* spec;
    std::uint32_t k;
    const char* dims;
  };
  for (const Case& c : {Case{"cccb:n=3", 2, ""}, Case{"cccb:n=3", 4, ""}, Case{"cccb:n=3", 8, "1:1,2:2"},
                        Case{"cccb:n=3", 0, "1:2"}, Case{"cccb:n=3", 4, "2"}, Case{"cccb:n=3", 64, ""},
                        Case{"cb2:n=3", 2, "1"}, Case{"cb2:n=3", 16, ""}, Case{"cb2:n=3", 0, "2:1,1:3"},
                        Case{"mdce:B=1,C=2,n=2", 8, "3:1,1"}, Case{"mdce:B=1,C=1,P=2,n=4", 4, ""},
                        Case{"mdce:B=0,C=2,n=3", 4, "1,2"}}) {
    SCOPED_TRACE(std::string(c.spec) + " K=" + std::to_string(c.k) + " dims=" + c.dims);
    const Topology t = TopologyRegistry::parse(c.spec);
    const PartitionPlan plan = cut(c.spec, c.k, c.dims);
    EXPECT_EQ(plan.rule, "mdce-dims");
    EXPECT_TRUE(plan.all_closed());
    expect_consistent_maps(plan);
    const Shape shape = t.shape();
    for (std::uint32_t p = 0; p < plan.parts.size(); ++p) {
      expect_closed_territory(plan, p, t);
      // Dimension 0 (the ring) is never cut; every partition has the same size.
      EXPECT_EQ(plan.parts[p].shape[0], shape[0]);
      EXPECT_EQ(plan.parts[p].pes.size(), plan.parts[0].pes.size());
    }
  }
  // The requested dimensions are the ones cut: cccb --dims 1:2 keeps dimension 2 whole.
  const PartitionPlan plan = cut("cccb:n=3", 0, "1:2");
  ASSERT_EQ(plan.parts.size(), 4u);
  EXPECT_EQ(plan.parts[1].shape, (Shape{3, 2, 8}));
  EXPECT_EQ(plan.parts[1].description, "(0..2,2..3,0..7)");
}

TEST(Partition, SymmetryAgreesWithAllPairs) {
  for (const char* spec : {"cbanyan:n=3", "cbanyan:n=3,S=4,wiring=parallel", "ccc:n=3,S=4", "dce:n=3,delta=2,S=5",
                           "cccb:n=3", "cb2:n=3", "mdce:B=1,C=1,P=2,n=4", "mdce:B=3,C=0,n=2", "hypercube:6"}) {
    for (std::uint32_t k : {1u, 2u, 8u}) {
      SCOPED_TRACE(std::string(spec) + " K=" + std::to_string(k));
      const PartitionPlan sym = cut(spec, k);
      const PartitionPlan all = cut(spec, k, "", PairCheck::all);
      EXPECT_EQ(sym.method, "exact-symmetry");
      EXPECT_EQ(all.method, "exact-all-pairs");
      ASSERT_EQ(sym.parts.size(), all.parts.size());
      for (std::size_t p = 0; p < sym.parts.size(); ++p) {
        EXPECT_EQ(sym.parts[p].pes, all.parts[p].pes);
        EXPECT_EQ(sym.parts[p].links, all.parts[p].links);
        EXPECT_EQ(sym.parts[p].nodes, all.parts[p].nodes);
        EXPECT_EQ(sym.parts[p].closed, all.parts[p].closed);
        EXPECT_EQ(sym.parts[p].leaving_pairs, all.parts[p].leaving_pairs);
        EXPECT_EQ(sym.parts[p].pairs_covered, all.parts[p].pairs);
        EXPECT_LE(sym.parts[p].pairs_routed, all.parts[p].pairs_routed);
      }
      EXPECT_EQ(sym.link_owner, all.link_owner);
      if (all.pes <= 256) expect_matches_naive(TopologyRegistry::parse(spec), all);
    }
  }
  // The parallel wiring with an odd ring spreads packets by a row-dependent parity: no symmetry.
  EXPECT_EQ(cut("cbanyan:n=3,S=5,wiring=parallel", 2).method, "exact-all-pairs");
}

TEST(Partition, HypercubeSubcubesAreClosed) {
  const Topology t = TopologyRegistry::parse("hypercube:6");
  for (std::uint32_t k = 1; k <= 64; k *= 2) {
    const PartitionPlan plan = cut("hypercube:6", k);
    EXPECT_EQ(plan.rule, "hypercube-subcubes");
    EXPECT_TRUE(plan.all_closed()) << "K=" << k;
    expect_consistent_maps(plan);
  }
  // Any set of fixed bits is a subcube.
  const PartitionPlan plan = cut("hypercube:6", 0, "0,3,4");
  ASSERT_EQ(plan.parts.size(), 8u);
  EXPECT_TRUE(plan.all_closed());
  EXPECT_EQ(plan.parts[5].description, "x10xx1");  // bits 4, 3, 0 = 1, 0, 1 (most significant first)
  EXPECT_EQ(plan.parts[5].shape, (Shape{2, 2, 2}));
  for (std::uint32_t p = 0; p < 8; ++p) expect_closed_territory(plan, p, t);
}

TEST(Partition, MeshBlocksAreClosed) {
  for (const char* spec : {"mesh:6x5", "mesh:4x4x4", "mesh:7x3"}) {
    const Topology t = TopologyRegistry::parse(spec);
    for (std::uint32_t k : {1u, 2u, 3u, 4u, 6u, 8u}) {
      if (k == 8 && std::string(spec) != "mesh:4x4x4") continue;
      SCOPED_TRACE(std::string(spec) + " K=" + std::to_string(k));
      const PartitionPlan plan = cut(spec, k);
      EXPECT_EQ(plan.rule, "mesh-blocks");
      ASSERT_EQ(plan.parts.size(), k);
      EXPECT_TRUE(plan.all_closed());
      expect_consistent_maps(plan);
      expect_matches_naive(t, plan);
    }
  }
  // Uneven blocks of a mesh are closed too (dimension order stays inside the bounding box).
  const PartitionPlan plan = cut_at("mesh:8x8", {"0=5", "1=2,3"});
  EXPECT_EQ(plan.parts.size(), 6u);
  EXPECT_TRUE(plan.all_closed());
}

TEST(Partition, TorusBlocksClosedIffShortWayStaysInside) {
  // A block of width w of a ring of size k: closed iff w == k or 2 (w - 1) < k (the shorter way
  // between any two of its coordinates runs inside it; a tie at k/2 goes +, possibly outside).
  for (std::uint32_t k = 3; k <= 10; ++k) {
    const std::string spec = "torus:" + std::to_string(k);
    const Topology t = TopologyRegistry::parse(spec);
    for (std::uint32_t c = 1; c < k; ++c) {
      SCOPED_TRACE(spec + " cut at " + std::to_string(c));
      const PartitionPlan plan = cut_at(spec, {"0=" + std::to_string(c)});
      EXPECT_EQ(plan.rule, "torus-blocks");
      ASSERT_EQ(plan.parts.size(), 2u);
      for (std::uint32_t p = 0; p < 2; ++p) {
        const std::uint32_t w = p == 0 ? c : k - c;
        EXPECT_EQ(plan.parts[p].closed, 2 * (w - 1) < k);
        for (const OutsideHop& h : plan.parts[p].examples) expect_real_example(t, plan, p, h);
      }
      expect_matches_naive(t, plan);
    }
  }
  // Equal splits are closed (width <= ceil(k/2)); an 8x8 torus cut at x = 5 is not.
  for (std::uint32_t k : {2u, 4u, 8u, 16u}) EXPECT_TRUE(cut("torus:8x8", k).all_closed()) << k;
  EXPECT_TRUE(cut("torus:6x6x3", 3).all_closed());
  const Topology t = TopologyRegistry::parse("torus:8x8");
  const PartitionPlan plan = cut_at("torus:8x8", {"0=5"});
  EXPECT_FALSE(plan.parts[0].closed);
  EXPECT_GT(plan.parts[0].leaving_pairs, 0u);
  ASSERT_FALSE(plan.parts[0].examples.empty());
  for (const OutsideHop& h : plan.parts[0].examples) expect_real_example(t, plan, 0, h);
  EXPECT_TRUE(plan.parts[1].closed);
  EXPECT_FALSE(plan.parts[1].isolated);  // partition 0's routes pass through it
}

TEST(Partition, FatTreeSubtreesUseDisjointSwitches) {
  const Topology t = TopologyRegistry::parse("fattree:5");
  for (std::uint32_t k : {2u, 4u, 8u, 32u}) {
    const PartitionPlan plan = cut("fattree:5", k);
    EXPECT_EQ(plan.rule, "fattree-subtrees");
    EXPECT_TRUE(plan.all_closed()) << k;
    expect_consistent_maps(plan);
    for (std::uint32_t p = 0; p < k; ++p) {
      EXPECT_TRUE(plan.parts[p].isolated);
      for (node_t v : plan.parts[p].nodes) EXPECT_EQ(plan.node_owner[v], p);
      for (link_id l : plan.parts[p].links) EXPECT_EQ(plan.link_owner[l], p);
    }
  }
}

TEST(Partition, GenericSearchNamesOpenPartitionsOpen) {
  // Omega: every PE's first switch is shared with a PE whose address differs in the top bit, and
  // every single address bit is invisible at one stage: no bit-fixing partition is closed.
  const Topology omega = TopologyRegistry::parse("omega:4");
  const PartitionPlan plan = cut("omega:4", 2);
  EXPECT_EQ(plan.rule.rfind("search:", 0), 0u);
  EXPECT_FALSE(plan.search.empty());
  EXPECT_EQ(plan.closed_count(), 0u);
  expect_consistent_maps(plan);
  for (std::uint32_t p = 0; p < 2; ++p) {
    EXPECT_GT(plan.parts[p].leaving_pairs, 0u);
    ASSERT_FALSE(plan.parts[p].examples.empty());
    for (const OutsideHop& h : plan.parts[p].examples) expect_real_example(omega, plan, p, h);
  }
  // A direct network whose table routing leaves blocks: M_{x+x} quarters are open.
  const Topology mxx = TopologyRegistry::parse("mxx:16");
  const PartitionPlan m = cut("mxx:16", 4);
  EXPECT_FALSE(m.all_closed());
  for (std::uint32_t p = 0; p < m.parts.size(); ++p)
    for (const OutsideHop& h : m.parts[p].examples) expect_real_example(mxx, m, p, h);
  expect_matches_naive(mxx, m);
}

TEST(Partition, GenericSearchFindsClosedBlocks) {
  for (const char* spec : {"torus8:8", "mesh8:6", "product:mesh:2x2*torus:4x4"}) {
    const PartitionPlan plan = cut(spec, 4);
    EXPECT_TRUE(plan.all_closed()) << spec;
    EXPECT_EQ(plan.rule.rfind("search:", 0), 0u);
    expect_consistent_maps(plan);
    expect_matches_naive(TopologyRegistry::parse(spec), plan);
  }
}

TEST(Partition, ExplicitSetsMergeAndResplit) {
  const Topology t = TopologyRegistry::parse("cbanyan:n=3");
  const PartitionPlan four = cut("cbanyan:n=3", 4);
  // Merging partitions 0 and 1 (rows 0..3) gives an aligned block of rings again: closed. Any
  // set of rows that fixes some row bits is closed too (rows 0,1,4,5: bit 1 = 0). Rows 0,1,6,7
  // are not: a route from row 0 to row 6 crosses bits 1 and 2 one at a time, via row 2 or 4.
  std::vector<node_t> merged = four.parts[0].pes;
  merged.insert(merged.end(), four.parts[1].pes.begin(), four.parts[1].pes.end());
  const PartitionPlan m = verify_partitions(t, {merged, four.parts[2].pes});
  EXPECT_EQ(m.rule, "explicit");
  EXPECT_TRUE(m.all_closed());
  EXPECT_EQ(m.part_of[four.parts[3].pes[0]], PartitionPlan::none);  // not every PE need be covered
  expect_consistent_maps(m);
  std::vector<node_t> cube = four.parts[0].pes;
  cube.insert(cube.end(), four.parts[2].pes.begin(), four.parts[2].pes.end());
  EXPECT_TRUE(verify_partitions(t, {cube}).all_closed());
  std::vector<node_t> odd = four.parts[0].pes;
  odd.insert(odd.end(), four.parts[3].pes.begin(), four.parts[3].pes.end());
  const PartitionPlan o = verify_partitions(t, {odd});
  EXPECT_FALSE(o.all_closed());
  for (const OutsideHop& h : o.parts[0].examples) expect_real_example(t, o, 0, h);
  expect_matches_naive(t, o);

  EXPECT_THROW((void)verify_partitions(t, {{0, 1}, {1, 2}}), usage_error);
  EXPECT_THROW((void)verify_partitions(t, {{0, 99}}), usage_error);
  EXPECT_THROW((void)verify_partitions(t, {{}}), usage_error);
}

TEST(Partition, SampledVerification) {
  const PartitionPlan plan = cut("mesh:16x16", 2, "", PairCheck::sample);
  EXPECT_EQ(plan.method, "sampled");
  EXPECT_TRUE(plan.all_closed());
  for (const Partition& P : plan.parts) {
    EXPECT_LT(P.pairs_covered, P.pairs);
    EXPECT_EQ(P.pairs_covered, P.pairs_routed);
  }
  // Deterministic: the same seed gives the same plan.
  const PartitionPlan again = cut("mesh:16x16", 2, "", PairCheck::sample);
  EXPECT_EQ(plan.parts[0].links, again.parts[0].links);
  // An offending hop a sample finds is real (direct networks: a sample can only miss some).
  PartitionRequest r;
  r.parts = 4;
  r.verify.pairs = PairCheck::sample;
  r.verify.sample_destinations = 4;
  const Topology mxx = TopologyRegistry::parse("mxx:16");
  const PartitionPlan o = partition(mxx, r);
  EXPECT_EQ(o.method, "sampled");
  EXPECT_FALSE(o.all_closed());
  for (std::uint32_t p = 0; p < o.parts.size(); ++p)
    for (const OutsideHop& h : o.parts[p].examples) expect_real_example(mxx, o, p, h);
}

TEST(Partition, BadRequestsAreRefused) {
  const auto bad = [](const std::string& spec, std::uint32_t k, const std::string& dims = "") {
    EXPECT_THROW((void)cut(spec, k, dims), usage_error) << spec << " K=" << k << " dims=" << dims;
  };
  bad("cbanyan:n=3", 3);        // not a power of two
  bad("cbanyan:n=3", 16);       // more than 2^n rings
  bad("cbanyan:n=3", 0);        // no K
  bad("cbanyan:n=3", 2, "0");   // rings are never cut
  bad("cbanyan:n=3", 2, "2");   // no such dimension
  bad("cbanyan:n=3", 4, "1:1"); // K disagrees with the bits
  bad("cccb:n=3", 6);
  bad("cccb:n=3", 2, "3");
  bad("cccb:n=3", 0, "1:4");    // dimension 1 has 3 bits
  bad("cccb:n=3", 2, "1,1");    // twice
  bad("hypercube:4", 6);
  bad("hypercube:4", 32);
  bad("hypercube:4", 0, "1:2");
  bad("mesh:4x4", 5);           // a factor 5 fits no side
  bad("mesh:4x4", 17);          // more than the PEs
  bad("mesh:4x4", 2, "2");
  bad("fattree:3", 3);
  bad("omega:3", 9);
  EXPECT_THROW((void)cut_at("cbanyan:n=3", {"1=2"}), usage_error);  // --cut is for grids
  EXPECT_THROW((void)cut_at("mesh:4x4", {"0=4"}), usage_error);     // cut point outside 1..3
  EXPECT_THROW((void)cut_at("mesh:4x4", {"0=2,1"}), usage_error);   // not rising
  EXPECT_THROW((void)parse_dim_cuts("1:x"), usage_error);
  EXPECT_THROW((void)parse_dim_cuts("1:0"), usage_error);
  EXPECT_THROW((void)parse_dim_cuts(""), usage_error);
  EXPECT_THROW((void)parse_axis_cut("0:5"), usage_error);
  EXPECT_EQ(parse_dim_cuts("2:1,1"), (std::vector<DimCut>{{2, 1}, {1, 0}}));
  EXPECT_EQ(parse_axis_cut("1=3,5").at, (std::vector<std::uint32_t>{3, 5}));
}

}  // namespace
}  // namespace rica
