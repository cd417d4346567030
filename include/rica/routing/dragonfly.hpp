#pragma once
// Non-minimal routing for the dragonfly (docs/topologies.md, "Dragonfly: Valiant and UGAL-L"):
// - Valiant (`--routing valiant`): every packet goes minimally to an intermediate group I, then
//   minimally to its destination. I = hash(src, seq, seed) mod g — the packet's identity, so the
//   route is a pure function of (node, destination, class, I) and the packet needs no state;
//   I equal to the source or the destination group gives the minimal route.
// - UGAL-L (`--routing ugal-l`, Kim et al. 2008, after Singh): at the packet's source router the
//   minimal and the Valiant first hop are compared by local queue occupancy (the words waiting in
//   the downstream buffers of that out-port, all classes, by the router's credit view) weighted by
//   the hop counts of the two paths: minimal when q_min * H_min <= q_val * H_val; elsewhere the
//   packet follows its choice.
// Classes (3): class = global hops taken, except that a packet that goes minimally from its
// source router starts in class 1. Every route then follows the order local 0 < global 1 <
// local 1 < global 2 < local 2 (terminal links last), with at most one local hop per group, so
// the channel dependency graph is acyclic (Valiant) and Duato's condition holds with the minimal
// hop as the escape (UGAL-L): checked exhaustively by certify_dragonfly() (runtime/topology/
// routing_dragonfly.cpp; tests/test_lowdiameter.cpp). The state that tells the choice apart is
// the class: class 0 away from the source router means "on the way to I"; class >= 1 means "on
// the way to the destination group". A `classes=K` on the dragonfly below 3 merges the classes
// above K - 1 into K - 1, and the routing is then refused with the cycle found.
//
// These routings see the packet: the hop kernel (Machine::plan for Routed<T, R>) calls
// route(cur, packet, cls, occupancy) when R has it (PacketRouting below).

#include <cstdint>
#include <string>

#include "rica/packet.hpp"
#include "rica/routing/candidates.hpp"
#include "rica/topology/dragonfly.hpp"

namespace rica {

/// Valiant (Ugal = false) or UGAL-L (Ugal = true) on a dragonfly.
template <bool Ugal>
class DragonflyNonMinimal {
 public:
  /// The classes the routing needs.
  static constexpr class_t derived = 3;
  explicit DragonflyNonMinimal(const DragonflyTopology& t, std::uint64_t seed = 0)
      : t_(&t), seed_(mix64(seed ^ 0x9e3779b97f4a7c15ULL)),
        classes_(t.given_classes() ? static_cast<class_t>(t.given_classes()) : derived) {}
  static bool offered(const DragonflyTopology&) noexcept { return true; }
  class_t buffer_classes() const noexcept { return classes_; }
  /// Header values beyond the destination: the intermediate group.
  unsigned keys() const noexcept { return t_->groups(); }
  /// The packet's intermediate group: hash(src, seq, seed) mod g.
  unsigned intermediate(const Packet& p) const noexcept {
    return static_cast<unsigned>(mix64(seed_ ^ ((std::uint64_t{p.src} << 32) | p.seq)) % t_->groups());
  }

  /// The hop at node cur for dst in class cls with intermediate group I (class 0 away from the
  /// source router: on the way to I; class >= 1: on the way to dst's group).
  Hop hop(node_t cur, node_t dst, class_t cls, unsigned I) const noexcept {
    const DragonflyTopology& t = *t_;
    if (cur < t.pes()) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
    const node_t r = cur - t.pes(), dr = t.router_of(dst);
    if (r == dr) return Hop::forward(static_cast<port_t>(dst - dr * t.p()), cls);
    const unsigned G = t.group_of(r), i = r - G * t.a(), dG = t.group_of(dr);
    if (G == dG) return Hop::forward(t.local_port(i, dr - dG * t.a()), cls);
    const unsigned target = cls == 0 && I != G ? I : dG;
    const unsigned l = t.global_link_to(G, target), owner = t.owner_of(l);
    if (owner != i) return Hop::forward(t.local_port(i, owner), cls);
    return Hop::forward(t.global_port(l - owner * t.h()), next(cls));
  }

