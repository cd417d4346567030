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

// A test-only option with a default of its own on one subcommand (OptionDef::command_defaults):
// --test-dial is 2 on rica run and 5 on rica sweep, each shown by that command's --help and
// recorded in its configuration.
namespace {
[[maybe_unused]] const bool dial_registered = rica::cli::register_option([] {
  rica::cli::OptionDef d;
  d.name = "test-dial";
  d.kind = rica::cli::OptionKind::uint;
  d.type_name = "UINT";
  d.lo = 1;
  d.hi = 9;
  d.commands = {"run", "sweep"};
  d.help = "Test only: a dial that changes nothing [1..9]";
  d.command_defaults["sweep"] = {[](rica::cli::EngineOptions& o) { o.extra.emplace("test-dial", "5"); }, ""};
  d.parse = [](rica::cli::EngineOptions& o, const std::string& s) {
    o.extra["test-dial"] = std::to_string(rica::parse_uint(s, "--test-dial", 1, 9));
  };
  d.show = [](const rica::cli::EngineOptions& o) {
    const auto it = o.extra.find("test-dial");
    return it == o.extra.end() ? std::string("2") : it->second;
  };
  return d;
}());
}  // namespace
