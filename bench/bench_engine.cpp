// Hop rate of both engines (issue 10): packet-hops per second of wall time on torus and CCCB at
// ~1K and ~64K PEs (CCCB: cccb:n=6, 24,576 PEs, the family's nearest size), with 1 and 2 threads
// (measure thread scaling as the ratio of the two in one run). Manual time = the engine's own wall
// time (set-up excluded). Counters: Mhops_per_s, bytes_per_pe (peak RSS of the process so far).
//   build/bench/bench_engine --benchmark_filter=async      # one engine
// scripts/bench_engine.sh runs it beside ../shared/bench/hop_emu.cpp in the same session.
#include <benchmark/benchmark.h>

#include "rica/engine.hpp"
#include "rica/registry.hpp"
#include "traffic.hpp"

namespace {

struct Work {
  const char* spec;
  rica::EngineKind engine;
  double rate;
  std::uint64_t packets;  // per PE (async); injection window in cycles (cycle)
};

void bm_engine(benchmark::State& state, Work w) {
  const rica::Topology topo = rica::TopologyRegistry::parse(w.spec);
  double hops = 0, secs = 0, rss = 0;
  for (auto _ : state) {
    rica::TrafficOptions opt;
    opt.rate = w.rate;
    opt.packets = w.packets;
    auto app = rica::TrafficRegistry::make("uniform", topo, opt);
    rica::EngineConfig cfg;
    cfg.engine = w.engine;
    cfg.threads = static_cast<unsigned>(state.range(0));
    if (w.engine == rica::EngineKind::cycle) {  // the cycle workload: 1-word packets, 1-cycle links
      cfg.cycles = w.packets;
      cfg.link_cycles = 1;
      cfg.packet_words = 1;
      cfg.packet_spread = 0;
    }
    const rica::RunStats st = rica::run(topo, *app, cfg);
    if (!st.conservation_ok || st.deadlock) state.SkipWithError("run did not conserve packets");
    state.SetIterationTime(st.wall_s);
    hops += static_cast<double>(st.hops);
    secs += st.wall_s;
    rss = static_cast<double>(st.peak_rss_kb) * 1024.0;
  }
  state.counters["Mhops_per_s"] = secs > 0 ? hops / secs / 1e6 : 0;
  state.counters["bytes_per_pe"] = rss / topo.pes();
}

using rica::EngineKind;
BENCHMARK_CAPTURE(bm_engine, async_torus_32x32, Work{"torus:32x32", EngineKind::async, 1.0, 200})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
// Like for like with hop_emu's header command (K = 4 packets per PE into an empty network).
BENCHMARK_CAPTURE(bm_engine, async_torus_32x32_k4, Work{"torus:32x32", EngineKind::async, 1.0, 4})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_engine, async_cccb_n4, Work{"cccb:n=4", EngineKind::async, 1.0, 200})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_engine, async_torus_256x256, Work{"torus:256x256", EngineKind::async, 1.0, 4})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(bm_engine, async_cccb_n6, Work{"cccb:n=6", EngineKind::async, 1.0, 8})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(bm_engine, cycle_torus_32x32, Work{"torus:32x32", EngineKind::cycle, 0.05, 2000})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_engine, cycle_cccb_n4, Work{"cccb:n=4", EngineKind::cycle, 0.05, 2000})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(bm_engine, cycle_torus_256x256, Work{"torus:256x256", EngineKind::cycle, 0.01, 100})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(bm_engine, cycle_cccb_n6, Work{"cccb:n=6", EngineKind::cycle, 0.01, 100})
    ->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
