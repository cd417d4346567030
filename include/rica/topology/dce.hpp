#pragma once
// DCE(n, delta, flip) — Directed Cycles Ensemble (docs/topologies.md), with c-Banyan
// (delta = 1) and CCC (delta = 0) as special cases and ring length S >= n.

#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// How the columns x >= n of a ring longer than the address (S > n) are wired
/// (docs/topologies.md, the DCE row).
enum class DceWiring : std::uint8_t {
  flip_mod,  ///< column x's cross link flips bit x mod n (default; RWC-1's "two c-Banyans end to end")
  parallel,  ///< columns x >= n carry a second parallel link instead (only for delta = 1)
};

/// Nodes (x, y), 0 <= x < S (column), 0 <= y < 2^n (row); node id = y * S + x.
/// Out-port 0: parallel link (x+1, y), arriving on in-port 0. Out-port 1: cross link
/// (x+delta, flip(y, x mod n)), arriving on in-port 1. Buffer classes: the class rises by one on
/// every hop that wraps from column S-1 to column 0 (the dateline).
class DceTopology {
 public:
  /// Throws usage_error naming the parameter when out of range. `name` is the spec prefix
  /// ("dce", "cbanyan", "ccc") used by spec().
  DceTopology(unsigned n, unsigned delta, unsigned ring, DceWiring wiring = DceWiring::flip_mod,
              std::string name = "dce");

  node_t nodes() const noexcept { return ring_ << bits_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return 2; }
  Link out_link(node_t v, port_t p) const noexcept {
    const node_t y = div_(v), x = v - y * ring_;
    if (p == 0) return {y * ring_ + next_col(x, 1), 0};
    if (p == 1) {
      if (crosses_at(x)) return {detail::flip(y, x % bits_) * ring_ + next_col(x, delta_), 1};
      return {y * ring_ + next_col(x, delta_), 1};  // DceWiring::parallel, x >= n (delta == 1)
    }
    return {};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    const node_t y = div_(cur), x = cur - y * ring_, yd = div_(dst);
    if (crosses_at(x) && detail::bit(y ^ yd, x % bits_)) {
      return Hop::forward(1, static_cast<class_t>(cls + (x + delta_ >= ring_ ? 1 : 0)));
    }
    // Parallel link. With DceWiring::parallel the extra columns have two; spread by destination.
    const port_t port = (!crosses_at(x) && (dst & 1u)) ? 1 : 0;
    return Hop::forward(port, static_cast<class_t>(cls + (x + 1 == ring_ ? 1 : 0)));
  }
  class_t buffer_classes() const noexcept { return classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {ring_, node_t{1} << bits_}; }

  /// Rows XOR a constant commute with links and routing: the orbits are the S columns.
  std::uint32_t orbit_count() const noexcept { return ring_; }
  std::uint32_t orbit(node_t v) const noexcept { return v % ring_; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
  /// (x, y) -> (x+1, rotl(y)) is an automorphism when S == n.
  bool vertex_transitive() const noexcept { return ring_ == bits_; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  std::optional<BitAddressing> bit_addressing() const noexcept { return BitAddressing{ring_, "ring-gray"}; }

  unsigned bits() const noexcept { return bits_; }
  unsigned ring() const noexcept { return ring_; }
  unsigned delta() const noexcept { return delta_; }

  DceWiring wiring() const noexcept { return wiring_; }

 private:
  node_t next_col(node_t x, unsigned step) const noexcept {
    const node_t c = x + step;  // x < S and step < S
    return c >= ring_ ? c - ring_ : c;
  }
  bool crosses_at(node_t x) const noexcept { return wiring_ == DceWiring::flip_mod || x < bits_; }

  unsigned bits_, delta_, ring_;
  detail::FastDiv div_;  // division by ring_
  DceWiring wiring_;
  class_t classes_ = 1;
  std::string name_;
};

}  // namespace rica
