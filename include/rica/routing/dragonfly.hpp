#pragma once
// Non-minimal routing for the dragonfly (docs/topologies.md, "Dragonfly: non-minimal routing"):
// - Valiant (`--routing valiant`): every packet goes minimally to an intermediate group I, then
//   minimally to its destination. I = hash(src, seq, seed) mod g — the packet's identity, so the
//   route is a pure function of (node, destination, class, I) and the packet needs no state;
//   I equal to the source or the destination group gives the minimal route.
// - UGAL-L (`--routing ugal-l`, Kim et al. 2008, after Singh): at the packet's source router the
//   minimal and the Valiant first hop are compared by local queue occupancy (the words waiting in
//   the downstream buffers of that out-port, all classes, by the router's credit view) weighted by
//   the hop counts of the two paths: minimal when q_min * H_min <= q_val * H_val; elsewhere the
//   packet follows its choice.
// - UGAL-G (`--routing ugal-g`): as UGAL-L, with each path's queue the first hop's plus, when
//   the first hop is local, the queue of the path's global channel out of the source group at
//   the router that owns it — read from the engine's port-load board (Machine::board_words): on
//   the cycle engine as of the end of the last cycle, on the async engine as that router last
//   published it. "Global" is the source group's global channels, not the whole network's.
// - PAR (`--routing par`, progressive adaptive routing, Jiang et al. 2009): the UGAL-L choice at
//   the source router; a packet sent minimally is decided again, by the same rule with that
//   router's queues, at the next router of its source group (the owner of the minimal global
//   link), where it may still turn to the Valiant path.
// Classes: Valiant, UGAL-L and UGAL-G 3; PAR 4. Class = global hops taken, except for the
// packets sent on the path the state must tell apart in the source group: UGAL's minimal packets
// start in class 1 (class 0 away from the source router = "on the way to I"), PAR's Valiant
// packets start in class 1 (class 0 = "minimal, may still turn"; class 1 in the source group =
// "on the way to I"). Outside the source group the group tells the rest (I: on to dst's group;
// dst's group: to dst). Every route then follows one order — UGAL: local 0 < global 1 < local 1 <
// global 2 < local 2; PAR: the same with one more step, < global 3 < local 3 — with at most one
// local hop per group and class, so the channel dependency graph is acyclic (Valiant) and
// Duato's condition holds with the minimal hop as the escape (the others): checked exhaustively
// by certify_dragonfly() (runtime/topology/routing_dragonfly.cpp; tests/test_nonminimal.cpp).
// A `classes=K` on the dragonfly below the count merges the classes above K - 1 into K - 1, and
// the routing is then refused with the cycle found.
//
// These routings see the packet: the hop kernel (Machine::plan for Routed<T, R>) calls
// route(cur, packet, cls, occupancy[, board]) (PacketRouting, rica/routing/candidates.hpp).

#include <cstdint>
#include <string>

#include "rica/engine.hpp"
#include "rica/packet.hpp"
#include "rica/routing/candidates.hpp"
#include "rica/topology/dragonfly.hpp"

namespace rica {

/// Valiant, UGAL-L, UGAL-G or PAR (M) on a dragonfly. A value type: a pointer to the topology,
/// the seed's hash, the class count; every member function is pure and allocates nothing.
template <Routing M>
class DragonflyNonMinimal {
  static_assert(M == Routing::valiant || M == Routing::ugal_l || M == Routing::ugal_g || M == Routing::par);

 public:
  /// The classes the routing needs.
  static constexpr class_t derived = M == Routing::par ? 4 : 3;
  /// UGAL-G reads the engine's port-load board (rica/routing/candidates.hpp, BoardRouting).
  static constexpr bool reads_board = M == Routing::ugal_g;
  /// `classes` = 0: the topology's given `classes=K`, else the derived count (the certificate's
  /// tests pass another count to show its refusal).
  explicit DragonflyNonMinimal(const DragonflyTopology& t, std::uint64_t seed = 0, unsigned classes = 0)
      : t_(&t), seed_(mix64(seed ^ 0x9e3779b97f4a7c15ULL)),
        classes_(classes ? static_cast<class_t>(classes)
                         : t.given_classes() ? static_cast<class_t>(t.given_classes()) : derived) {}
  static bool offered(const DragonflyTopology&) noexcept { return true; }
  class_t buffer_classes() const noexcept { return classes_; }
  /// Header values beyond the destination: the intermediate group.
  unsigned keys() const noexcept { return t_->groups(); }
  /// The packet's intermediate group: hash(src, seq, seed) mod g.
  unsigned intermediate(const Packet& p) const noexcept {
    return static_cast<unsigned>(mix64(seed_ ^ ((std::uint64_t{p.src} << 32) | p.seq)) % t_->groups());
  }
  /// The class a packet starts its minimal / its Valiant path in (at the deciding router).
  static constexpr class_t min_class = M == Routing::par ? 0 : 1;
  static constexpr class_t val_class = M == Routing::par ? 1 : 0;

  /// The hop at node cur for dst in class cls with intermediate group I. In the packet's source
  /// group class val_class means "on the way to I", the other class "on the way to dst's group";
  /// elsewhere the packet heads for dst's group.
  Hop hop(node_t cur, node_t dst, class_t cls, unsigned I) const noexcept {
    const DragonflyTopology& t = *t_;
    if (cur < t.pes()) return cur == dst ? Hop::deliver() : Hop::forward(0, 0);
    const node_t r = cur - t.pes(), dr = t.router_of(dst);
    if (r == dr) return Hop::forward(static_cast<port_t>(dst - dr * t.p()), cls);
    const unsigned G = t.group_of(r), i = r - G * t.a(), dG = t.group_of(dr);
    if (G == dG) return Hop::forward(t.local_port(i, dr - dG * t.a()), cls);
    const unsigned target = cls == val_class && I != G ? I : dG;
    const unsigned l = t.global_link_to(G, target), owner = t.owner_of(l);
    if (owner != i) return Hop::forward(t.local_port(i, owner), cls);
    return Hop::forward(t.global_port(l - owner * t.h()), next(cls));
  }

