// Fuzz target: traffic specs (TrafficRegistry::make, `rica run --traffic SPEC`, sweep, os --job):
// the first byte chooses a small machine (machines.hpp) and the run's rate and packets, the rest is
// the spec. File traffic (trace:FILE, matrix:FILE) has its own targets (fuzz_trace, fuzz_matrix).
#include "fuzz.hpp"
#include "machines.hpp"
#include "traffic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 256) return 0;
  const std::string spec = rica::fuzz::text_of(data + 1, size - 1);
  if (spec.starts_with("trace:") || spec.starts_with("matrix:")) return 0;  // a file the spec names
  rica::TrafficOptions opt;
  opt.packets = 1 + data[0] % 7;
  opt.rate = data[0] & 0x80 ? 1.0 : 0.1;
  rica::fuzz::refused_or_ok([&] {
    const rica::Topology& t = rica::fuzz::machine(data[0]);
    (void)rica::TrafficRegistry::make(spec, t, opt);
    (void)rica::TrafficRegistry::canonical(spec);
  });
  return 0;
}
