// The driver registry (runtime/machine/driver_registry.hpp): the built-in drivers in the order of
// their rica_engine() lines (the generated rica_builtin_engines.inc, cmake/engines.cmake), then
// those registered by code; names, traits and the refusals that read them.
#include "driver_registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <deque>

#include "rica/assert.hpp"
#include "rica/registry.hpp"
#include "rica/suggest.hpp"

namespace rica {
namespace detail {

#define RICA_ENGINE(id) const DriverEntry& builtin_driver_##id();
#include "rica_builtin_engines.inc"
#undef RICA_ENGINE

namespace {
/// Entries at stable addresses (engine_info hands out references); index = EngineKind.
std::deque<DriverEntry>& table() {
  static std::deque<DriverEntry> t = [] {
    std::deque<DriverEntry> r;
#define RICA_ENGINE(id) r.push_back(builtin_driver_##id());
#include "rica_builtin_engines.inc"
#undef RICA_ENGINE
    for (std::size_t i = 0; i < r.size(); ++i) r[i].info.kind = static_cast<EngineKind>(i);
    // EngineKind names the first built-ins: their rica_engine() lines come first, in this order.
    if (r.size() < 2 || r[0].info.name != "async" || r[1].info.name != "cycle") {
      std::fputs("rica: the built-in engines must start with async, cycle (CMakeLists.txt rica_engine lines)\n", stderr);
      std::abort();
    }
    return r;
  }();
  return t;
}
}  // namespace

EngineKind register_driver(DriverEntry e) {
  check_registered_name(e.info.name, "engine");
  if (!e.drive) throw usage_error(fmt::format("engine '{}': no entry point", e.info.name));
  auto& t = table();
  for (const DriverEntry& x : t)
    if (x.info.name == e.info.name) throw usage_error(fmt::format("engine '{}' is already registered", e.info.name));
  if (t.size() > 255) throw usage_error(fmt::format("engine '{}': at most 256 engines", e.info.name));
  e.info.kind = static_cast<EngineKind>(t.size());
  t.push_back(std::move(e));
  return t.back().info.kind;
}

DriveFn driver_of(EngineKind k) {
  const auto i = static_cast<std::size_t>(k);
  RICA_ASSERT(i < table().size(), "driver_of: an engine number no engine has");
  return table()[i].drive;
}

}  // namespace detail

std::vector<EngineInfo> engines() {
  std::vector<EngineInfo> r;
  for (const detail::DriverEntry& e : detail::table()) r.push_back(e.info);
  return r;
}

const EngineInfo& engine_info(EngineKind k) {
  const auto i = static_cast<std::size_t>(k);
  const auto& t = detail::table();
  if (i >= t.size())
    throw usage_error(fmt::format("--engine: no engine number {} ({} are registered)", i, t.size()));
  return t[i].info;
}

const char* to_string(EngineKind k) noexcept {
  const auto i = static_cast<std::size_t>(k);
  const auto& t = detail::table();
  return i < t.size() ? t[i].info.name.c_str() : "?";
}

EngineKind engine_kind_by_name(const std::string& name, const std::string& option) {
  std::vector<std::string> names;
  for (const detail::DriverEntry& e : detail::table()) {
    if (e.info.name == name) return e.info.kind;
    names.push_back(e.info.name);
  }
  throw usage_error(fmt::format("{}: unknown engine '{}'{}", option, name,
                                valid_names_tail(name, names, fmt::format("{}", fmt::join(names, ", ")))));
}

std::vector<std::string> engines_with(bool EngineTraits::*trait) {
  std::vector<std::string> r;
  for (const detail::DriverEntry& e : detail::table())
    if (e.info.traits.*trait) r.push_back(e.info.name);
  return r;
}

void require_trait(EngineKind k, bool EngineTraits::*trait, const std::string& option, const std::string& lacks) {
  if (engine_info(k).traits.*trait) return;
  const std::vector<std::string> with = engines_with(trait);
  if (with.empty()) throw usage_error(fmt::format("{}: no registered engine offers it; drop {}", option, option));
  throw usage_error(fmt::format("{} applies to the {} engine{} only{}; add --engine {} or drop {}", option,
                                fmt::join(with, ", "), with.size() > 1 ? "s" : "",
                                lacks.empty() ? "" : fmt::format(" (the {} engine {})", to_string(k), lacks),
                                with.front(), option));
}

}  // namespace rica
