// A one-file user binary: rica's whole command line with the user's own application ("ring")
// and traffic pattern ("reverse") added by name:
//   rica_ring list | run torus:4x4 --app ring:laps=3 | sweep mesh:4x4 --traffic reverse | os ... --job ring
#include <memory>

#include <app_registry.hpp>  // rica::register_app, rica::AppRegistration
#include <rica/cli.hpp>      // rica::cli::main
#include <traffic.hpp>       // rica::TrafficRegistration

#include "ring.hpp"

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

}  // namespace

int main(int argc, char** argv) { return rica::cli::main(argc, argv); }
