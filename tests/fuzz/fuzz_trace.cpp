// Fuzz target: packet trace CSV (`--traffic trace:FILE`, TraceReplay::load through
// rica::read_text_file): the first byte chooses a small machine (machines.hpp), the rest is the file.
#include "fuzz.hpp"
#include "machines.hpp"
#include "traffic.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string path = rica::fuzz::scratch_file(rica::fuzz::text_of(data + 1, size - 1), ".csv");
  rica::fuzz::refused_or_ok(
      [&] { (void)rica::TrafficRegistry::make("trace:" + path, rica::fuzz::machine(data[0])); });
  return 0;
}
