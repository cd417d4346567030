#pragma once
// Circular Omega — EM-4's network (RWC-1 §3.1, MDCE §2; docs/topologies.md): the Omega
// network with a PE at every switch position and the last stage's outputs wrapped round to the
// first stage. The ancestor of c-Banyan and of the spiral-buffer scheme.

#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// Nodes (x, y), 0 <= x < S (stage = column), 0 <= y < 2^n (switch row); node id = y * S + x.
/// Between consecutive stages the Omega network's perfect shuffle: switch row y's two outputs
/// reach rows 2y and 2y+1 (mod 2^n) of the next stage (S-1 wraps to 0). Out-port 0 is the
/// straight link (x+1, rotl(y)), out-port 1 the exchange link (x+1, rotl(y) ^ 1); a link through
/// port p arrives on in-port p. Straight links form the unidirectional rings: n columns later
/// the row is back (rotl^n = id), so with S = n the rings are of length S, like c-Banyan's
/// groups (the network is then isomorphic to c-Banyan; for S > n it is not).
///
/// Routing: destination tags. Every hop shifts one bit into the row, so h hops from (x, y)
/// reach ((x+h) mod S, (y << h | b) mod 2^n) for any h chosen bits b. A packet for (x', y')
/// goes r = (x' - x) mod S hops when that can produce y' (r >= n, or the low n-r bits of y are
/// the high n-r bits of y'), else r + S hops (S >= n, so it always can); the last min(h, n)
/// hops shift in the bits of y' MSB first, earlier hops go straight. That is the Omega network's
/// destination-tag routing, and it is shortest (every h-hop walk has that form).
/// Classes (the spiral buffers): the class rises by one on every hop from column S-1 to 0; a
/// route makes at most h < 2S hops, so at most 2 wraps: 3 classes.
class CircularOmegaTopology {
 public:
  /// n in 2..24, S in n..64; throws usage_error naming the parameter.
  CircularOmegaTopology(unsigned n, unsigned ring);

  node_t nodes() const noexcept { return ring_ << bits_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return 2; }
  Link out_link(node_t v, port_t p) const noexcept {
    if (p >= 2) return {};
    const node_t y = div_(v), x = v - y * ring_;
    return {(detail::rotl(y, bits_) ^ p) * ring_ + (x + 1 == ring_ ? 0 : x + 1), p};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    const node_t y = div_(cur), x = cur - y * ring_, yd = div_(dst), xd = dst - yd * ring_;
    const node_t r = xd >= x ? xd - x : xd + ring_ - x;
    // Hops to go: r if r hops can produce yd (r = 0 only when y == yd, excluded above), else r + S.
    const bool now = r >= bits_ ? true : (r > 0 && (y & ((node_t{1} << (bits_ - r)) - 1)) == (yd >> r));
    const node_t h = now ? r : r + ring_;
    // The first h - n hops go straight; the last n shift in yd's bits, MSB first.
    const unsigned b = h > bits_ ? detail::bit(y, bits_ - 1) : detail::bit(yd, static_cast<unsigned>(h - 1));
    return Hop::forward(static_cast<port_t>(b ^ detail::bit(y, bits_ - 1)),
                        static_cast<class_t>(cls + (x + 1 == ring_ ? 1 : 0)));
  }
  class_t buffer_classes() const noexcept { return 3; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {ring_, node_t{1} << bits_}; }

  /// XOR-ing the rows of column x with rotl^x(c) commutes with links and routing (the shuffle maps
  /// rotl^x(c) onto rotl^(x+1)(c), swapping the two out-ports where the shifted-out bit is 1) as
  /// long as the wrap from column S-1 to 0 closes: rotl^S(c) = c, i.e. c is periodic with period
  /// g = gcd(S, n). Those c form a group H of 2^g elements, closed under rotation, so the orbit of
  /// (x, y) is {(x, y XOR h) : h in H}: S * 2^(n-g) orbits of 2^g nodes (n | S: g = n, the orbits
  /// are the columns). Orbit index = (y' >> g) * S + x, y' = y with its lowest g bits cleared by h.
  std::uint32_t orbit_count() const noexcept { return ring_ << (bits_ - period_); }
  std::uint32_t orbit(node_t v) const noexcept {
    const node_t y = div_(v), x = v - y * ring_;
    const node_t low = y & ((node_t{1} << period_) - 1);
    return static_cast<std::uint32_t>(((y ^ (low * spread_)) >> period_) * ring_ + x);
  }
  node_t orbit_rep(std::uint32_t k) const noexcept { return ((k / ring_) << period_) * ring_ + k % ring_; }
  /// Isomorphic to c-Banyan (vertex-transitive) when S == n.
  bool vertex_transitive() const noexcept { return ring_ == bits_; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }

  unsigned bits() const noexcept { return bits_; }
  unsigned ring() const noexcept { return ring_; }

 private:
  unsigned bits_, ring_;
  detail::FastDiv div_;  // division by ring_
  unsigned period_;      // g = gcd(S, n)
  node_t spread_;        // sum of 2^(i g), i < n/g: low * spread_ repeats a g-bit block over n bits
};

}  // namespace rica
