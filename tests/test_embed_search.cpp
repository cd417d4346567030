// The exact, bounded placement search (rica/embed_search.hpp, `rica embed --map search`): its
// answers against brute force over every injective placement on seeded random small graphs, known
// graphs (the Petersen graph has no Hamiltonian cycle), the budget, and the de Bruijn paper §4
// (5), (6), (9), (10) for every single fault of UB(2,5).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "rica/embed.hpp"
#include "rica/embed_search.hpp"
#include "rica/registry.hpp"
#include "rica/request/embed.hpp"

namespace rica {
namespace {

PeGraph graph_of(node_t n, const std::vector<std::pair<node_t, node_t>>& edges, bool directed = false) {
  PeGraph g;
  g.pes = n;
  g.out.assign(n, {});
  g.in.assign(n, {});
  g.both.assign(n, {});
  g.live.assign(n, 1);
  for (auto [u, v] : edges) {
    g.out[u].push_back(v);
    g.in[v].push_back(u);
    if (!directed) {
      g.out[v].push_back(u);
      g.in[u].push_back(v);
    }
  }
  for (node_t v = 0; v < n; ++v) {
    for (auto* a : {&g.out[v], &g.in[v]}) {
      std::sort(a->begin(), a->end());
      a->erase(std::unique(a->begin(), a->end()), a->end());
    }
    std::set_union(g.out[v].begin(), g.out[v].end(), g.in[v].begin(), g.in[v].end(), std::back_inserter(g.both[v]));
  }
  return g;
}

// Independent: does some injective map of the guest onto live PEs put every arc on a host arc?
bool brute_force(const Guest& guest, const PeGraph& h) {
  std::vector<node_t> pes;
  for (node_t v = 0; v < h.pes; ++v)
    if (h.live[v]) pes.push_back(v);
  if (guest.nodes > pes.size()) return false;
  // every ordered choice of guest.nodes PEs: permutations of the live PEs, first guest.nodes used
  std::sort(pes.begin(), pes.end());
  do {
    bool ok = true;
    for (const auto& [u, v] : guest.arcs)
      if (!h.has_arc(pes[u], pes[v])) {
        ok = false;
        break;
      }
    if (ok) return true;
  } while (std::next_permutation(pes.begin(), pes.end()));
  return false;
}

void expect_valid(const Guest& guest, const PeGraph& h, const std::vector<node_t>& p) {
  ASSERT_EQ(p.size(), guest.nodes);
  std::vector<node_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) << "a PE used twice";
  for (node_t x : p) EXPECT_TRUE(h.live[x]);
  for (const auto& [u, v] : guest.arcs) EXPECT_TRUE(h.has_arc(p[u], p[v])) << u << " -> " << v;
}

TEST(EmbedSearch, PetersenGraphHasNoHamiltonianCycleButNineCycles) {
  std::vector<std::pair<node_t, node_t>> e;
  for (node_t i = 0; i < 5; ++i) {
    e.emplace_back(i, (i + 1) % 5);          // outer 5-cycle
    e.emplace_back(i, i + 5);                // spokes
    e.emplace_back(i + 5, (i + 2) % 5 + 5);  // inner pentagram
  }
  const PeGraph g = graph_of(10, e);
  const auto ring = [&](node_t k) { return search_placement(parse_guest(fmt::format("ring:{}", k), 10, false), g, 1'000'000); };
  EXPECT_EQ(ring(10).status, SearchStatus::none);  // the Petersen graph is not Hamiltonian
  EXPECT_EQ(ring(9).status, SearchStatus::found);
  EXPECT_EQ(ring(5).status, SearchStatus::found);
  EXPECT_EQ(ring(6).status, SearchStatus::found);
  EXPECT_EQ(ring(8).status, SearchStatus::found);
  EXPECT_EQ(ring(7).status, SearchStatus::none);  // the Petersen graph has no 7-cycle
  EXPECT_EQ(ring(4).status, SearchStatus::none);  // girth 5
  EXPECT_EQ(ring(3).status, SearchStatus::none);
  const SearchResult a = search_placement(parse_guest("array:10", 10, false), g, 1'000'000);
  ASSERT_EQ(a.status, SearchStatus::found);  // but it has a Hamiltonian path
  expect_valid(parse_guest("array:10", 10, false), g, a.placement);
}

// Seeded random graphs of 3..7 nodes: the search's found / none equals brute force for rings,
// arrays, trees and meshes, undirected and directed (oriented guests), with and without a failed node.
TEST(EmbedSearch, AgreesWithBruteForceOnRandomSmallGraphs) {
  std::mt19937_64 rng(2026);
  int found = 0, none = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const node_t n = 3 + static_cast<node_t>(rng() % 5);
    const bool directed = trial % 3 == 0;
    const double p = 0.25 + 0.5 * static_cast<double>(rng() % 100) / 100.0;
    std::vector<std::pair<node_t, node_t>> e;
    for (node_t u = 0; u < n; ++u)
      for (node_t v = directed ? 0 : u + 1; v < n; ++v)
        if (u != v && static_cast<double>(rng() % 1000) / 1000.0 < p) e.emplace_back(u, v);
    PeGraph g = graph_of(n, e, directed);
    if (trial % 4 == 1) g.remove_node(static_cast<node_t>(rng() % n));
    std::vector<std::string> guests;
    for (node_t k = 3; k <= n; ++k) guests.push_back(fmt::format("ring:{}", k));
    for (node_t k = 2; k <= n; ++k) guests.push_back(fmt::format("array:{}", k));
    guests.push_back("tree:1");
    if (n >= 7) guests.push_back("tree:2");
    if (n >= 4) guests.push_back("mesh:2x2");
    if (n >= 6) guests.push_back("mesh:2x3");
    for (const auto& spec : guests) {
      const Guest guest = parse_guest(spec, n, directed);
      const SearchResult r = search_placement(guest, g, 1'000'000);
      ASSERT_NE(r.status, SearchStatus::gave_up);
      const bool expect = brute_force(guest, g);
      ASSERT_EQ(r.status == SearchStatus::found, expect) << spec << " trial " << trial << (directed ? " directed" : "");
      if (expect) {
        expect_valid(guest, g, r.placement);
        ++found;
      } else {
        ++none;
      }
    }
  }
  EXPECT_GT(found, 200);  // both answers are exercised
  EXPECT_GT(none, 200);
}

