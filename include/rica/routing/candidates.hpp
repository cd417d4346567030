#pragma once
// The vocabulary of adaptive routing (rica/routing.hpp states the contract): the candidate set a
// routing fills per hop, the AdaptiveFor<T> trait that names a topology type's adaptive routing,
// and Routed<T, R>, what the drivers are instantiated on under `--routing adaptive`. Each routing
// header in rica/routing/ includes this one and specialises AdaptiveFor for its families.

#include <array>
#include <concepts>
#include <cstdint>

#include "rica/engine.hpp"
#include "rica/packet.hpp"
#include "rica/topology.hpp"

namespace rica {

/// The hops an adaptive routing offers at one node: up to `capacity` candidates and the escape.
/// Fixed inline storage (no allocation); lives on the stack of the hop kernel.
class CandidateSet {
 public:
  static constexpr unsigned capacity = 32;
  Hop escape = Hop::deliver();
  void add(port_t port, class_t cls) noexcept {
    if (n_ < capacity) port_[n_] = port, cls_[n_] = cls, ++n_;
  }
  [[nodiscard]] unsigned size() const noexcept { return n_; }
  /// Candidate i. Precondition: i < size().
  [[nodiscard]] Hop operator[](unsigned i) const noexcept { return Hop::forward(port_[i], cls_[i]); }
  void clear() noexcept { n_ = 0, escape = Hop::deliver(); }

 private:
  // Only [0, n_) is meaningful; left unset otherwise (no per-hop initialisation cost).
  std::array<port_t, capacity> port_;
  std::array<class_t, capacity> cls_;
  unsigned n_ = 0;
};

/// The adaptive routing of topology type T: specialise with `using type = R;` (the routing
/// headers below do). No specialisation: T offers only deterministic routing.
template <class T>
struct AdaptiveFor {};

template <class T>
concept HasAdaptive = requires { typename AdaptiveFor<T>::type; };

template <class T>
  requires HasAdaptive<T>
using adaptive_t = typename AdaptiveFor<T>::type;

/// The packet routings of topology type T (rica/routing/dragonfly.hpp: Valiant, UGAL-L, UGAL-G,
/// PAR): specialise PacketRoutingFor<T, r> with `using type = R;`. R(const T&, seed) builds one;
/// R::offered(const T&), R::buffer_classes().
template <class T, Routing r>
struct PacketRoutingFor {};
template <class T, Routing r>
concept HasPacketRouting = requires { typename PacketRoutingFor<T, r>::type; };

/// A routing that sees the packet (Valiant's intermediate group is a hash of its source and
/// sequence number; UGAL-L and PAR also read the local queue occupancy): the hop kernel calls
/// route(cur, packet, cls, occupancy) instead of candidates() + select().
template <class R>
concept LocalPacketRouting = requires(const R& r, node_t v, const Packet& p, class_t c) {
  { r.route(v, p, c, [](port_t) { return 0u; }) } -> std::same_as<Hop>;
};
/// A packet routing that also reads the port-load board (UGAL-G): route(cur, packet, cls,
/// occupancy, board), board(node, port) = the words downstream of another node's out-port as the
/// engine last published them (Machine::board_words: between cycles on the cycle engine, at the
/// owner's sends on the async engine). R::reads_board is true; the engine keeps the board only then.
template <class R>
concept BoardRouting = requires(const R& r, node_t v, const Packet& p, class_t c) {
  requires R::reads_board;
  { r.route(v, p, c, [](port_t) { return 0u; }, [](node_t, port_t) { return 0u; }) } -> std::same_as<Hop>;
};
template <class R>
concept PacketRouting = LocalPacketRouting<R> || BoardRouting<R>;

/// A topology together with an adaptive routing: what the drivers are instantiated on under
/// `--routing adaptive`. `topo` outlives it (the machine's topology).
template <class T, class R>
struct Routed {
  const T* topo;
  R routing;
};

}  // namespace rica
