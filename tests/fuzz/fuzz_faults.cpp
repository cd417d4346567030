// Fuzz target: fault specs (`--faults SPEC`: parse_fault_spec, then resolve_faults and with_faults on
// a small machine): the first byte chooses the machine (machines.hpp) and the seed, the rest is the
// spec. An accepted set names existing links and nodes of the machine.
#include "fuzz.hpp"
#include "machines.hpp"
#include "rica/faults.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 256) return 0;
  const std::string spec = rica::fuzz::text_of(data + 1, size - 1);
  rica::fuzz::refused_or_ok([&] {
    const rica::FaultSpec f = rica::parse_fault_spec(spec);
    (void)rica::parse_fault_spec(f.text());  // the canonical text parses again
    const rica::Topology& t = rica::fuzz::machine(data[0]);
    const rica::FaultSet set = rica::resolve_faults(t, f, data[0]);
    for (const auto& [u, v] : set.links)
      if (u >= t.nodes() || v >= t.nodes()) std::abort();
    for (const rica::node_t v : set.nodes)
      if (v >= t.nodes()) std::abort();
    (void)rica::with_faults(t, f, data[0]);
  });
  return 0;
}
