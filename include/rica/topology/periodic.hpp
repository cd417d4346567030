#pragma once
// Tori whose link pattern repeats with a period (px, py): M_{x+x} (torus with recursive bypass
// tori, docs/topologies.md) and the Manhattan street network. Table-driven minimal
// routing that uses the translation symmetry: the table has one row per residue class.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// M_{x+x} routing: `minimal` = shortest paths from the table (default); `paper` = the paper's
/// own per-node rule (§2.2), generalised to every node class (runtime/topology/mxx_paper.cpp).
enum class MxxRoute { minimal, paper };

/// nx x ny nodes, node id = x + nx*y. A node's out-links are given by its residue class
/// (x mod px, y mod py) as a list of offsets (dx, dy) (mod nx, ny); self-loops dropped, duplicates
/// merged. Routing: minimal, from a table indexed by (residue of cur, offset dst - cur) built by
/// BFS from one node per residue; ties go to the lowest port. Classes: distance-to-go (the class
/// of a hop = D - remaining distance before the hop; D = diameter), so they rise along any route.
/// The periods are powers of two (4 for M_{x+x}, 2 for the Manhattan street network).
class PeriodicTopology {
 public:
  /// M_{x+x} on an N x N torus (N a multiple of 4, 8 <= N <= 4096). `route`: the table is filled
  /// with shortest paths (minimal) or with the paper's routing rule (paper, N <= 1024; its
  /// classes are distance-to-go along the rule's own routes, which is sound because the rule is
  /// memoryless: the route from the next node is the rest of the route).
  static PeriodicTopology mxx(unsigned n, MxxRoute route = MxxRoute::minimal);
  /// Manhattan street network, rows x cols, both even and in [4, 4096]: row y runs +x if y is
  /// even, column x runs +y if x is even. Out-port 0 / in-port 0 = row link, 1 = column link.
  static PeriodicTopology msn(unsigned rows, unsigned cols);

  node_t nodes() const noexcept { return nx_ * ny_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return max_ports_; }
  Link out_link(node_t v, port_t p) const noexcept {
    if (p >= max_ports_) return {};
    const node_t y = div_(v), x = v - y * nx_;
    const PortLink& e = links_[residue(x, y) * max_ports_ + p];
    if (!e.present) return {};
    node_t qx = x + e.ox, qy = y + e.oy;
    qx -= (qx >= nx_) ? nx_ : 0;
    qy -= (qy >= ny_) ? ny_ : 0;
    return Link{qx + nx_ * qy, e.in_port};
  }
  Hop route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
    if (cur == dst) return Hop::deliver();
    const node_t cy = div_(cur), cx = cur - cy * nx_;
    const node_t ty = div_(dst), tx = dst - ty * nx_;
    const node_t dx = (tx >= cx) ? tx - cx : tx + nx_ - cx;
    const node_t dy = (ty >= cy) ? ty - cy : ty + ny_ - cy;
    const std::uint16_t e = table_[std::size_t{residue(cx, cy)} * nodes() + dy * nx_ + dx];
    return Hop::forward(static_cast<port_t>(e & port_mask), static_cast<class_t>(diameter_ - (e >> port_bits)));
  }
  class_t buffer_classes() const noexcept { return diameter_; }
  std::string label(node_t v) const;
  std::string spec() const { return t_->spec; }
  Shape shape() const { return {nx_, ny_}; }
  /// Translations by multiples of the period: one orbit per residue class.
  std::uint32_t orbit_count() const noexcept { return px_ * py_; }
  std::uint32_t orbit(node_t v) const noexcept { return (v % nx_) % px_ + px_ * ((v / nx_) % py_); }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k % px_ + nx_ * (k / px_); }
  bool vertex_transitive() const noexcept { return t_->vertex_transitive; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }

  /// Distance from cur to dst along route() (a table lookup): the shortest distance for the
  /// minimal routings, the rule's route length for mxx route=paper.
  unsigned distance(node_t cur, node_t dst) const noexcept {
    const node_t cy = div_(cur), cx = cur - cy * nx_;
    const node_t ty = div_(dst), tx = dst - ty * nx_;
    const node_t dx = (tx >= cx) ? tx - cx : tx + nx_ - cx;
    const node_t dy = (ty >= cy) ? ty - cy : ty + ny_ - cy;
    return table_[std::size_t{residue(cx, cy)} * nodes() + dy * nx_ + dx] >> port_bits;
  }

  /// One out-port of a residue class: the offset (normalised to [0, nx) x [0, ny)) and the
  /// peer's in-port.
  struct PortLink {
    std::uint16_t ox = 0, oy = 0;
    port_t in_port = 0;
    bool present = false;
  };
  static constexpr unsigned port_bits = 3;  // at most 8 out-ports per node
  static constexpr std::uint16_t port_mask = (1u << port_bits) - 1;
  static constexpr unsigned max_distance = (1u << (16 - port_bits)) - 1;

  /// Immutable tables shared by copies (built once in runtime/topology/periodic.cpp).
  struct Tables {
    std::vector<std::vector<std::pair<int, int>>> offsets;  // per residue: out-link offsets
    std::vector<std::vector<port_t>> in_port;                // per residue, per out-port
    std::vector<PortLink> links;                             // [residue * max_ports + port]
    /// [residue * nodes + dy*nx + dx] = dist << port_bits | next port (dist 0 at offset 0).
    std::vector<std::uint16_t> route;
    unsigned max_ports = 0, diameter = 0;
    bool vertex_transitive = false;
    std::string spec;
  };

  /// Overwrites t.route and t.diameter with the M_{x+x} paper routing on an n x n torus (t built
  /// by mxx(n) with the minimal routing). Throws std::logic_error if a route loops (never, for
  /// every n tested: tests/test_periodic.cpp).
  static void fill_mxx_paper_routes(unsigned n, Tables& t);

 private:
  PeriodicTopology(unsigned nx, unsigned ny, unsigned px, unsigned py, std::shared_ptr<const Tables> t);
  std::uint32_t residue(node_t x, node_t y) const noexcept { return (x & (px_ - 1)) + px_ * (y & (py_ - 1)); }
  unsigned nx_, ny_, px_, py_;
  detail::FastDiv div_;
  port_t max_ports_;   // copies of t_->max_ports and t_->diameter (one load less per call)
  class_t diameter_;
  const PortLink* links_ = nullptr;
  const std::uint16_t* table_ = nullptr;
  std::shared_ptr<const Tables> t_;
};

}  // namespace rica
