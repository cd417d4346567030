// The topology registry: every topology, its documentation, and the spec parser.
#include "rica/registry.hpp"
#include "rica/user_topology.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "family_util.hpp"

namespace rica {

using detail::size_of;
using detail::strip_parens;

namespace {

/// Every built-in family's entries, in the order of the variant's alternatives (the
/// rica_topology_family() lines of CMakeLists.txt): each family declares its own
/// (rica/topology/family.hpp); a family with none (UserTopology, FaultyTopology) adds nothing.
template <class... Family>
std::vector<TopologyEntry> builtin_entries(std::variant<Family...>* /*tag*/) {
  std::vector<TopologyEntry> out;
  const auto add = [&out](std::vector<TopologyEntry> es) {
    for (auto& e : es) out.push_back(std::move(e));
  };
  (
      [&] {
        if constexpr (requires { Family::registry_entries(); }) add(Family::registry_entries());
      }(),
      ...);
  return out;
}

std::vector<TopologyEntry> build_entries() { return builtin_entries(static_cast<Topology::variant_type*>(nullptr)); }

std::vector<TopologyEntry>& entries() {
  static std::vector<TopologyEntry> e = build_entries();
  return e;
}

}  // namespace

namespace detail {

/// Splits at every `sep` outside parentheses. Throws on unbalanced parentheses.
std::vector<std::string> split_top(std::string_view s, char sep, const std::string& what) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth < 0) throw usage_error(fmt::format("{}: unbalanced ')' in '{}'", what, s));
    if (s[i] == sep && depth == 0) {
      out.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) throw usage_error(fmt::format("{}: unbalanced '(' in '{}'", what, s));
  out.emplace_back(s.substr(start));
  return out;
}

std::string strip_parens(std::string s) {
  while (s.size() >= 2 && s.front() == '(' && s.back() == ')') {
    // Only strip when the outer pair matches itself.
    int depth = 0;
    bool outer = true;
    for (std::size_t i = 0; i + 1 < s.size(); ++i) {
      if (s[i] == '(') ++depth;
      if (s[i] == ')') --depth;
      if (depth == 0) { outer = false; break; }
    }
    if (!outer) break;
    s = s.substr(1, s.size() - 2);
  }
  return s;
}

TopologySize size_of(const Topology& t) {
  return {static_cast<double>(t.nodes()), static_cast<double>(t.pes()), t.ports(), t.buffer_classes()};
}

}  // namespace detail

const std::vector<TopologyEntry>& TopologyRegistry::available() { return entries(); }

void register_topology(TopologyEntry entry) {
  check_registered_name(entry.name, "topology");
  if (entry.make == nullptr) throw usage_error(fmt::format("topology '{}': no factory", entry.name));
  for (const auto& e : entries())
    if (e.name == entry.name) throw usage_error(fmt::format("topology '{}' is already registered", entry.name));
  if (entry.example.empty()) entry.example = entry.name;
  entries().push_back(std::move(entry));
}

const TopologyEntry& TopologyRegistry::by_name(std::string_view name) { return find_entry(available(), name, "topology"); }

Drawing TopologyRegistry::drawing(std::string_view spec) noexcept {
  const std::string_view name = spec.substr(0, spec.find(':'));
  for (const TopologyEntry& e : available())
    if (e.name == name) return e.drawing;
  return Drawing::graph;
}

const char* to_string(Drawing d) noexcept {
  switch (d) {
    case Drawing::grid: return "grid";
    case Drawing::ring: return "ring";
    case Drawing::stages: return "stages";
    case Drawing::levels: return "levels";
    case Drawing::graph: break;
  }
  return "graph";
}

Topology TopologyRegistry::parse(std::string_view spec_in) {
  // Bounds the recursion of nested product/hier specs and the work of strip_parens.
  constexpr std::size_t max_spec = 4096;
  if (spec_in.size() > max_spec)
    throw usage_error(fmt::format("topology spec of {} characters; at most {} are accepted", spec_in.size(), max_spec));
  const std::string spec = strip_parens(std::string(spec_in));
  if (spec.empty()) throw usage_error("empty topology spec; see 'rica list'");
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const TopologyEntry& e = by_name(name);
  SpecArgs args(name, rest);
  args.docs = &e.params;
  if (e.positional != "*" && !rest.empty()) args.parse(rest, e.positional);
  return e.make(args);
}

TopologySize TopologyRegistry::size(std::string_view spec_in) {
  constexpr std::size_t max_spec = 4096;  // as parse()
  if (spec_in.size() > max_spec) return size_of(parse(spec_in));  // parse() refuses it
  const std::string spec = strip_parens(std::string(spec_in));
  const auto colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const TopologyEntry* e = nullptr;
  for (const auto& x : available())
    if (x.name == name) e = &x;
  if (e == nullptr || e->size == nullptr) return size_of(parse(spec));
  SpecArgs args(name, rest);
  args.docs = &e->params;
  if (e->positional != "*" && !rest.empty()) args.parse(rest, e->positional);
  return e->size(args);
}

std::string TopologyRegistry::help_text() {
  std::string out = "Topologies (spec = name[:args]; args = positional value and/or key=value,...):\n";
  for (const auto& e : available()) {
    out += fmt::format("\n  {:<10} {}\n             e.g. {}\n", e.name, e.summary, e.example);
    out += param_help(e.params, e.positional);
  }
  return out;
}

void check_registered_name(const std::string& name, std::string_view kind) {
  const bool ok = !name.empty() && name.size() <= 64 && name[0] >= 'a' && name[0] <= 'z' &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
                  });
  if (!ok)
    throw usage_error(fmt::format("{} name '{}': use 1 to 64 of a-z, 0-9, '_', '-', starting with a letter", kind,
                                  name));
}

}  // namespace rica
