#pragma once
// Orthogonal baselines: 2D mesh and torus, k-ary n-cube of any shape, binary hypercube
// (docs/topologies.md). Dimension-order routing.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// Mesh (wrap = false) or torus / k-ary n-cube (wrap = true) of shape k0 x k1 x ... (first
/// coordinate fastest in the node id). A torus dimension of size 2 has a single link pair (no
/// duplicate wraparound) and routes like a mesh dimension.
/// Ports: out-port 2i moves +1 in dimension i, 2i+1 moves -1; a packet moving +1 (-1) arrives on
/// in-port 2i (2i+1). Mesh borders lack ports (absent links).
/// Routing: dimension order (lowest first); on a ring the shorter way, + on a tie.
/// Classes (rings of size >= 3): a hop is in class 0 while the rest of the ring path (this hop
/// included) still crosses the dateline between k-1 and 0, else in class 1 — a pure function of
/// (cur, dst), so no class is ever carried from one dimension into the next.
class CubeTopology {
 public:
  static constexpr unsigned max_dims = 8;
  CubeTopology(const Shape& dims, bool wrap);

  node_t nodes() const noexcept { return nodes_; }
  node_t pes() const noexcept { return nodes_; }
  port_t ports() const noexcept { return static_cast<port_t>(2 * ndims_); }
  // Forced inline: every hop calls it, inside a hop kernel GCC judges too large to inline it
  // into (3% of the instructions per hop went to the call).
  [[gnu::always_inline]] Link out_link(node_t v, port_t p) const noexcept {
    const unsigned i = p / 2u;
    if (i >= ndims_) return {};
    const node_t c = coord(v, i);
    if (p % 2u == 0) {
      if (c + 1 < k_[i]) return {v + stride_[i], p};
      return ring(i) ? Link{v - c * stride_[i], p} : Link{};
    }
    if (c > 0) return {v - stride_[i], p};
    return ring(i) ? Link{v + (k_[i] - 1) * stride_[i], p} : Link{};
  }
  Hop route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
    for (unsigned i = 0; i < ndims_; ++i) {
      const node_t c = coord(cur, i), d = coord(dst, i);
      if (c == d) continue;
      if (!ring(i)) return Hop::forward(static_cast<port_t>(2 * i + (d > c ? 0 : 1)), 0);
      const node_t fwd = d >= c ? d - c : d + k_[i] - c;
      const bool plus = fwd <= k_[i] - fwd;
      const bool crosses = plus ? d < c : d > c;
      return Hop::forward(static_cast<port_t>(2 * i + (plus ? 0 : 1)), crosses ? 0 : 1);
    }
    return Hop::deliver();
  }
  class_t buffer_classes() const noexcept { return any_ring_ ? 2 : 1; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return Shape(k_.begin(), k_.begin() + ndims_); }

  /// A torus (every dimension a ring or of size 2) is translation-invariant: one orbit.
  std::uint32_t orbit_count() const noexcept { return symmetric_ ? 1 : 0; }
  std::uint32_t orbit(node_t v) const noexcept { return symmetric_ ? 0 : v; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return symmetric_ ? 0 : k; }
  bool vertex_transitive() const noexcept { return symmetric_; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  /// Distances add over the dimensions; a torus is traced by its orbit while they fit the budget.
  std::optional<GridForm> grid_form() const {
    return GridForm{shape(), wrap_, wrap_ ? GridForm::Decompose::without_symmetry : GridForm::Decompose::always};
  }

  bool wraps() const noexcept { return wrap_; }

 private:
  friend class CubeAdaptive;  // rica/routing/cube.hpp: reads the coordinates
  bool ring(unsigned i) const noexcept { return wrap_ && k_[i] >= 3; }
  node_t coord(node_t v, unsigned i) const noexcept {
    if (pow2_) return (v >> shift_[i]) & (k_[i] - 1);  // every size a power of two: shifts and masks
    const node_t q = div_stride_[i](v);
    return q - div_k_[i](q) * k_[i];
  }

  std::array<node_t, max_dims> k_{}, stride_{};
  std::array<detail::FastDiv, max_dims> div_k_{}, div_stride_{};
  std::array<std::uint8_t, max_dims> shift_{};  ///< log2 stride_[i], when pow2_
  unsigned ndims_ = 0;
  node_t nodes_ = 1;
  bool wrap_, any_ring_ = false, symmetric_ = false;
  bool pow2_ = true;  ///< every k_[i] a power of two
};

/// Binary hypercube of dimension n: port i flips bit i (arriving on in-port i); routing fixes the
/// lowest differing bit first; one class.
class HypercubeTopology {
 public:
  explicit HypercubeTopology(unsigned n);

  node_t nodes() const noexcept { return node_t{1} << n_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return static_cast<port_t>(n_); }
  Link out_link(node_t v, port_t p) const noexcept {
    return p < n_ ? Link{detail::flip(v, p), p} : Link{};
  }
  Hop route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
    const node_t diff = cur ^ dst;
    if (diff == 0) return Hop::deliver();
    return Hop::forward(static_cast<port_t>(__builtin_ctz(diff)), 0);
  }
  class_t buffer_classes() const noexcept { return 1; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return Shape(n_, 2); }
  /// XOR with a constant: one orbit.
  std::uint32_t orbit_count() const noexcept { return 1; }
  std::uint32_t orbit(node_t) const noexcept { return 0; }
  node_t orbit_rep(std::uint32_t) const noexcept { return 0; }
  bool vertex_transitive() const noexcept { return true; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  /// n sides of 2 (bisection N/2); the metrics use the XOR orbit, exact already.
  std::optional<GridForm> grid_form() const { return GridForm{Shape(n_, 2), false, GridForm::Decompose::never}; }
  std::optional<BitAddressing> bit_addressing() const noexcept { return BitAddressing{1, "gray"}; }
  /// Rings and arrays embed by the Gray code.
  std::string_view auto_embedding(bool linear_guest) const noexcept { return linear_guest ? "gray" : ""; }

 private:
  unsigned n_;
};

}  // namespace rica
