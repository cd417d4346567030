#pragma once
// rica::Topology — any topology, as a std::variant of the concrete value types. Dispatch once:
// code on the packet path calls visit() and runs a loop templated on the concrete type, so
// route() inlines. The forwarding member functions below visit per call (for setup, tools and
// tests, not for per-hop loops). UserTopology is the one type-erased member: its route() is one
// indirect call to a user's routing callable (rica/topology/user.hpp); every other family's
// route() inlines.

#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "rica/topology/comega.hpp"
#include "rica/topology/composite.hpp"
#include "rica/topology/cube.hpp"
#include "rica/topology/dce.hpp"
#include "rica/topology/debruijn.hpp"
#include "rica/topology/dragonfly.hpp"
#include "rica/topology/faulty.hpp"
#include "rica/topology/hyperx.hpp"
#include "rica/topology/indirect.hpp"
#include "rica/topology/mdce.hpp"
#include "rica/topology/neighbor8.hpp"
#include "rica/topology/periodic.hpp"
#include "rica/topology/slimfly.hpp"
#include "rica/topology/table.hpp"
#include "rica/topology/user.hpp"

namespace rica {

class Topology {
 public:
  using variant_type =
      std::variant<DceTopology, CircularOmegaTopology, MdceTopology, CubeTopology, HypercubeTopology, Neighbor8Topology,
                   PeriodicTopology, DeBruijnTopology, OmegaTopology, FatTreeTopology, GraphTopology,
                   ProductTopology, HierTopology, UserTopology, FaultyTopology, DragonflyTopology,
                   HyperXTopology, SlimFlyTopology>;

  template <TopologyModel T>
  Topology(T t) : v_(std::move(t)) {}  // NOLINT(google-explicit-constructor): value-like wrapper

  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }
  const variant_type& variant() const noexcept { return v_; }

  node_t nodes() const { return visit([](const auto& t) { return t.nodes(); }); }
  node_t pes() const { return visit([](const auto& t) { return t.pes(); }); }
  port_t ports() const { return visit([](const auto& t) { return t.ports(); }); }
  Link out_link(node_t v, port_t p) const { return visit([&](const auto& t) { return t.out_link(v, p); }); }
  Hop route(node_t cur, node_t dst, class_t cls) const {
    return visit([&](const auto& t) { return t.route(cur, dst, cls); });
  }
  class_t buffer_classes() const { return visit([](const auto& t) { return t.buffer_classes(); }); }
  std::string label(node_t v) const { return visit([&](const auto& t) { return t.label(v); }); }
  std::string spec() const { return visit([](const auto& t) { return t.spec(); }); }
  Shape shape() const { return visit([](const auto& t) { return t.shape(); }); }
  std::uint32_t orbit_count() const { return visit([](const auto& t) { return t.orbit_count(); }); }
  std::uint32_t orbit(node_t v) const { return visit([&](const auto& t) { return t.orbit(v); }); }
  node_t orbit_rep(std::uint32_t k) const { return visit([&](const auto& t) { return t.orbit_rep(k); }); }
  bool vertex_transitive() const { return visit([](const auto& t) { return t.vertex_transitive(); }); }
  bool direct() const { return pes() == nodes(); }

  /// A node given as a number or as its label (e.g. "(3,17)"). Throws usage_error.
  node_t parse_node(const std::string& text) const;

 private:
  variant_type v_;
};

// ---- ProductTopology (inline: needs the complete Topology) ------------------------------------
inline Link ProductTopology::out_link(node_t v, port_t p) const noexcept {
  const node_t v1 = v % n1_, v2 = v / n1_;
  if (p < p1_) {
    const Link l = a_->out_link(v1, p);
    return l.present() ? Link{l.peer + n1_ * v2, l.in_port} : Link{};
  }
  const Link l = b_->out_link(v2, static_cast<port_t>(p - p1_));
  return l.present() ? Link{v1 + n1_ * l.peer, static_cast<port_t>(p1_ + l.in_port)} : Link{};
}
inline Hop ProductTopology::route(node_t cur, node_t dst, class_t cls) const noexcept {
  const node_t v1 = cur % n1_, d1 = dst % n1_;
  if (v1 != d1) return a_->route(v1, d1, cls);
  const Hop h = b_->route(cur / n1_, dst / n1_, cls >= c1_ ? static_cast<class_t>(cls - c1_) : class_t{0});
  if (h.delivers()) return h;
  return Hop::forward(static_cast<port_t>(p1_ + h.port()), static_cast<class_t>(c1_ + h.next_class()));
}
inline std::uint32_t ProductTopology::orbit(node_t v) const noexcept {
  return k1_ ? a_->orbit(v % n1_) + k1_ * b_->orbit(v / n1_) : v;
}
inline node_t ProductTopology::orbit_rep(std::uint32_t k) const noexcept {
  return k1_ ? a_->orbit_rep(k % k1_) + n1_ * b_->orbit_rep(k / k1_) : k;
}
inline bool ProductTopology::vertex_transitive() const noexcept {
  return a_->vertex_transitive() && b_->vertex_transitive();
}

// ---- HierTopology -------------------------------------------------------------------------------
inline Link HierTopology::out_link(node_t v, port_t p) const noexcept {
  const node_t local = v % n1_, cl = v / n1_;
  if (p < p1_) {
    const Link l = a_->out_link(local, p);
    return l.present() ? Link{l.peer + n1_ * cl, l.in_port} : Link{};
  }
  if (local != iface_) return {};
  const Link l = b_->out_link(cl, static_cast<port_t>(p - p1_));
  return l.present() ? Link{iface_ + n1_ * l.peer, static_cast<port_t>(p1_ + l.in_port)} : Link{};
}
inline Hop HierTopology::route(node_t cur, node_t dst, class_t cls) const noexcept {
  if (cur == dst) return Hop::deliver();
  const node_t local = cur % n1_, cl = cur / n1_, dcl = dst / n1_;
  const class_t phase3 = static_cast<class_t>(c1_ + c2_);
  if (cl == dcl) {
    // Intra-cluster packets stay in [0, c1); packets that came over G2 use [c1+c2, 2c1+c2).
    if (cls < c1_) return a_->route(local, dst % n1_, cls);
    const Hop h = a_->route(local, dst % n1_, cls >= phase3 ? static_cast<class_t>(cls - phase3) : class_t{0});
    return Hop::forward(h.port(), static_cast<class_t>(phase3 + h.next_class()));
  }
  if (local != iface_) return a_->route(local, iface_, cls);  // phase 1, classes [0, c1)
  const Hop h = b_->route(cl, dcl, cls >= c1_ ? static_cast<class_t>(cls - c1_) : class_t{0});
  return Hop::forward(static_cast<port_t>(p1_ + h.port()), static_cast<class_t>(c1_ + h.next_class()));
}

}  // namespace rica