TEST(EmbedSearch, GivesUpWithinItsBudgetAndSaysSo) {
  // The Petersen graph's missing Hamiltonian cycle needs more than a handful of steps to refute.
  std::vector<std::pair<node_t, node_t>> e;
  for (node_t i = 0; i < 5; ++i) {
    e.emplace_back(i, (i + 1) % 5);
    e.emplace_back(i, i + 5);
    e.emplace_back(i + 5, (i + 2) % 5 + 5);
  }
  const PeGraph g = graph_of(10, e);
  const Guest ring = parse_guest("ring:10", 10, false);
  const SearchResult full = search_placement(ring, g, 1'000'000);
  ASSERT_EQ(full.status, SearchStatus::none);
  ASSERT_GT(full.steps, 5u);
  const SearchResult cut = search_placement(ring, g, full.steps - 1);
  EXPECT_EQ(cut.status, SearchStatus::gave_up);
  EXPECT_TRUE(cut.placement.empty());
  EXPECT_EQ(search_placement(ring, g, full.steps).status, SearchStatus::none);  // the exact budget suffices
  EXPECT_THROW((void)search_placement(ring, g, 0), std::invalid_argument);
  // more guest nodes than live PEs: none, without a step
  const SearchResult big = search_placement(parse_guest("ring:11", 10, false), g, 10);
  EXPECT_EQ(big.status, SearchStatus::none);
  EXPECT_EQ(big.steps, 0u);
}

