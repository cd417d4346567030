#pragma once
// Applications runnable by name from the CLI (`rica run <topology> --app reduce:rounds=5`),
// a documented value-type selector like the topology and traffic registries. Traffic patterns
// have their own registry (apps/traffic).
//
// Open for extension: a user's program adds its own applications with register_app() (or a
// static AppRegistration object) before it runs anything; they are then listed by `rica list`
// and accepted by name wherever an application is (run --app, sweep, os --job, app, Python).
// docs/extending.md walks through one.

#include <functional>
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
  /// Builds the application from its checked arguments on a topology (or a job's PEs: then
  /// the topology is the machine's and the App sees its job's PE numbers through Context).
  /// Throws usage_error naming the parameter on a bad value.
  std::function<std::unique_ptr<App>(const SpecArgs&, const Topology&)> make;
};

/// Adds an application to the registry. Call before any run, from one thread (registries are
/// read concurrently afterwards, never written). usage_error when the name is empty, is not
/// [a-z0-9_-]+, or is taken (an application or a traffic pattern: `os --job` takes both).
void register_app(AppEntry entry);
/// The same with the common fields: `name`, a one-line `summary`, the factory, its parameters
/// (the positional one, if any, first), and an example spec ("" = the name).
void register_app(std::string name, std::function<std::unique_ptr<App>(const SpecArgs&, const Topology&)> make,
                  std::string summary, std::vector<ParamDoc> params = {}, std::string example = "");

/// Static registration: `static rica::AppRegistration reg{{"ring", ...}};` at namespace scope in a
/// file linked into the program registers before main().
struct AppRegistration {
  explicit AppRegistration(AppEntry entry) { register_app(std::move(entry)); }
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
