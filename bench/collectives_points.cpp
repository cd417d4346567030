// The points of docs/collectives.md's crossover figures without the CLI: runs each collective
// application spec on one network on the cycle engine (1 thread, seed 1, every other engine
// option at rica run's default) and prints one CSV row per spec:
//   network,spec,cycles,model_cycles,model_ratio,messages,packets,verified
// Usage: collectives_points NETWORK SPEC... (scripts/collectives_crossover.py --points plots them).
#include <cstdio>
#include <exception>

#include "app_registry.hpp"
#include "rica/engine.hpp"
#include "rica/registry.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: collectives_points NETWORK SPEC...\n");
    return 2;
  }
  try {
    const rica::Topology t = rica::TopologyRegistry::parse(argv[1]);
    for (int i = 2; i < argc; ++i) {
      auto app = rica::AppRegistry::make(argv[i], t);
      rica::EngineConfig cfg;
      cfg.engine = rica::EngineKind::cycle;
      cfg.threads = 1;
      const rica::RunStats st = rica::run(t, *app, cfg);
      const auto j = app->summary();
      std::printf("%s,\"%s\",%s,%s,%s,%s,%s,%d\n", argv[1], argv[i], j["cycles"].dump().c_str(),
                  j["model_cycles"].dump().c_str(), j["model_ratio"].dump().c_str(), j["messages"].dump().c_str(),
                  j["packets"].dump().c_str(), st.app_ok && st.conservation_ok ? 1 : 0);
      std::fflush(stdout);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "collectives_points: %s\n", e.what());
    return 2;
  }
  return 0;
}
