#pragma once
// Eight-neighbour mesh and torus (docs/topologies.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {


/// n x n PEs, node id = x + n*y; PE (x, y) linked both ways to (x+-1, y), (x, y+-1),
/// (x+-1, y+-1); the torus wraps all four directions.
/// Ports (out and in use the same numbering; a packet moving in direction k arrives on in-port k):
///   0 E(+x)  1 W(-x)  2 N(+y)  3 S(-y)  4 NE(+x+y)  5 NW(-x+y)  6 SE(+x-y)  7 SW(-x-y).
/// Routing: diagonally toward the destination for min(|dx|,|dy|) hops, then straight; on the torus
/// each axis takes its shorter wrap direction (+ on a tie at n/2).
/// Classes: mesh 1 (diagonal-then-straight is acyclic). Torus, two schemes:
///  - wrap (default): class = wrap-arounds crossed so far, counted per axis (0, 1 or 2; a corner
///    hop crossing both adds 2). Within a class a packet crosses no wrap link and moves
///    diagonally in one fixed direction, then straight in one fixed direction: its channels
///    advance monotonically in the unwrapped plane, so no cycle closes inside a class, and
///    classes only rise: acyclic with 3 classes at every size.
///  - distance: class of a hop = D - (remaining distance before the hop), D = floor(n/2): n/2
///    classes (the first scheme; more buffers per port, growing with n).
enum class Neighbor8Classes : std::uint8_t { wrap, distance };

class Neighbor8Topology {
 public:
  /// n in [2, 8192] for the mesh, [3, 8192] for the torus; throws usage_error otherwise.
  Neighbor8Topology(unsigned n, bool wrap, Neighbor8Classes classes = Neighbor8Classes::wrap);

  node_t nodes() const noexcept { return n_ * n_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return 8; }
  Link out_link(node_t v, port_t p) const noexcept {
    if (p >= 8) return {};
    const auto y = static_cast<std::int32_t>(div_(v));
    const auto x = static_cast<std::int32_t>(v) - y * sn_;
    std::int32_t px = x + kDx[p], py = y + kDy[p];
    if (wrap_) {
      px += (px < 0) ? sn_ : 0;
      px -= (px >= sn_) ? sn_ : 0;
      py += (py < 0) ? sn_ : 0;
      py -= (py >= sn_) ? sn_ : 0;
    } else if (px < 0 || px >= sn_ || py < 0 || py >= sn_) {
      return {};
    }
    return Link{static_cast<node_t>(px + py * sn_), p};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    const auto cy = static_cast<std::int32_t>(div_(cur));
    const auto ty = static_cast<std::int32_t>(div_(dst));
    const std::int32_t cx = static_cast<std::int32_t>(cur) - cy * sn_;
    std::int32_t dx = static_cast<std::int32_t>(dst) - ty * sn_ - cx;
    std::int32_t dy = ty - cy;
    if (wrap_) {
      dx += (dx < 0) ? sn_ : 0;
      dx -= (2 * dx > sn_) ? sn_ : 0;  // shorter way round; + on a tie at n/2
      dy += (dy < 0) ? sn_ : 0;
      dy -= (2 * dy > sn_) ? sn_ : 0;
    }
    const int sx = (dx > 0) - (dx < 0), sy = (dy > 0) - (dy < 0);
    const auto port = static_cast<port_t>(kPortBySign[(sx + 1) * 3 + (sy + 1)]);
    if (!wrap_) return Hop::forward(port, 0);
    if (classes_ == Neighbor8Classes::wrap) {
      const int wraps = ((sx > 0 && cx == sn_ - 1) || (sx < 0 && cx == 0)) + ((sy > 0 && cy == sn_ - 1) || (sy < 0 && cy == 0));
      return Hop::forward(port, static_cast<class_t>(cls + wraps));
    }
    const std::int32_t ax = dx < 0 ? -dx : dx, ay = dy < 0 ? -dy : dy;
    return Hop::forward(port, static_cast<class_t>(sn_ / 2 - (ax > ay ? ax : ay)));
  }
  class_t buffer_classes() const noexcept {
    if (!wrap_) return 1;
    return classes_ == Neighbor8Classes::wrap ? class_t{3} : static_cast<class_t>(n_ / 2);
  }
  Neighbor8Classes class_scheme() const noexcept { return classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {n_, n_}; }
  std::uint32_t orbit_count() const noexcept { return wrap_ ? 1 : 0; }
  std::uint32_t orbit(node_t v) const noexcept { return wrap_ ? 0 : v; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return wrap_ ? 0 : k; }
  bool vertex_transitive() const noexcept { return wrap_; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }

  /// Direction of port k: (kDx[k], kDy[k]).
  static constexpr std::int8_t kDx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
  static constexpr std::int8_t kDy[8] = {0, 0, 1, -1, 1, 1, -1, -1};

 private:
  // Port by (sign dx + 1) * 3 + (sign dy + 1); the (0, 0) entry is never used.
  static constexpr std::uint8_t kPortBySign[9] = {7, 1, 5, 3, 0, 2, 6, 0, 4};
  unsigned n_;
  std::int32_t sn_;  // n_ as a signed value for coordinate arithmetic
  bool wrap_;
  Neighbor8Classes classes_;
  detail::FastDiv div_;
};

}  // namespace rica