// The de Bruijn paper §4 (5), (6), (9), (10) on UB(2,5) (N = 32), for every single fault; (1) on
// the directed B(2,4): a Hamiltonian cycle along its arcs.
TEST(EmbedSearch, DeBruijnFaultTolerantRingsAndTreesForEverySingleFault) {
  const Topology ub = TopologyRegistry::parse("ubruijn:5");
  const struct {
    const char* guest;
    bool links;
  } claims[] = {{"array:31", false}, {"array:31", true}, {"ring:26", false}, {"ring:31", true}, {"tree:3", false}};
  for (const auto& c : claims) {
    const EveryFaultResult r = search_every_fault(parse_guest(c.guest, 32, false), ub, c.links, 1'000'000);
    if (!c.links) {
      EXPECT_EQ(r.faults, 32u);
    }
    EXPECT_EQ(r.found, r.faults) << c.guest;
    EXPECT_TRUE(r.missing.empty()) << c.guest;
  }
  // (9), the N - 1 node tree after a link fault, is hard for the search: it settles some faults
  // within a small budget and must never claim "none" for a fault that has a tree
  const EveryFaultResult t = search_every_fault(parse_guest("tree:4", 32, false), ub, true, 20'000);
  EXPECT_EQ(t.found + t.gave_up, t.faults);
  EXPECT_GT(t.found, 0u);
  // every link of UB(2,5) once: N - 1 distinct node pairs on the shifts (the two self-loops and the
  // doubled 0101...-1010... arc merged)
  std::size_t links = 0;
  const PeGraph g = pe_graph(ub);
  for (node_t v = 0; v < g.pes; ++v) links += g.both[v].size();
  EXPECT_EQ(search_every_fault(parse_guest("ring:31", 32, false), ub, true, 1'000'000).faults, links / 2);
  // a ring longer than the faulty host can hold: none, proved
  const EmbedResult none = embed(parse_guest("ring:32", 32, false), ub, EmbedMap::search, "nodes=1", 3);
  ASSERT_TRUE(none.search);
  EXPECT_EQ(*none.search, SearchStatus::none);
  EXPECT_FALSE(none.placed());
  const Topology b = TopologyRegistry::parse("debruijn:4");
  const SearchResult h = search_placement(parse_guest("ring:16", 16, true), pe_graph(b), 1'000'000);
  ASSERT_EQ(h.status, SearchStatus::found);
  expect_valid(parse_guest("ring:16", 16, true), pe_graph(b), h.placement);
}

TEST(EmbedSearch, EmbedWithSearchIsMeasuredByTheHostsRouting) {
  const Topology ub = TopologyRegistry::parse("ubruijn:6");
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const EmbedResult r = embed(parse_guest("ring:63", 64, false), ub, EmbedMap::search, "links=1", seed);
    ASSERT_TRUE(r.search);
    ASSERT_EQ(*r.search, SearchStatus::found);
    EXPECT_EQ(r.load, 1u);
    EXPECT_EQ(r.failed_pes, 0u);
    EXPECT_EQ(r.map, "search");
    EXPECT_GE(r.dilation, 1u);
  }
  const EmbedResult t = embed(parse_guest("tree:4", 64, false), ub, EmbedMap::search);  // intact
  ASSERT_EQ(*t.search, SearchStatus::found);
  EXPECT_EQ(t.dilation, 1u);
  EXPECT_EQ(t.load, 1u);
}

TEST(EmbedSearch, RequestRefusesWhatItCannotDo) {
  request::Embed r;
  r.guest = "ring:31";
  r.host = "ubruijn:5";
  r.faults = "links=1";
  r.every_fault = true;
  EXPECT_THROW(request::validate(r), usage_error);  // needs --map search
  r.map = "search";
  EXPECT_NO_THROW(request::validate(r));
  for (const char* bad : {"links=2", "nodes=1,links=1", "", "links=1,at=5"}) {
    r.faults = bad;
    EXPECT_THROW(request::validate(r), usage_error) << bad;
  }
  r.faults = "nodes=1";
  r.search_budget = 0;
  EXPECT_THROW(request::validate(r), usage_error);
  r.search_budget = defaults::embed::search_budget_max + 1;
  EXPECT_THROW(request::validate(r), usage_error);
  r.search_budget = 1000;
  const request::EmbedOutcome o = request::run(r);
  ASSERT_TRUE(o.result.every_fault);
  EXPECT_EQ(o.result.every_fault->faults, 32u);
  const auto j = o.to_json();
  EXPECT_TRUE(j["dilation"].is_null());
  EXPECT_EQ(j["every_fault"]["faults"], 32);
  EXPECT_EQ(j["every_fault"]["found"].get<std::uint64_t>() + j["every_fault"]["none"].get<std::uint64_t>() +
                j["every_fault"]["gave_up"].get<std::uint64_t>(),
            32u);
}

}  // namespace
}  // namespace rica
