// Fuzz target: topology specs (TopologyRegistry::parse, rica/registry.hpp), the text of every
// `rica run SPEC`. An accepted spec must give a machine within its declared bounds whose routes
// end at their destination over present links within the declared buffer classes.
#include <cstdint>
#include <random>

#include "fuzz.hpp"
#include "rica/registry.hpp"
#include "rica/topology.hpp"

namespace {
constexpr double max_nodes_fuzzed = 1 << 16;  // larger machines cost seconds each: outside the budget
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 256) return 0;
  const std::string spec = rica::fuzz::text_of(data, size);
  rica::fuzz::refused_or_ok([&] {
    const rica::TopologySize s = rica::TopologyRegistry::size(spec);
    if (s.nodes > max_nodes_fuzzed) return;
    const rica::Topology t = rica::TopologyRegistry::parse(spec);
    if (t.nodes() < 1 || t.pes() > t.nodes() || t.buffer_classes() < 1) std::abort();
    if (t.pes() < 2) return;
    std::mt19937_64 rng(size);
    for (int k = 0; k < 4; ++k) {
      const auto src = static_cast<rica::node_t>(rng() % t.pes()), dst = static_cast<rica::node_t>(rng() % t.pes());
      rica::node_t cur = src;
      rica::class_t cls = 0;
      for (std::uint64_t steps = 0;; ++steps) {
        const rica::Hop h = t.route(cur, dst, cls);
        if (h.delivers()) break;
        if (h.port() >= t.ports() || h.next_class() >= t.buffer_classes()) std::abort();
        const rica::Link l = t.out_link(cur, h.port());
        if (!l.present()) std::abort();
        cur = l.peer;
        cls = h.next_class();
        if (steps > std::uint64_t{t.nodes()} * t.buffer_classes() + 1) std::abort();  // a routing loop
      }
      if (cur != dst) std::abort();
    }
  });
  return 0;
}
