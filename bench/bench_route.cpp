// ns per route() call for each topology family: a full self-routed path between random PE pairs,
// route() + out_link() per hop, dispatched once on the concrete type (as the runtime does).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "rica/registry.hpp"

namespace {

template <class T>
void walk_paths(benchmark::State& state, const T& t) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<rica::node_t> pe(0, t.pes() - 1);
  std::vector<std::pair<rica::node_t, rica::node_t>> pairs(4096);
  for (auto& p : pairs) p = {pe(rng), pe(rng)};
  std::size_t hops = 0, i = 0;
  for (auto _ : state) {
    auto [cur, dst] = pairs[i++ & 4095];
    rica::class_t cls = 0;
    while (true) {
      const rica::Hop h = t.route(cur, dst, cls);
      if (h.delivers()) break;
      cur = t.out_link(cur, h.port()).peer;
      cls = h.next_class();
      ++hops;
    }
    benchmark::DoNotOptimize(cur);
  }
  // Report per hop: items = hops.
  state.SetItemsProcessed(static_cast<std::int64_t>(hops));
  state.counters["ns_per_hop"] =
      benchmark::Counter(static_cast<double>(hops), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void bm_route(benchmark::State& state, const char* spec) {
  const rica::Topology topo = rica::TopologyRegistry::parse(spec);
  topo.visit([&](const auto& t) { walk_paths(state, t); });
}

}  // namespace

#define RICA_ROUTE_BENCH(name, spec) BENCHMARK_CAPTURE(bm_route, name, spec)
RICA_ROUTE_BENCH(cbanyan_8x128, "cbanyan:n=7,S=8");
RICA_ROUTE_BENCH(cbanyan_512K, "cbanyan:n=15,S=16");
RICA_ROUTE_BENCH(ccc_8x128, "ccc:n=7,S=8");
RICA_ROUTE_BENCH(cccb_4x16x16, "cccb:n=4");
RICA_ROUTE_BENCH(cccb_512K, "cccb:n=8");
RICA_ROUTE_BENCH(cb2_4x16x16, "cb2:n=4");
RICA_ROUTE_BENCH(mxx_32, "mxx:32");
RICA_ROUTE_BENCH(mxx_256, "mxx:256");
RICA_ROUTE_BENCH(mesh8_32, "mesh8:32");
RICA_ROUTE_BENCH(torus8_32, "torus8:32");
RICA_ROUTE_BENCH(mesh_32x32, "mesh:32x32");
RICA_ROUTE_BENCH(torus_32x32, "torus:32x32");
RICA_ROUTE_BENCH(torus_8x8x16, "torus:8x8x16");
RICA_ROUTE_BENCH(hypercube_10, "hypercube:10");
RICA_ROUTE_BENCH(debruijn_10, "debruijn:10");
RICA_ROUTE_BENCH(ubruijn_10, "ubruijn:10");
RICA_ROUTE_BENCH(shuffle_10, "shuffle:10");
RICA_ROUTE_BENCH(msn_32x32, "msn:32x32");
RICA_ROUTE_BENCH(omega_10, "omega:10");
RICA_ROUTE_BENCH(fattree_10, "fattree:10");
RICA_ROUTE_BENCH(dragonfly_4, "dragonfly:4");
RICA_ROUTE_BENCH(hyperx_16x16, "hyperx:16x16,T=4");
RICA_ROUTE_BENCH(slimfly_11, "slimfly:q=11");
RICA_ROUTE_BENCH(product_torus_debruijn, "product:torus:8x8*debruijn:4");
RICA_ROUTE_BENCH(hier_mesh_debruijn, "hier:mesh:4x4/debruijn:6");

BENCHMARK_MAIN();
