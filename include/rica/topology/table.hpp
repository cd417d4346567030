#pragma once
// An explicit graph with table-driven shortest-path routing: custom topologies read from an
// edge-list file, and networks whose natural routing is a table (shuffle-exchange).
//
// Edge-list file format (spec "file:<path>"), one item per line:
//
//   # comment                a '#' starts a comment that runs to the end of the line
//   nodes <N>                optional; default = 1 + the largest node id used
//   pes <P>                  optional; nodes [0, P) are PEs, the rest router-only (default: all)
//   directed                 optional; every link line is then one directed arc u -> v
//                            (default: every link line is an undirected, bidirectional link)
//   label <id> <text>        optional node label (the rest of the line, trimmed)
//   <u> <v>                  a link between node ids u and v (decimal, 0-based)
//
// Blank lines are ignored; keywords may appear in any order, each at most once (label once per
// node). Out-ports of a node are its links in file order (for an undirected link u v: u's port
// to v and v's port to u), in-ports are numbered in order of (source node, source port).
// Errors (usage_error, one line "<origin>:<line>: <what is wrong>"): an unknown keyword or bad
// token, a missing or extra field, a node id >= N, a self-loop (u == v), N or P out of range
// (1 <= P <= N <= 8192 = GraphTopology::table_limit), a duplicate keyword or label; and, without
// a line number, a file with no links or a graph in which some PE cannot reach another PE.
// The file must be a regular file (devices and FIFOs are refused without reading) of at most
// defaults::input::topology_file_bytes (256 MiB), no line above topology_line_bytes (4 KiB).
// Parallel links are allowed (each is a separate port). Example, a directed ring of 4 PEs:
//
//   directed
//   0 1
//   1 2
//   2 3
//   3 0

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// Arcs of a graph; nodes [0, pes) are PEs, [pes, nodes) router-only.
struct EdgeList {
  node_t nodes = 0;
  node_t pes = 0;
  std::vector<std::pair<node_t, node_t>> arcs;  // directed arcs u -> v
  std::vector<std::string> labels;              // optional, one per node
};

/// Parses the edge-list format (see the top of this file). `origin` names the source in errors
/// ("file.txt:12: ..."). Throws usage_error on malformed input.
EdgeList parse_edge_list(std::istream& in, const std::string& origin);

/// CSR graph; out-ports of a node are its arcs in input order, in-ports its incoming arcs in
/// order of (source node, source port). Self-loops dropped, parallel arcs kept.
/// Labels: labels[v] when given and non-empty, else the decimal id.
/// Routing: next hop from a full (node, destination PE) table of shortest paths (ties: lowest
/// port); classes distance-to-go (class of a hop = D - remaining distance before the hop).
/// Table memory is nodes * pes bytes: limited to table_limit nodes.
class GraphTopology : private NoSymmetry {
 public:
  static constexpr node_t table_limit = 8192;
  /// Throws usage_error when the graph is empty, too large for the table (nodes > table_limit,
  /// more than 255 out-ports at a node), or some PE cannot reach another. `spec` is the
  /// canonical spec string reported by spec() and names the topology in error messages.
  GraphTopology(const EdgeList& graph, std::string spec);

  node_t nodes() const noexcept { return t_->nodes; }
  node_t pes() const noexcept { return t_->pes; }
  port_t ports() const noexcept { return t_->max_ports; }
  Link out_link(node_t v, port_t p) const noexcept {
    const auto b = t_->first[v];
    return (b + p < t_->first[v + 1]) ? t_->links[b + p] : Link{};
  }
  Hop route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
    if (cur == dst) return Hop::deliver();
    const std::size_t i = std::size_t{cur} * t_->pes + dst;
    return Hop::forward(t_->next_port[i], static_cast<class_t>(t_->diameter - t_->dist[i]));
  }
  class_t buffer_classes() const noexcept {
    return static_cast<class_t>(t_->diameter > 0 ? t_->diameter : 1u);
  }
  std::string label(node_t v) const;
  std::string spec() const { return spec_; }
  Shape shape() const { return {t_->pes}; }
  using NoSymmetry::orbit;
  using NoSymmetry::orbit_count;
  using NoSymmetry::orbit_rep;
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  /// shuffle:n embeds like the de Bruijn graph it contains.
  std::string_view auto_embedding(bool /*linear_guest*/) const noexcept {
    return spec_.rfind("shuffle:", 0) == 0 ? "debruijn" : "";
  }

  struct Tables {
    node_t nodes = 0, pes = 0;
    port_t max_ports = 0;
    std::vector<std::uint32_t> first;     // CSR offsets, nodes + 1
    std::vector<Link> links;              // out-links
    std::vector<std::uint8_t> next_port;  // [node * pes + dst]
    std::vector<std::uint16_t> dist;      // [node * pes + dst], hops
    unsigned diameter = 0;                // max over PE pairs
    std::vector<std::string> labels;
  };

 private:
  std::shared_ptr<const Tables> t_;
  std::string spec_;
};

/// Shuffle-exchange network on 2^n nodes: bidirectional shuffle links (rotl / rotr) and exchange
/// links (flip bit 0), self-loops dropped, duplicates merged; table routing (n <= 13).
GraphTopology make_shuffle_exchange(unsigned n);
/// A custom topology from an edge-list file (spec "file:path").
GraphTopology load_edge_list_file(const std::string& path);

}  // namespace rica
