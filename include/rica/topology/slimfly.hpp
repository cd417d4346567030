#pragma once
// Slim Fly (Besta and Hoefler, SC 2014): the McKay-Miller-Siran (MMS) graphs of diameter 2 as
// the router network, p terminals per router. Terminals are PEs, routers router-only nodes after
// them, as for the indirect networks.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// MMS graph for a prime power q = 4w + d, d in {1, 0, -1}, 3 <= q <= 31: xi a primitive element
/// of F_q (the least primitive root for a prime; the class of x modulo the first primitive
/// polynomial for q = 4, 8, 9, 16, 25, 27); X the even powers of xi and X' the odd ones (d = 1);
/// X = {xi^0, xi^2, ..., xi^(q-2)}, X' = {xi^1, xi^3, ..., xi^(q-1)} (d = 0); or
/// X = {xi^0, xi^2, ..., xi^(2w-2)} u {xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)} and
/// X' = {xi^1, xi^3, ..., xi^(2w-1)} u {xi^(2w), ..., xi^(4w-2)} (d = -1). Routers (0, x, y) and
/// (1, m, c), x, y, m, c in F_q: (0,x,y) ~ (0,x,y') iff y - y' in X; (1,m,c) ~ (1,m,c') iff
/// c - c' in X'; (0,x,y) ~ (1,m,c) iff y = m*x + c. 2q^2 routers of degree k' = (3q - d)/2,
/// diameter 2.
/// Node ids: terminal k of router r = r*p + k; router r = pes + r, r = s*q^2 + x*q + y (s = 0)
/// or s*q^2 + m*q + c (s = 1).
/// Ports: a terminal's port 0 is its router's link. A router's port k < p leads to terminal k;
/// then (0,x,y): one port per d in X (ascending) to (0,x,y+d), then one per m in F_q to
/// (1,m,y-m*x); (1,m,c): one per d in X' to (1,m,c+d), then one per x to (0,x,m*x+c). Each link
/// arrives on the port that leads back. Translating the last coordinate (y -> y+t, c -> c+t) is
/// an automorphism that keeps these ports.
/// Minimal routing: directly to an adjacent router, else through the common neighbour reached by
/// the lowest port (a table of routers^2 entries): at most 2 router-to-router hops, and the
/// choice commutes with the translations (rica topo uses them: 2q router orbits).
/// Classes: distance to go, class = 1 - (router hops still to go after this hop), i.e. the hop
/// index of a 2-hop route: the first of two hops in class 0, the last router hop in class 1, so
/// dependencies run class 0 -> class 1 -> terminal: 2 classes. `classes` = 1 collapses them (to
/// show that the channel dependency check refuses it).
class SlimFlyTopology {
 public:
  /// q a prime power, 3 <= q <= 31; p >= 1; classes 0 = derived (2), else 1..2.
  SlimFlyTopology(unsigned q, unsigned p, unsigned classes = 0);

  node_t nodes() const noexcept { return pes_ + routers_; }
  node_t pes() const noexcept { return pes_; }
  port_t ports() const noexcept { return static_cast<port_t>(p_ + k_); }
  Link out_link(node_t v, port_t port) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  class_t buffer_classes() const noexcept { return classes_; }
  static constexpr class_t derived_classes() noexcept { return 2; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {pes_}; }

  /// Translations of the last coordinate: 2q router orbits (s, x or m), 2q*p PE orbits.
  std::uint32_t orbit_count() const noexcept { return 2 * q_ * p_ + 2 * q_; }
  std::uint32_t orbit(node_t v) const noexcept {
    return v < pes_ ? (v / p_ / q_) * p_ + v % p_ : 2 * q_ * p_ + (v - pes_) / q_;
  }
  node_t orbit_rep(std::uint32_t k) const noexcept {
    return k < 2 * q_ * p_ ? (k / p_) * q_ * p_ + k % p_ : pes_ + (k - 2 * q_ * p_) * q_;
  }
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }

  unsigned q() const noexcept { return q_; }
  unsigned p() const noexcept { return p_; }
  /// Router degree k' = (3q - d)/2.
  unsigned router_degree() const noexcept { return k_; }
  node_t routers() const noexcept { return routers_; }

 private:
  struct Tables {
    std::vector<node_t> peer;       ///< [r * k + j]: router index of the neighbour on port p + j
    std::vector<port_t> in_port;    ///< [r * k + j]: the neighbour's in-port
    std::vector<std::uint16_t> next;  ///< [r * R + dr]: neighbour index j of the next hop (r != dr)
  };
  unsigned q_, p_, k_ = 0;
  node_t routers_ = 0, pes_ = 0;
  class_t classes_ = 2;
  std::shared_ptr<const Tables> t_;
};

// ---- inline hot paths ------------------------------------------------------------------------

inline Link SlimFlyTopology::out_link(node_t v, port_t port) const noexcept {
  if (v < pes_) return port == 0 ? Link{pes_ + v / p_, static_cast<port_t>(v % p_)} : Link{};
  if (v >= nodes() || port >= ports()) return {};
  const node_t r = v - pes_;
  if (port < p_) return {r * p_ + port, 0};
  const std::size_t i = std::size_t{r} * k_ + (port - p_);
  return {pes_ + t_->peer[i], t_->in_port[i]};
}

inline Hop SlimFlyTopology::route(node_t cur, node_t dst, class_t cls) const noexcept {
  if (cur < pes_) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  const node_t r = cur - pes_, dr = dst / p_;
  if (r == dr) return Hop::forward(static_cast<port_t>(dst % p_), cls);
  const unsigned j = t_->next[std::size_t{r} * routers_ + dr];
  const bool last = t_->peer[std::size_t{r} * k_ + j] == dr;
  return Hop::forward(static_cast<port_t>(p_ + j), last && classes_ > 1 ? 1 : 0);
}

}  // namespace rica
