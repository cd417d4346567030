#pragma once
// Indirect networks with router-only switch nodes (docs/topologies.md): the Omega multistage
// network and the binary fat tree. PEs are nodes [0, N); switches follow.
//
// out_link() and route() are inline: they run once per packet hop (no allocation, no virtual
// call, a few shifts and masks).

#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// Omega network: N = 2^n PEs, n stages of N/2 2x2 switches, a perfect shuffle before every
/// stage. Switch (s, j) = node N + s*N/2 + j. PE p: out-port 0 into stage 0, in-port 0 from stage
/// n-1. Line l entering a stage goes to switch rotl(l)>>1, in-port rotl(l)&1; switch out-port b
/// drives line 2j+b (at the last stage: PE 2j+b, in-port 0). Destination-tag routing: at stage s
/// take out-port bit (n-1-s) of dst, so every route crosses exactly n switches and the path from
/// any PE to any PE is unique. Unidirectional, acyclic: one class. n in [1, 22].
class OmegaTopology : public FamilyBase<OmegaTopology> {  // counts, shape {pes}, not vertex-transitive
 public:
  explicit OmegaTopology(unsigned n);
  Link out_link(node_t v, port_t p) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  std::string label(node_t v) const;
  std::string spec() const;
  /// PE address XOR c (with the matching XOR of each stage's switch indices) is an
  /// automorphism that maps routes onto routes: one PE orbit, one orbit per stage.
  std::uint32_t orbit_count() const noexcept { return 1 + n_; }
  std::uint32_t orbit(node_t v) const noexcept { return v < pes() ? 0 : 1 + (v - pes()) / (pes() / 2); }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k == 0 ? 0 : pes() + (k - 1) * (pes() / 2); }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  // No symmetry_keeps_ports(): the XOR symmetry exchanges switch ports (channel load sums every source).

  unsigned n() const noexcept { return n_; }
  /// Stage of switch node v (precondition: v >= pes()).
  unsigned stage(node_t v) const noexcept { return (v - pes()) >> (n_ - 1); }
  /// Index j of switch node v within its stage (precondition: v >= pes()).
  node_t index(node_t v) const noexcept { return (v - pes()) & ((pes() >> 1) - 1); }

 private:
  unsigned n_;
};

/// Binary fat tree as a 2-ary n-tree: N = 2^n PEs, n levels of N/2 switches, each with 2 down
/// and 2 up links (none up at the top). Switch <w, l> = node N + l*N/2 + w; <w', l-1> and <w, l>
/// are linked iff w and w' differ at most in bit l-1. PE p hangs on <p>>1, 0> at down-port p&1.
/// Ports: 0, 1 down; 2, 3 up (same numbers for in-ports). Wiring: down-port b of <w, l> (l >= 1)
/// goes to <w with bit l-1 := b, l-1>, in-port 2 + bit(w, l-1); up-port 2+u of <w', l-1> goes to
/// <w' with bit l-1 := u, l>, in-port bit(w', l-1); level-0 down-port b goes to PE 2w+b, in-port 0;
/// PE p out-port 0 goes to <p>>1, 0>, in-port p&1. The subtree of <w, l> is the PEs p with
/// p>>(l+1) == w>>l.
/// Routing: up to the nearest common ancestor level (at level l up-port 2 + bit(dst, l): the
/// destination-mod-k rule, so all routes to one PE descend through one switch per level), then
/// down by the bits of dst (at level l down-port bit(dst, l)). A route between PEs whose highest
/// differing address bit is h-1 crosses 2h-1 switches, the shortest possible.
/// Up*/down* routing is deadlock-free: one class. n in [1, 22].
class FatTreeTopology : public FamilyBase<FatTreeTopology> {  // counts, shape {pes}, not vertex-transitive
 public:
  explicit FatTreeTopology(unsigned n);
  Link out_link(node_t v, port_t p) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  std::string label(node_t v) const;
  std::string spec() const;
  /// PE address XOR c, with <w, l> -> <w ^ m_l(c), l> (m_l takes c's bits below l and c>>1's
  /// bits from l up), is an automorphism that maps routes onto routes: one PE orbit, one orbit
  /// per switch level.
  std::uint32_t orbit_count() const noexcept { return 1 + n_; }
  std::uint32_t orbit(node_t v) const noexcept { return v < pes() ? 0 : 1 + (v - pes()) / (pes() / 2); }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k == 0 ? 0 : pes() + (k - 1) * (pes() / 2); }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  // No symmetry_keeps_ports(): the XOR symmetry exchanges switch ports.

  unsigned n() const noexcept { return n_; }
  /// Level of switch node v (precondition: v >= pes()).
  unsigned level(node_t v) const noexcept { return (v - pes()) >> (n_ - 1); }
  /// Address w of switch node v within its level (precondition: v >= pes()).
  node_t index(node_t v) const noexcept { return (v - pes()) & ((pes() >> 1) - 1); }

 private:
  node_t switch_node(node_t w, unsigned l) const noexcept { return pes() + (node_t{l} << (n_ - 1)) + w; }
  unsigned n_;
};

// ---- inline hot paths ------------------------------------------------------------------------

inline Link OmegaTopology::out_link(node_t v, port_t p) const noexcept {
  const node_t N = pes();
  if (p >= 2 || v >= nodes()) return {};
  if (v < N) {
    if (p != 0) return {};
    const node_t r = detail::rotl(v, n_);
    return {N + (r >> 1), static_cast<port_t>(r & 1u)};
  }
  const unsigned s = stage(v);
  const node_t line = (index(v) << 1) | p;
  if (s + 1 == n_) return {line, 0};
  const node_t r = detail::rotl(line, n_);
  return {N + (node_t{s + 1} << (n_ - 1)) + (r >> 1), static_cast<port_t>(r & 1u)};
}

inline Hop OmegaTopology::route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
  if (cur < pes()) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  return Hop::forward(static_cast<port_t>(detail::bit(dst, n_ - 1 - stage(cur))), 0);
}

inline Link FatTreeTopology::out_link(node_t v, port_t p) const noexcept {
  if (p >= 4 || v >= nodes()) return {};
  if (v < pes()) {
    if (p != 0) return {};
    return {switch_node(v >> 1, 0), static_cast<port_t>(v & 1u)};
  }
  const unsigned l = level(v);
  const node_t w = index(v);
  if (p < 2) {  // down
    if (l == 0) return {(w << 1) | p, 0};
    const node_t child = (w & ~(node_t{1} << (l - 1))) | (node_t{p} << (l - 1));
    return {switch_node(child, l - 1), static_cast<port_t>(2u + detail::bit(w, l - 1))};
  }
  if (l + 1 >= n_) return {};  // top level: no up links
  const node_t u = p - 2u;
  const node_t parent = (w & ~(node_t{1} << l)) | (u << l);
  return {switch_node(parent, l + 1), static_cast<port_t>(detail::bit(w, l))};
}

inline Hop FatTreeTopology::route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
  if (cur < pes()) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  const unsigned l = level(cur);
  const node_t w = index(cur);
  const auto b = static_cast<port_t>(detail::bit(dst, l));
  if ((dst >> (l + 1)) == (w >> l)) return Hop::forward(b, 0);  // dst below: go down
  return Hop::forward(static_cast<port_t>(2u + b), 0);          // go up
}

}  // namespace rica
