#pragma once
// The topology registry: a value-type selector (after seastar's reactor_backend_selector).
// Each entry carries its own documentation (summary, parameters, example), from which
// `rica list` and the CLI help are generated. An unknown name is an error listing valid ones.
//
// Spec syntax:  name[:args]   args = a positional value and/or key=value pairs, comma separated,
//   e.g. "mesh:32x32", "hypercube:10", "dce:n=4,delta=2", "debruijn:10,route=shift".
// Composites take whole specs: "product:<a>*<b>", "hier:<cluster>/<global>[/iface=K]"; wrap a
// component in parentheses when it contains '*', '/' or ',' itself: "hier:(file:net/a.txt)/(mesh:2x2)".

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rica/suggest.hpp"
#include "rica/topology.hpp"

namespace rica {

/// One documented parameter of a registry entry.
struct ParamDoc {
  std::string name;
  std::string accepts;        ///< what is accepted, e.g. "1..24", "AxB[xC...]", "flip|parallel"
  std::string default_value;  ///< empty = required
  std::string help;
};

/// Parsed "key=value" arguments of one spec, checked against the entry's ParamDocs.
class SpecArgs {
 public:
  SpecArgs(std::string what, std::string raw) : what_(std::move(what)), raw_(std::move(raw)) {}
  /// Value text of a parameter, the entry's default when absent. Throws when required and absent.
  [[nodiscard]] std::string text(const std::string& name) const;
  [[nodiscard]] bool has(const std::string& name) const;
  /// Unsigned integer value; usage_error naming the parameter when not an integer.
  [[nodiscard]] unsigned uint(const std::string& name) const;
  /// "AxBxC" shape value.
  [[nodiscard]] Shape shape(const std::string& name) const;
  /// One of `choices` (by text); usage_error listing them otherwise.
  [[nodiscard]] std::size_t choice(const std::string& name, const std::vector<std::string>& choices) const;
  /// Fills `values` from "v,k=v,..." (a bare value first sets `positional`, "" = none; commas
  /// inside parentheses do not split). Checks every key against `docs`. Throws usage_error
  /// prefixed with what(): "'x' must be key=value", "unknown parameter", "given twice".
  void parse(std::string_view rest, const std::string& positional);
  [[nodiscard]] const std::string& raw() const noexcept { return raw_; }
  [[nodiscard]] const std::string& what() const noexcept { return what_; }

  std::vector<std::pair<std::string, std::string>> values;  ///< explicit key=value pairs
  const std::vector<ParamDoc>* docs = nullptr;

 private:
  std::string what_, raw_;
};

/// A name a user registers (application, traffic pattern, switch policy): non-empty, at most 64
/// characters of [a-z0-9_-], starting with a letter; usage_error naming `kind` otherwise.
void check_registered_name(const std::string& name, std::string_view kind);

/// The documentation lines of a registry entry's parameters, as `rica list` prints them.
std::string param_help(const std::vector<ParamDoc>& params, const std::string& positional);

/// The entry called `name` among `entries` (anything with a `name` member); otherwise throws
/// usage_error "unknown <kind> 'x'; [did you mean 'y'? ]valid: a, b, ..." (the nearest name,
/// rica/suggest.hpp). Shared by every registry's by_name().
template <class Entry>
const Entry& find_entry(const std::vector<Entry>& entries, std::string_view name, std::string_view kind) {
  std::string valid;
  std::vector<std::string> names;
  for (const auto& e : entries) {
    if (e.name == name) return e;
    valid += (valid.empty() ? "" : ", ") + e.name;
    names.push_back(e.name);
  }
  throw usage_error("unknown " + std::string(kind) + " '" + std::string(name) + "'" + valid_names_tail(name, names, valid));
}

/// The size of a topology from its spec alone, for the memory guard of every command (issue 28):
/// node, PE and port counts exact; `classes` a lower bound (1 where only the built routing tables
/// would tell).
struct TopologySize {
  double nodes = 0, pes = 0;
  port_t ports = 0;
  class_t classes = 1;
};

/// How a family's link heat map is drawn (scripts/rica_heatmap.py; the run report's
/// "topology_drawing"). Each kind relies on the node labels (Topology::label) it names:
enum class Drawing : std::uint8_t {
  graph,   ///< any network: node positions from Graphviz (the default)
  grid,    ///< labels "(x,y[,z,w])": one panel per out-port, a node's link as a cell at its coordinates
  ring,    ///< labels "(x0,x1,...)", x0 a position on a ring of stages: nodes at (x0, row), a link
           ///< that wraps the ring drawn to a copy of its stage; one panel per out-port
  stages,  ///< a multistage network: switches "s<stage>.<i>", PEs "pe<i>" as sources before the
           ///< first stage and again as destinations after the last; one panel
  levels,  ///< a tree: switches "L<level>.<i>", PEs "pe<i>" below level 0; one panel per out-port
};
const char* to_string(Drawing d) noexcept;

struct TopologyEntry {
  std::string name;
  std::string summary;
  std::string example;
  std::vector<ParamDoc> params;
  std::string positional;  ///< parameter a bare value sets ("" = none; "*" = raw text: composites, file)
  Topology (*make)(const SpecArgs&);
  /// The size without building: set by entries whose make() builds tables in proportion to the
  /// network (the rest are built in O(1) memory, or are bounded small, and measured built).
  TopologySize (*size)(const SpecArgs&) = nullptr;
  Drawing drawing = Drawing::graph;  ///< the heat map's layout for this family
};

class TopologyRegistry {
 public:
  /// Every registered topology, in documentation order.
  static const std::vector<TopologyEntry>& available();
  /// Throws usage_error "unknown topology 'x'; valid: a, b, ..." for an unknown name.
  static const TopologyEntry& by_name(std::string_view name);
  /// Builds a topology from a spec string. Throws usage_error on any malformed spec.
  static Topology parse(std::string_view spec);
  /// The size of parse(spec) without allocating in proportion to it: the entry's size(), the
  /// composites' from their parts, else the built topology's counts. Throws as parse().
  static TopologySize size(std::string_view spec);
  /// The drawing of a spec's family (its entry's `drawing`); Drawing::graph when no entry has
  /// the spec's name. Never throws.
  static Drawing drawing(std::string_view spec) noexcept;
  /// The generated reference text (`rica list`).
  static std::string help_text();
};

}  // namespace rica
