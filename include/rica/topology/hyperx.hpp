#pragma once
// HyperX (Ahn et al., SC 2009) and the flattened butterfly (Kim, Dally and Abts, ISCA 2007, a
// HyperX with T = S in every dimension): S1 x ... x SL routers, the routers that differ in one
// coordinate fully connected by K parallel links per pair (K = 1 by default), T terminals per
// router. Terminals are PEs, routers router-only nodes after them, as for the indirect networks.

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// Node ids: terminal k of router r = r*T + k; router r = pes + r, r = c0 + S0*(c1 + S1*(...)).
/// Ports: a terminal's out- and in-port 0 is its router's link. A router's port k < T leads to
/// terminal k; in dimension i, port base_i + (o - 1)·K + j (o in 1..S_i - 1, link j in 0..K-1,
/// base_0 = T, base_{i+1} = base_i + (S_i - 1)·K) leads over parallel link j to the router whose
/// coordinate i is (c_i + o) mod S_i, arriving on the peer's port base_i + (S_i - o - 1)·K + j
/// (the one that leads back). Relative port numbers make every translation of the coordinates an
/// automorphism that keeps ports. K = 1 is the network, ports and routes of before K existed.
/// Routing: dimension order (lowest dimension first), one hop per differing coordinate: minimal.
/// Of the K parallel links the hop in dimension i takes link_choice(): a pure function of where
/// the destination lies relative to the router (its terminal index and its offsets in the
/// dimensions after i), so it is the same under every translation (the symmetry keeps routes,
/// hence `rica topo` and `rica bound` by orbits) and spreads uniform traffic evenly: over the
/// packets crossing one router pair in dimension i, that index takes every value of
/// 0..T·S_{i+1}·...·S_L - 1 equally often. One class: a route's router-to-router channels go up
/// in dimension, whichever parallel link they use, so the channel dependency graph is acyclic.
class HyperXTopology {
 public:
  static constexpr unsigned max_dims = 8;
  /// Parallel links per router pair at most: the adaptive routing names all K as candidates
  /// (CandidateSet::capacity).
  static constexpr unsigned max_links = 32;
  HyperXTopology(const Shape& dims, unsigned terminals, unsigned links = 1);

  node_t nodes() const noexcept { return pes_ + routers_; }
  node_t pes() const noexcept { return pes_; }
  port_t ports() const noexcept { return ports_; }
  Link out_link(node_t v, port_t q) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  class_t buffer_classes() const noexcept { return 1; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {pes_}; }

  /// Translations of the router coordinates: T PE orbits (the terminal index), one router orbit.
  std::uint32_t orbit_count() const noexcept { return t_ + 1; }
  std::uint32_t orbit(node_t v) const noexcept { return v < pes_ ? v % t_ : t_; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k < t_ ? k : pes_; }
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }

  unsigned dims() const noexcept { return ndims_; }
  unsigned terminals() const noexcept { return t_; }
  /// K: parallel links between two routers that differ in one coordinate.
  unsigned links_per_pair() const noexcept { return k_; }
  node_t size(unsigned i) const noexcept { return s_[i]; }
  /// The first port of dimension i's router links (ports base(i) .. base(i) + (S_i - 1)·K - 1).
  port_t base(unsigned i) const noexcept { return base_[i]; }
  /// The dimension-order hop's dimension and offset at router index r for the router dr != r:
  /// the lowest dimension i whose coordinates differ, o = (d_i - c_i) mod S_i in 1..S_i - 1.
  std::pair<unsigned, node_t> next_offset(node_t r, node_t dr) const noexcept {
    for (unsigned i = 0;; ++i) {
      const node_t c = coord(r, i), d = coord(dr, i);
      if (c != d) return {i, d > c ? d - c : d + s_[i] - c};
    }
  }
  /// The parallel link (0..K-1) the deterministic route takes from router index r towards PE dst
  /// in dimension i (the class comment). Precondition: K > 1 or the result is 0.
  unsigned link_choice(node_t r, node_t dst, unsigned i) const noexcept {
    const node_t dr = div_t_(dst);
    node_t h = 0;  // < T·S_{i+1}·...·S_L <= pes < 2^26: FastDiv is exact
    for (unsigned j = ndims_; j-- > i + 1;) {
      const node_t c = coord(r, j), d = coord(dr, j);
      h = h * s_[j] + (d >= c ? d - c : d + s_[j] - c);
    }
    h = h * t_ + (dst - dr * t_);
    return h - div_k_(h) * k_;
  }
  node_t routers() const noexcept { return routers_; }
  /// Coordinate i of router r (0-based router index).
  node_t coord(node_t r, unsigned i) const noexcept {
    const node_t x = div_stride_[i](r);
    return x - div_s_[i](x) * s_[i];
  }

 private:
  std::array<node_t, max_dims> s_{}, stride_{};
  std::array<port_t, max_dims> base_{};
  std::array<detail::FastDiv, max_dims> div_s_{}, div_stride_{};  ///< no div instruction per hop
  detail::FastDiv div_t_{}, div_k_{};
  unsigned ndims_ = 0, t_ = 1, k_ = 1;
  node_t routers_ = 1, pes_ = 1;
  port_t ports_ = 1;
};

// ---- inline hot paths ------------------------------------------------------------------------

inline Link HyperXTopology::out_link(node_t v, port_t q) const noexcept {
  if (v < pes_) {
    const node_t r = div_t_(v);
    return q == 0 ? Link{pes_ + r, static_cast<port_t>(v - r * t_)} : Link{};
  }
  if (v >= nodes() || q >= ports_) return {};
  const node_t r = v - pes_;
  if (q < t_) return {r * t_ + q, 0};
  unsigned i = 0;
  while (i + 1 < ndims_ && q >= base_[i + 1]) ++i;
  if (k_ == 1) {
    const node_t o = q - base_[i] + 1, c = coord(r, i), c2 = c + o >= s_[i] ? c + o - s_[i] : c + o;
    return {pes_ + r + (c2 - c) * stride_[i], static_cast<port_t>(base_[i] + (s_[i] - o) - 1)};
  }
  const node_t x = q - base_[i], o1 = div_k_(x), j = x - o1 * k_, o = o1 + 1;  // offset o, parallel link j
  const node_t c = coord(r, i), c2 = c + o >= s_[i] ? c + o - s_[i] : c + o;
  return {pes_ + r + (c2 - c) * stride_[i], static_cast<port_t>(base_[i] + (s_[i] - o - 1) * k_ + j)};
}

inline Hop HyperXTopology::route(node_t cur, node_t dst, class_t /*cls*/) const noexcept {
  if (cur < pes_) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  const node_t r = cur - pes_, dr = div_t_(dst);
  if (r == dr) return Hop::forward(static_cast<port_t>(dst - dr * t_), 0);
  if (k_ == 1) {
    for (unsigned i = 0;; ++i) {
      const node_t c = coord(r, i), d = coord(dr, i);
      if (c != d) return Hop::forward(static_cast<port_t>(base_[i] + (d > c ? d - c : d + s_[i] - c) - 1), 0);
    }
  }
  const auto [i, o] = next_offset(r, dr);
  return Hop::forward(static_cast<port_t>(base_[i] + (o - 1) * k_ + link_choice(r, dst, i)), 0);
}

}  // namespace rica