  /// The hop kernel's entry (PacketRouting): the hop for packet p at cur in class cls;
  /// `occupancy(port)` = words waiting downstream of out-port `port` (UGAL-L only).
  template <class Occupancy>
  Hop route(node_t cur, const Packet& p, class_t cls, Occupancy&& occupancy) const noexcept {
    const unsigned I = intermediate(p);
    if constexpr (Ugal) {
      if (cls == 0 && cur >= t_->pes() && cur - t_->pes() == t_->router_of(p.src)) {
        unsigned hm = 0, hv = 0;
        if (choice(cur, p.dst, I, hm, hv)) {
          const Hop m = hop(cur, p.dst, 1, I), v = hop(cur, p.dst, 0, I);
          return std::uint64_t{occupancy(m.port())} * hm <= std::uint64_t{occupancy(v.port())} * hv ? m : v;
        }
      }
    }
    return hop(cur, p.dst, cls, I);
  }

  /// Every hop the routing may take at (cur, dst, cls, I), for the certificate and tools: the
  /// escape (Valiant: the hop; UGAL-L: the minimal hop) and, for UGAL-L at a router in class 0
  /// where the two paths differ, the Valiant hop as the candidate. (At run time the choice is
  /// made at the source router only; the certificate allows it at every router in class 0.)
  void candidates(node_t cur, node_t dst, unsigned I, class_t cls, CandidateSet& cs) const noexcept {
    cs.clear();
    unsigned hm = 0, hv = 0;
    if (Ugal && cls == 0 && cur >= t_->pes() && choice(cur, dst, I, hm, hv)) {
      cs.escape = hop(cur, dst, 1, I);
      cs.add(hop(cur, dst, 0, I).port(), hop(cur, dst, 0, I).next_class());
      return;
    }
    cs.escape = hop(cur, dst, cls, I);
  }

  /// Router `cur` in class 0 for dst via I: true when minimal and Valiant differ (I is neither
  /// this group nor dst's), with their router-to-router hop counts from here.
  bool choice(node_t cur, node_t dst, unsigned I, unsigned& h_min, unsigned& h_val) const noexcept {
    const DragonflyTopology& t = *t_;
    const node_t r = cur - t.pes(), dr = t.router_of(dst);
    const unsigned G = t.group_of(r), i = r - G * t.a(), dG = t.group_of(dr);
    if (G == dG || I == G || I == dG) return false;
    const unsigned di = dr - dG * t.a();
    // Over the global link of G to X: local hops in G before it, and the router it lands on in X.
    auto leg = [&](unsigned from, unsigned from_i, unsigned to, unsigned& land) {
      const unsigned l = t.global_link_to(from, to);
      land = t.owner_of(t.global_link_to(to, from));
      return (t.owner_of(l) != from_i ? 1u : 0u) + 1u;
    };
    unsigned land = 0;
    h_min = leg(G, i, dG, land);
    h_min += land != di;
    h_val = leg(G, i, I, land);
    h_val += leg(I, land, dG, land);
    h_val += land != di;
    return true;
  }

 private:
  class_t next(class_t c) const noexcept {
    return c + 1u < classes_ ? static_cast<class_t>(c + 1) : static_cast<class_t>(classes_ - 1);
  }
  const DragonflyTopology* t_;
  std::uint64_t seed_;
  class_t classes_;
};

using DragonflyValiant = DragonflyNonMinimal<false>;
using DragonflyUgalL = DragonflyNonMinimal<true>;

template <>
struct ValiantFor<DragonflyTopology> {
  using type = DragonflyValiant;
};
template <>
struct UgalLFor<DragonflyTopology> {
  using type = DragonflyUgalL;
};

/// The certificate of a dragonfly routing (runtime/topology/routing_dragonfly.cpp): every
/// (destination, intermediate group) and every state reachable from every source, exhaustively:
/// hops over present links with classes below the count, delivery exactly at the destination, no
/// state repeated on any sequence of choices (no livelock), the escape hops alone deliver, and
/// the extended channel dependency graph of the escape channels (Duato; for Valiant, which has no
/// candidates, the channel dependency graph itself) is acyclic. Throws usage_error "<what>: the
/// routing can deadlock: a cycle of N channel dependencies, e.g. ..." naming a cycle, or "too
/// large to check" beyond 2^27 state visits.
void certify_dragonfly(const DragonflyTopology& t, bool ugal, const std::string& what);

}  // namespace rica
