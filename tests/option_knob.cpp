// A test-only option, declared once here and nowhere else: --test-knob K on rica run, demo and
// sweep, the cycle engine only. tests/option_table_tests.sh (through rica_knob) and
// tests/test_option_table.cpp show it in --help, the recorded configuration, --config keys, the
// echo, the engine check and the Python keywords, with no other edit.
#include "option_table.hpp"
#include "rica/core.hpp"

namespace {
[[maybe_unused]] const bool knob_registered = rica::cli::register_option([] {
  rica::cli::OptionDef d;
  d.name = "test-knob";
  d.kind = rica::cli::OptionKind::uint;
  d.type_name = "UINT";
  d.lo = 1;
  d.hi = 9;
  d.commands = {"run", "demo", "sweep"};
  d.engines = rica::cli::clocked_engines;
  d.help = "Test only: a knob that changes nothing [1..9]";
  d.parse = [](rica::cli::EngineOptions& o, const std::string& s) {
    o.extra["test-knob"] = std::to_string(rica::parse_uint(s, "--test-knob", 1, 9));
  };
  d.show = [](const rica::cli::EngineOptions& o) {
    const auto it = o.extra.find("test-knob");
    return it == o.extra.end() ? std::string("3") : it->second;
  };
  return d;
}());
}  // namespace
