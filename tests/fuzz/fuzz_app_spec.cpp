// Fuzz target: application specs (AppRegistry::make, `rica run --app SPEC`, `rica os --job`): the
// input's first byte chooses a small machine (machines.hpp), the rest is the spec.
#include "app_registry.hpp"
#include "fuzz.hpp"
#include "machines.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 256) return 0;
  const std::string spec = rica::fuzz::text_of(data + 1, size - 1);
  rica::fuzz::refused_or_ok([&] { (void)rica::AppRegistry::make(spec, rica::fuzz::machine(data[0])); });
  return 0;
}
