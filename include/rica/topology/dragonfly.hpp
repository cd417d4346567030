#pragma once
// Dragonfly (Kim, Dally, Scott and Abts, ISCA 2008): g = a*h + 1 groups of a routers, each
// router with p terminals (the PEs) and h global links, the routers of a group fully connected by
// local links, and exactly one global link between every two groups. Terminals are PEs, routers
// router-only nodes after them, as for the indirect networks (rica/topology/indirect.hpp).
//
// out_link() and route() are inline: a few divisions by construction-time constants per hop.

#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// How the a*h global links of a group are given out to the other g - 1 groups. Group G's global
/// link l (router l / h, global port l % h, l in [0, a*h)) goes to group
/// - absolute (consecutive, Kim et al.): l if l < G, else l + 1 (the other groups in increasing
///   order);
/// - relative (palmtree, Camarero et al.): (G + l + 1) mod g; rotating every group by one is
///   then an automorphism that maps routes onto routes (rica topo uses it).
enum class DragonflyArrangement : std::uint8_t { absolute, relative };

/// Node ids: terminal (G, i, k) = (G*a + i)*p + k, router (G, i) = pes + G*a + i.
/// Ports: a terminal's out- and in-port 0 is its router's link. A router's port k < p leads to
/// terminal k; port p + j (j < a - 1) is the local link to router (i + j + 1) mod a of the group;
/// port p + a - 1 + k (k < h) is global link l = i*h + k. In-ports are numbered the same way at
/// the receiving end, so every link arrives on the port that leads back.
/// Minimal routing (local, global, local): to the router of the destination's group that owns
/// the global link to it, over it, then to the destination's router. At most 3 router-to-router
/// hops. Classes: class = global hops taken (0 in the source group, 1 from the global hop on), so
/// the dependencies run local(0) -> global(1) -> local(1) -> terminal: 2 classes (1 when a = 1:
/// no local links). `classes` = K below that collapses the classes above K - 1 into K - 1 (to
/// show that the channel dependency check refuses it).
class DragonflyTopology {
 public:
  /// a, p, h >= 1; classes 0 = the derived count, else 1..derived (checked by the factory).
  DragonflyTopology(unsigned a, unsigned p, unsigned h, DragonflyArrangement arrangement, unsigned classes = 0);

  node_t nodes() const noexcept { return pes_ + routers_; }
  node_t pes() const noexcept { return pes_; }
  port_t ports() const noexcept { return static_cast<port_t>(p_ + a_ - 1 + h_); }
  Link out_link(node_t v, port_t q) const noexcept;
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept;
  class_t buffer_classes() const noexcept { return classes_; }
  /// The classes minimal routing needs: 2 (1 when a = 1).
  class_t derived_classes() const noexcept { return a_ == 1 ? 1 : 2; }
  /// The `classes=K` given in the spec (0: none, the derived count). The non-minimal routings
  /// (rica/routing/dragonfly.hpp) take it as their class count too, so a short one is refused.
  unsigned given_classes() const noexcept { return given_classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {pes_}; }

  /// Relative arrangement: rotation by one group maps routes onto routes (ports and classes
  /// kept): a*p PE orbits (one per (router index, terminal)), a router orbits. Absolute: none.
  std::uint32_t orbit_count() const noexcept { return relative() ? a_ * p_ + a_ : 0; }
  std::uint32_t orbit(node_t v) const noexcept {
    if (!relative()) return v;
    return v < pes_ ? v % (a_ * p_) : a_ * p_ + (v - pes_) % a_;
  }
  node_t orbit_rep(std::uint32_t k) const noexcept {
    if (!relative()) return k;
    return k < a_ * p_ ? k : pes_ + (k - a_ * p_);
  }
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  /// Refuses valiant / ugal-l / ugal-g / par with a given classes=K too short for them
  /// (dragonfly_family.cpp).
  void check_routing(Routing r, const std::string& option) const;

