#pragma once
// A topology with failed links and nodes, rerouted by tables (docs/faults.md): the generic
// fault-tolerant routing of rica, for any base topology (direct or indirect, directed or not).
//
// Built from a base topology and a FaultSet (rica/faults.hpp). Nodes, PEs, ports and port
// numbering are the base's; a failed link (every arc between the two nodes of a failed link)
// and every link of a failed node are absent from out_link() (a static fault set), or still
// present but never routed over (a dynamic fault set: the links exist until cycle `at`, the
// machine then empties them; runtime/machine/machine_faults.cpp).
//
// Routing: shortest paths on the surviving graph, with up*/down* phases as buffer classes so
// that the channel dependency graph is acyclic whatever the paths are. The surviving nodes are
// ranked by (breadth-first level from the lowest surviving node over the undirected surviving
// graph, node id); an arc u -> w goes "up" when w ranks below u, "down" otherwise. A packet's
// class encodes (phase k, went-down flag): class 2k while it has only gone up in phase k, 2k+1
// once it has gone down; an up hop after a down hop starts phase k+1. So class-2k buffers sit
// only on up links, class-(2k+1) ones only on down links, and every dependency goes from
// (class c, rank r) to a class c' > c or to the same class with a strictly smaller (up) or
// larger (down) rank: acyclic (Dally-Seitz), so deadlock-free. Among the shortest next hops the
// tables pick, per (node, destination, went-down flag), the one with the fewest phases to go
// (ties: the lowest port), which keeps the class count small (2 x the most phases any route
// needs; a route of h hops needs at most ceil(h / 2) phases). Classes start at class_offset()
// (the base's class count for a dynamic fault set, whose packets in the base's classes are
// routed afresh from where they are; 0 otherwise).
//
// Tables: for every (node, destination PE) and flag, a 16-bit entry (out-port, up/down bit):
// 4 x nodes x PEs bytes, refused above table_limit node-PE pairs (usage_error, exit 2).
// A packet for a failed PE is "delivered" where it is: the machine counts it as dropped by the
// fault (it never reaches an application).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

class Topology;
struct FaultSet;

class FaultyTopology : private NoSymmetry {
 public:
  /// Most nodes x PEs the tables may cover (4096 x 4096; 64 MiB of tables).
  static constexpr std::uint64_t table_limit = std::uint64_t{1} << 24;

  /// Builds the tables. Throws usage_error (one line, "--faults: ...") when the fault set names
  /// absent links or nodes, leaves fewer than 2 PEs, disconnects the surviving PEs (naming a PE
  /// that cannot reach another), or the network exceeds table_limit or 32767 ports.
  FaultyTopology(const Topology& base, const FaultSet& faults);

  node_t nodes() const noexcept { return t_->nodes; }
  node_t pes() const noexcept { return t_->pes; }
  port_t ports() const noexcept { return t_->ports; }
  Link out_link(node_t v, port_t p) const noexcept {
    return p < t_->ports ? t_->links[std::size_t{v} * t_->ports + p] : Link{};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst || t_->dead[dst]) return Hop::deliver();  // a failed PE's packets: dropped here
    const unsigned s = cls >= t_->offset ? cls - t_->offset : 0u;  // base-class packets start afresh
    const std::uint16_t e = t_->next[(std::size_t{cur} * t_->pes + dst) * 2 + (s & 1u)];
    if (e == no_entry) return Hop::deliver();  // cur failed: nothing is ever routed from here
    const unsigned phase = s >> 1;
    const bool up = (e & up_bit) != 0;
    const unsigned next = up ? ((s & 1u) ? 2 * (phase + 1) : 2 * phase) : 2 * phase + 1;
    return Hop::forward(static_cast<port_t>(e & port_mask), static_cast<class_t>(t_->offset + next));
  }
  class_t buffer_classes() const noexcept { return t_->classes; }
  std::string label(node_t v) const;
  /// The base topology's spec (the faults are recorded beside it: faults_text()).
  std::string spec() const;
  Shape shape() const;
  using NoSymmetry::orbit;
  using NoSymmetry::orbit_count;
  using NoSymmetry::orbit_rep;
  bool vertex_transitive() const noexcept { return false; }

  // ---- the faults ----
  const Topology& base() const noexcept { return *base_; }
  /// The canonical fault spec and the failed links / nodes it resolved to ("links=2: (0,1)-(1,1) ...").
  const std::string& faults_text() const noexcept { return t_->text; }
  /// Node v has failed (from cycle fail_at() on).
  bool failed(node_t v) const noexcept { return t_->dead[v] != 0; }
  /// Out-port p of v crosses a failed link (or leaves / enters a failed node).
  bool failed_link(node_t v, port_t p) const noexcept { return t_->dead_arc[std::size_t{v} * t_->ports + p] != 0; }
  /// The cycle the faults happen at (0: before the run, a static fault set).
  std::uint64_t fail_at() const noexcept { return t_->at; }
  bool dynamic() const noexcept { return t_->at > 0; }
  /// First class of the rerouting (the base's class count when dynamic, else 0).
  class_t class_offset() const noexcept { return t_->offset; }
  /// Failed undirected links (pairs u < v, or arcs u -> v of a directed base) and failed nodes.
  const std::vector<std::pair<node_t, node_t>>& failed_links() const noexcept { return t_->failed_links; }
  const std::vector<node_t>& failed_nodes() const noexcept { return t_->failed_nodes; }

  static constexpr std::uint16_t no_entry = 0xffff;
  static constexpr std::uint16_t up_bit = 0x8000;
  static constexpr std::uint16_t port_mask = 0x7fff;

  struct Tables {
    node_t nodes = 0, pes = 0;
    port_t ports = 0;
    class_t offset = 0, classes = 1;
    std::uint64_t at = 0;
    std::vector<Link> links;              // [v * ports + p], failed ones absent when static
    std::vector<std::uint8_t> dead;       // [v]
    std::vector<std::uint8_t> dead_arc;   // [v * ports + p]
    std::vector<std::uint16_t> next;      // [(v * pes + d) * 2 + went_down]
    std::vector<std::pair<node_t, node_t>> failed_links;
    std::vector<node_t> failed_nodes;
    std::string text;
  };

 private:
  std::shared_ptr<const Topology> base_;
  std::shared_ptr<const Tables> t_;
};

}  // namespace rica
