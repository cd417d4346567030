#pragma once
// Applications runnable by name from the CLI (`rica run <topology> --app reduce:rounds=5`),
// a documented value-type selector like the topology and traffic registries. Traffic patterns
// have their own registry (apps/traffic).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "rica/app.hpp"
#include "rica/registry.hpp"

namespace rica {

struct AppEntry {
  std::string name;
  std::string summary;
  std::string example;
  std::vector<ParamDoc> params;
  std::string positional;
  std::unique_ptr<App> (*make)(const SpecArgs&, const Topology&);
};

class AppRegistry {
 public:
  static const std::vector<AppEntry>& available();
  /// Throws usage_error "unknown application 'x'; valid: ..." for an unknown name.
  static const AppEntry& by_name(std::string_view name);
  /// Builds an application from "name[:args]"; throws usage_error on a malformed spec.
  static std::unique_ptr<App> make(const std::string& spec, const Topology& topo);
  static std::string help_text();
};

}  // namespace rica