  unsigned a() const noexcept { return a_; }
  unsigned p() const noexcept { return p_; }
  unsigned h() const noexcept { return h_; }
  unsigned groups() const noexcept { return g_; }
  node_t routers() const noexcept { return routers_; }
  DragonflyArrangement arrangement() const noexcept { return arr_; }
  /// Group reached by global link l of group G.
  unsigned global_target(unsigned G, unsigned l) const noexcept {
    if (relative()) return G + l + 1 >= g_ ? G + l + 1 - g_ : G + l + 1;
    return l < G ? l : l + 1;
  }
  /// Index of the global link of group G that leads to group t != G.
  unsigned global_link_to(unsigned G, unsigned t) const noexcept {
    if (relative()) return t > G ? t - G - 1 : t + g_ - G - 1;
    return t < G ? t : t - 1;
  }
  /// Router (index over all routers) of terminal `pe`; group of router r; the router index in
  /// its group that owns global link l; the port of router index i that leads to router index
  /// `to` of its group; the port of its k-th global link. No division instruction.
  node_t router_of(node_t pe) const noexcept { return div_p_(pe); }
  unsigned group_of(node_t r) const noexcept { return div_a_(r); }
  unsigned owner_of(unsigned l) const noexcept { return div_h_(l); }
  port_t local_port(unsigned i, unsigned to) const noexcept {
    return static_cast<port_t>(p_ + (to > i ? to - i - 1 : to + a_ - i - 1));
  }
  port_t global_port(unsigned k) const noexcept { return static_cast<port_t>(p_ + a_ - 1 + k); }

 private:
  bool relative() const noexcept { return arr_ == DragonflyArrangement::relative; }
  unsigned a_, p_, h_, g_;
  detail::FastDiv div_a_{}, div_p_{}, div_h_{};  ///< no div instruction per hop
  node_t routers_, pes_;
  DragonflyArrangement arr_;
  class_t classes_;
  unsigned given_classes_ = 0;
};

// ---- inline hot paths ------------------------------------------------------------------------

inline Link DragonflyTopology::out_link(node_t v, port_t q) const noexcept {
  if (v < pes_) {
    const node_t r = div_p_(v);
    return q == 0 ? Link{pes_ + r, static_cast<port_t>(v - r * p_)} : Link{};
  }
  if (v >= nodes() || q >= ports()) return {};
  const node_t r = v - pes_;
  if (q < p_) return {r * p_ + q, 0};
  const unsigned G = div_a_(r), i = r - G * a_;
  if (q < p_ + a_ - 1) {
    const unsigned j = q - p_, to = i + j + 1 >= a_ ? i + j + 1 - a_ : i + j + 1;
    return {pes_ + G * a_ + to, local_port(to, i)};
  }
  const unsigned l = i * h_ + (q - p_ - (a_ - 1)), t = global_target(G, l), back = global_link_to(t, G);
  const unsigned owner = div_h_(back);
  return {pes_ + t * a_ + owner, static_cast<port_t>(p_ + a_ - 1 + back - owner * h_)};
}

inline Hop DragonflyTopology::route(node_t cur, node_t dst, class_t cls) const noexcept {
  if (cur < pes_) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
  const node_t r = cur - pes_, dr = div_p_(dst);
  if (r == dr) return Hop::forward(static_cast<port_t>(dst - dr * p_), cls);
  const unsigned G = div_a_(r), i = r - G * a_, dG = div_a_(dr);
  if (G == dG) return Hop::forward(local_port(i, dr - dG * a_), cls);
  const unsigned l = global_link_to(G, dG), owner = div_h_(l);
  if (owner != i) return Hop::forward(local_port(i, owner), cls);
  const class_t next = cls + 1u < classes_ ? static_cast<class_t>(cls + 1) : static_cast<class_t>(classes_ - 1);
  return Hop::forward(static_cast<port_t>(p_ + a_ - 1 + l - owner * h_), next);
}

}  // namespace rica
