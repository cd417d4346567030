// A user's own driver: no CLI, the runtime's API only (rica::runtime). Runs the user's RingToken
// on a topology given on the command line with both engines and prints the figures. The user's
// topology family "uring" (uring.cpp: a ring with the user's routing function) is registered
// first, so SPEC may be any built-in spec or uring:N.
//   ring_driver [SPEC] [LAPS]
#include <cstdio>
#include <cstdlib>
#include <string>

#include <rica/engine.hpp>
#include <rica/registry.hpp>
#include <rica/user_topology.hpp>

#include "ring.hpp"
#include "uring.hpp"

int main(int argc, char** argv) {
  try {
    rica::register_topology(user::uring_entry());
    const rica::Topology t = rica::TopologyRegistry::parse(argc > 1 ? argv[1] : "torus:4x4");
    const unsigned laps = argc > 2 ? static_cast<unsigned>(std::stoul(argv[2])) : 2;
    int status = 0;
    for (const rica::EngineKind engine : {rica::EngineKind::async, rica::EngineKind::cycle}) {
      rica::EngineConfig cfg;
      cfg.engine = engine;
      cfg.threads = 2;
      user::RingToken app(laps);
      const rica::RunStats st = rica::run(t, app, cfg);
      std::printf("%s %s: delivered %llu of %llu, hops mean %.3f, latency mean %.1f %s, %s\n", t.spec().c_str(),
                  rica::to_string(engine), static_cast<unsigned long long>(st.delivered),
                  static_cast<unsigned long long>(st.injected), st.hops_mean, st.latency_mean,
                  st.latency_unit.c_str(), st.app_ok ? "verified" : st.app_message.c_str());
      if (!st.app_ok || !st.conservation_ok || st.delivered != std::uint64_t{laps} * t.pes()) status = 1;
    }
    return status;
  } catch (const rica::usage_error& e) {
    std::fprintf(stderr, "ring_driver: error: %s\n", e.what());
    return 2;
  }
}
