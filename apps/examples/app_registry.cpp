#include "app_registry.hpp"

#include <fmt/format.h>

#include "reduce.hpp"

namespace rica {
namespace {

std::unique_ptr<App> make_reduce(const SpecArgs& a, const Topology&) {
  const unsigned rounds = a.uint("rounds");
  detail::check_range("app 'reduce'", "rounds", rounds, 1, 1u << 20);
  return std::make_unique<examples::TreeReduce>(rounds);
}

std::vector<AppEntry> build() {
  return {
      {"reduce", "binomial-tree sum of one value per PE, broadcast back (docs/programming.md)", "reduce:rounds=5",
       {{"rounds", "1..2^20", "1", "reductions, one after the other"}}, "rounds", make_reduce},
  };
}

}  // namespace

const std::vector<AppEntry>& AppRegistry::available() {
  static const std::vector<AppEntry> entries = build();
  return entries;
}

const AppEntry& AppRegistry::by_name(std::string_view name) { return find_entry(available(), name, "application"); }

std::unique_ptr<App> AppRegistry::make(const std::string& spec, const Topology& topo) {
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const AppEntry& e = by_name(name);
  SpecArgs args(fmt::format("app '{}'", name), colon == std::string::npos ? "" : spec.substr(colon + 1));
  args.docs = &e.params;
  args.parse(args.raw(), e.positional);
  return e.make(args, topo);
}

std::string AppRegistry::help_text() {
  std::string out = "Applications (rica run <topology> --app name[:args]):\n";
  for (const auto& e : available()) {
    out += fmt::format("\n  {:<10} {}\n             e.g. {}\n", e.name, e.summary, e.example);
    out += param_help(e.params, e.positional);
  }
  return out;
}

}  // namespace rica