  /// Whether packet p at cur in class cls is at a deciding router (UGAL: its source router in
  /// class 0; PAR: any router in class 0 — the source router, then the next one of its group).
  /// A choice is made there only where the two paths differ (choice()).
  bool decides(node_t cur, const Packet& p, class_t cls) const noexcept {
    if constexpr (M == Routing::valiant) return false;
    if (cls != 0 || cur < t_->pes()) return false;
    if constexpr (M == Routing::par) return true;
    return cur - t_->pes() == t_->router_of(p.src);
  }

  /// The hop kernel's entry (PacketRouting): the hop for packet p at cur in class cls;
  /// `occupancy(port)` = words waiting downstream of cur's out-port `port`.
  template <class Occupancy>
  Hop route(node_t cur, const Packet& p, class_t cls, Occupancy&& occupancy) const noexcept
    requires(!reads_board)
  {
    return route(cur, p, cls, occupancy, [](node_t, port_t) { return 0u; });
  }
  /// The same for UGAL-G: `board(node, port)` = the words downstream of another router's out-port
  /// as the engine last published them.
  template <class Occupancy, class Board>
  Hop route(node_t cur, const Packet& p, class_t cls, Occupancy&& occupancy,
            [[maybe_unused]] Board&& board) const noexcept {
    const unsigned I = intermediate(p);
    if constexpr (M != Routing::valiant) {
      unsigned hm = 0, hv = 0;
      if (decides(cur, p, cls) && choice(cur, p.dst, I, hm, hv)) {
        const Hop m = hop(cur, p.dst, min_class, I), v = hop(cur, p.dst, val_class, I);
        std::uint64_t qm = occupancy(m.port()), qv = occupancy(v.port());
        if constexpr (reads_board) {  // the global channels out of the source group
          qm += global_queue(cur, m, p.dst, min_class, I, board);
          qv += global_queue(cur, v, p.dst, val_class, I, board);
        }
        return qm * hm <= qv * hv ? m : v;
      }
    }
    return hop(cur, p.dst, cls, I);
  }

  /// Every hop the routing may take at (cur, dst, cls, I), for the certificate and tools: the
  /// escape (Valiant: the hop; the others: the minimal hop) and, at a router in class 0 where the
  /// two paths differ, the Valiant hop as the candidate. (At run time UGAL decides at the source
  /// router only, PAR at the first two routers of the source group; the certificate allows the
  /// choice at every router in class 0, a superset.)
  void candidates(node_t cur, node_t dst, unsigned I, class_t cls, CandidateSet& cs) const noexcept {
    cs.clear();
    unsigned hm = 0, hv = 0;
    if (M != Routing::valiant && cls == 0 && cur >= t_->pes() && choice(cur, dst, I, hm, hv)) {
      cs.escape = hop(cur, dst, min_class, I);
      const Hop v = hop(cur, dst, val_class, I);
      cs.add(v.port(), v.next_class());
      return;
    }
    cs.escape = hop(cur, dst, cls, I);
  }

  /// Router `cur` for dst via I: true when minimal and Valiant differ (I is neither this group
  /// nor dst's), with their router-to-router hop counts from here.
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
  /// UGAL-G: the board's words at the global out-port that first hop `h` (taken from router cur
  /// in class c towards dst via I) leads to, when h is a local hop; 0 when h is that global hop
  /// itself (its queue is the local occupancy already).
  template <class Board>
  std::uint64_t global_queue(node_t cur, Hop h, node_t dst, class_t c, unsigned I, Board&& board) const noexcept {
    const DragonflyTopology& t = *t_;
    if (h.port() >= t.p() + t.a() - 1) return 0;  // a global port: already counted
    const node_t next = t.out_link(cur, h.port()).peer;
    return board(next, hop(next, dst, c, I).port());
  }

  const DragonflyTopology* t_;
  std::uint64_t seed_;
  class_t classes_;
};

using DragonflyValiant = DragonflyNonMinimal<Routing::valiant>;
using DragonflyUgalL = DragonflyNonMinimal<Routing::ugal_l>;
using DragonflyUgalG = DragonflyNonMinimal<Routing::ugal_g>;
using DragonflyPar = DragonflyNonMinimal<Routing::par>;

template <Routing M>
  requires(M == Routing::valiant || M == Routing::ugal_l || M == Routing::ugal_g || M == Routing::par)
struct PacketRoutingFor<DragonflyTopology, M> {
  using type = DragonflyNonMinimal<M>;
};

/// The certificate of a dragonfly routing (runtime/topology/routing_dragonfly.cpp): every
/// (destination, intermediate group) and every state reachable from every source, exhaustively:
/// hops over present links with classes below the count, delivery exactly at the destination, no
/// state repeated on any sequence of choices (no livelock), the escape hops alone deliver, and
/// the extended channel dependency graph of the escape channels (Duato; for Valiant, which has no
/// candidates, the channel dependency graph itself) is acyclic. Throws usage_error "<what>: the
/// routing can deadlock: a cycle of N channel dependencies, e.g. ..." naming a cycle, or "too
/// large to check" beyond 2^27 state visits.
/// `r` is valiant, ugal-l, ugal-g or par; `classes` = 0: the routing's own count (the topology's
/// `classes=K` or the derived), else that count.
void certify_dragonfly(const DragonflyTopology& t, Routing r, const std::string& what, unsigned classes = 0);

}  // namespace rica
