// A one-file user binary: rica's whole command line with the user's own application ("ring"),
// traffic pattern ("reverse") and topology families ("dring": an edge list; "uring": the user's
// own routing function) added by name:
//   rica_ring list | run torus:4x4 --app ring:laps=3 | sweep mesh:4x4 --traffic reverse | os ... --job ring
//   rica_ring run dring:12 --app ring:laps=2 | topo dring:12 | run uring:12 --app ring:laps=2
#include <memory>

#include <rica/apps/app_registry.hpp>  // rica::register_app, rica::AppRegistration
#include <rica/cli.hpp>            // rica::cli::main
#include <rica/user_topology.hpp>  // rica::TopologyRegistration
#include <rica/apps/traffic.hpp>       // rica::TrafficRegistration

#include "ring.hpp"
#include "uring.hpp"

namespace {

// Static registration: these run before main().
const rica::AppRegistration ring_app{{
    "ring",
    "a token circles the PEs in address order, `laps` times (examples/external)",
    "ring:laps=3",
    {{"laps", "1..1000", "1", "times around the ring"}},
    "laps",
    [](const rica::SpecArgs& a, const rica::Topology&) -> std::unique_ptr<rica::App> {
      const unsigned laps = a.uint("laps");
      if (laps < 1 || laps > 1000) throw rica::usage_error("app 'ring': laps must be in 1..1000");
      return std::make_unique<user::RingToken>(laps);
    }}};

const rica::TrafficRegistration reverse_traffic{
    "reverse",
    [](const rica::SpecArgs&, const rica::traffic::PeSpace& space, std::uint64_t) {
      const rica::node_t n = space.pes;
      return [n](rica::node_t src, rica::Rng&) { return n - 1 - src; };
    },
    /*random=*/false, "address reversal: PE i sends to PE N-1-i (examples/external)"};

// A bidirectional ring of n PEs, built as an edge list: table routing, shortest way round.
rica::Topology make_dring(const rica::SpecArgs& a) {
  const unsigned n = a.uint("n");
  if (n < 3 || n > 4096) throw rica::usage_error("topology 'dring': n must be in 3..4096");
  rica::EdgeList g;
  g.nodes = g.pes = n;
  for (rica::node_t v = 0; v < n; ++v) {
    g.arcs.emplace_back(v, (v + 1) % n);
    g.arcs.emplace_back(v, (v + n - 1) % n);
  }
  return rica::GraphTopology(g, "dring:n=" + std::to_string(n));  // canonical: parses back
}
const rica::TopologyRegistration dring{
    {"dring", "bidirectional ring of n PEs (examples/external)", "dring:16", {{"n", "3..4096", "", "PEs"}}, "n",
     make_dring}};

// The same ring with the user's own routing function (uring.cpp): a UserTopology.
const rica::TopologyRegistration uring{user::uring_entry()};

}  // namespace

int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
