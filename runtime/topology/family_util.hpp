#pragma once
// Internal (not installed): helpers the built-in families' registry entries share — the spec
// text of composites, and the `classes=K` certification of the dragonfly and the Slim Fly.

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "cdg.hpp"
#include "rica/registry.hpp"
#include "rica/user_topology.hpp"

namespace rica::detail {

/// Splits at every `sep` outside parentheses. Throws on unbalanced parentheses.
std::vector<std::string> split_top(std::string_view s, char sep, const std::string& what);
/// Removes parentheses enclosing the whole text, "((a))" -> "a".
std::string strip_parens(std::string s);
/// The counts of a built topology.
TopologySize size_of(const Topology& t);

/// An explicit `classes=K` (0 = not given: the constructors take 0 for the derived count).
inline unsigned explicit_classes(const SpecArgs& a, const char* name) {
  if (!a.has("classes")) return 0;
  const unsigned k = a.uint("classes");
  check_range(name, "classes", k, 1, 2);
  return k;
}

/// `classes=K` given: the channel dependency check runs on the built network (when pes x nodes
/// <= 2^24) and refuses a K whose dependency graph has a cycle, naming the cycle.
template <class T>
Topology certified(const T& t, const SpecArgs& a, const char* name) {
  if (!a.has("classes")) return t;
  if (std::uint64_t{t.pes()} * t.nodes() <= UserTopology::check_auto_limit) {
    certify_routing(t, fmt::format("{}: classes={}", name, t.buffer_classes()));
  } else if (t.buffer_classes() < t.derived_classes()) {
    throw usage_error(fmt::format("{}: parameter 'classes' = {} is below the {} minimal routing needs (the channel "
                                  "dependency check runs up to pes x nodes = 2^24; this network is larger)",
                                  name, t.buffer_classes(), t.derived_classes()));
  }
  return t;
}

}  // namespace rica::detail
