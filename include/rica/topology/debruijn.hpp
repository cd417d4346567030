#pragma once
// De Bruijn networks (docs/topologies.md): directed B(2, n), undirected UB(2, n) and the
// paper's improved UB(2, n).

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rica/topology/model.hpp"
#include "rica/topology/table.hpp"

namespace rica {

enum class DeBruijnRouting : std::uint8_t {
  overlap,  ///< shortest: shift in only the part of dst not overlapping cur (directed: left shifts)
  shift,    ///< plain n-hop tag routing (directed), class = hops so far (needs the hop count)
  minshift, ///< undirected: min(left-shift, right-shift) overlap routing (not always shortest)
  table,    ///< undirected: shortest paths from a table (n <= 13)
  simple,   ///< undirected: the shorter of the plain n-step left- and right-shift routes (paper §6)
};

/// "overlap", "shift", "minshift", "table".
std::string_view to_string(DeBruijnRouting r) noexcept;

/// Nodes are n-bit addresses, node id = address.
/// Directed: out-port 0 = S (rotl(s)), out-port 1 = SE (rotl(s) ^ 1); the self-loops at 0..0
/// and 1..1 are kept as links (in 2, out 2 everywhere) but never routed over. The link leaving
/// through port p arrives on in-port p (in-port 0 from rotr(t), in-port 1 from rotr(t ^ 1)).
/// Undirected: the arcs as bidirectional links without self-loops, the double link between
/// 0101.. and 1010.. merged; improved adds 00..0-11..1, 11..1-1010.. and 0101..-00..0 (n >= 3).
/// Undirected ports: 0 = S (rotl(s)), 1 = SE (rotl(s) ^ 1), 2 = S^-1 (rotr(s)),
/// 3 = ES^-1 (rotr(s ^ 1)); a port whose peer is the node itself or the peer of a lower port is
/// absent (so ports have gaps at the four special nodes). The link through port p arrives on
/// in-port p ^ 2 (the port of the reverse direction). Improved: the added links use the free
/// ports of the special nodes (see debruijn.cpp).
///
/// Routing and buffer classes (all deadlock-free: classes strictly rise along every route):
/// - overlap (directed, default): longest suffix of cur equal to a prefix of dst, shift in the
///   next bit of dst. Shortest. Class of a hop = n - remaining distance before the hop; n classes.
/// - shift (directed): the paper's tag routing, tag = s ^ d read MSB first; the class carries
///   the number of shifts done so far (0 at injection), next class = shifts + 1; n + 1 classes.
///   Accepted as soon as cur == dst. A shift that would go round a self-loop (at 0..0 or 1..1)
///   is counted without moving (the loop is never taken), so it takes at most n hops.
/// - table (undirected, default): shortest paths from a GraphTopology table (n <= 13);
///   classes = diameter - remaining distance.
/// - minshift (undirected): left- or right-shift overlap routing, whichever needs fewer hops
///   from cur (ties: left); class = n - min(dl, dr) before the hop; n classes. At most n hops,
///   not always shortest.
/// - simple (undirected): the paper's §6 routing. The plain left-shift route shifts in d's bits
///   MSB first over S/SE, the plain right-shift route d's bits LSB first over S^-1/ES^-1; each
///   is accepted as soon as cur == dst and skips the shifts that would go round a self-loop. The
///   source takes the one with fewer hops (ties: left). The class carries the route: left after
///   k shifts = k, right after k shifts = n + k (0 at injection); 2n + 1 classes. At most n hops.
/// Symmetry: complementing every address (v -> ~v) is an automorphism of each network that maps
/// every route onto a route with the same ports and classes: orbits {v, ~v}, orbit(v) = the
/// member with MSB 0.
class DeBruijnTopology {
 public:
  static constexpr unsigned max_n = 24;        ///< directed, and undirected minshift
  static constexpr unsigned max_table_n = 13;  ///< undirected table routing (2^13 = table_limit)

  /// Throws usage_error for n out of range, a routing the kind does not accept (directed:
  /// overlap, shift; undirected: table, minshift), or improved on a directed network.
  DeBruijnTopology(unsigned n, bool directed, DeBruijnRouting routing, bool improved = false);

  /// The same network with one spare PE per necklace (the paper's §3; spec ",spares=necklace"):
  /// a failed PE is replaced by its necklace's spare through the redundant S links while that
  /// spare is unused (rica/faults.hpp resolves it; docs/faults.md). The network and its routing
  /// are unchanged: spares are not nodes until they replace one.
  DeBruijnTopology with_necklace_spares() const {
    DeBruijnTopology t = *this;
    t.spares_ = true;
    return t;
  }
  bool necklace_spares() const noexcept { return spares_; }

  node_t nodes() const noexcept { return node_t{1} << n_; }
  node_t pes() const noexcept { return nodes(); }
  port_t ports() const noexcept { return directed_ ? port_t{2} : port_t{4}; }

  Link out_link(node_t v, port_t p) const noexcept {
    if (v >= nodes()) return Link{};
    if (directed_) {
      if (p >= 2) return Link{};
      return Link{detail::rotl(v, n_) ^ p, p};
    }
    if (p >= 4) return Link{};
    const node_t w = uport_peer(v, p);
    if (w != no_node) return Link{w, static_cast<port_t>(p ^ 2u)};
    if (improved_) {
      for (const auto& e : extra_)
        if (e.v == v && e.p == p) return e.link;
    }
    return Link{};
  }

  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    switch (routing_) {
      case DeBruijnRouting::overlap: {
        const unsigned k = left_overlap(cur, dst);
        const unsigned b = detail::bit(dst, n_ - 1 - k);
        return Hop::forward(static_cast<port_t>(detail::bit(cur, n_ - 1) ^ b),
                            static_cast<class_t>(k));  // n - (n - k)
      }
      case DeBruijnRouting::shift: {
        // After `cls` shifts the next bit to shift in is d_{n-1-cls}; skip shifts that would
        // go round the self-loop at 0..0 or 1..1 (the node would not change).
        unsigned k = cls < n_ ? cls : n_ - 1;
        const node_t mask = nodes() - 1;
        if (cur == 0 || cur == mask) {
          const unsigned same = cur ? 1u : 0u;
          while (k + 1 < n_ && detail::bit(dst, n_ - 1 - k) == same) ++k;
        }
        const unsigned b = detail::bit(dst, n_ - 1 - k);
        return Hop::forward(static_cast<port_t>(detail::bit(cur, n_ - 1) ^ b), static_cast<class_t>(k + 1));
      }
      case DeBruijnRouting::minshift: {
        const unsigned kl = left_overlap(cur, dst), kr = right_overlap(cur, dst);
        if (kl >= kr) {  // dl = n - kl <= dr: left shift in d_{n-1-kl}
          const unsigned b = detail::bit(dst, n_ - 1 - kl);
          return Hop::forward(upeer_port(cur, detail::bit(cur, n_ - 1) ^ b), static_cast<class_t>(kl));
        }
        const unsigned b = detail::bit(dst, kr);  // right shift in d_kr at the top
        return Hop::forward(upeer_port(cur, 2u + (detail::bit(cur, 0) ^ b)), static_cast<class_t>(kr));
      }
      case DeBruijnRouting::simple: {
        // Class 0: choose the direction at the source; else the class says direction and shifts done.
        const bool right = cls == 0 ? shift_hops(cur, dst, true) < shift_hops(cur, dst, false) : cls > n_;
        unsigned k = cls == 0 ? 0u : (right ? cls - n_ : cls);
        const node_t mask = nodes() - 1;
        // The k-th shift brings in d_{n-1-k} (left) or d_k (right); at 0..0 and 1..1 a shift of
        // the node's own bit is a self-loop: count it without moving (never the last shift, as
        // cur != dst).
        auto next_bit = [&] { return detail::bit(dst, right ? k : n_ - 1 - k); };
        if (cur == 0 || cur == mask) {
          const unsigned same = cur ? 1u : 0u;
          while (k + 1 < n_ && next_bit() == same) ++k;
        }
        const unsigned b = next_bit();
        const unsigned nominal = right ? 2u + (detail::bit(cur, 0) ^ b) : detail::bit(cur, n_ - 1) ^ b;
        return Hop::forward(upeer_port(cur, nominal), static_cast<class_t>((right ? n_ : 0u) + k + 1));
      }
      case DeBruijnRouting::table: {
        const Hop h = graph_->route(cur, dst, cls);
        if (h.delivers()) return h;
        const node_t peer = graph_->out_link(cur, h.port()).peer;
        for (port_t p = 0; p < 4; ++p)
          if (out_link(cur, p).peer == peer) return Hop::forward(p, h.next_class());
        return h;  // unreachable
      }
    }
    return Hop::deliver();  // unreachable
  }

  class_t buffer_classes() const noexcept {
    if (routing_ == DeBruijnRouting::table) return graph_->buffer_classes();
    if (routing_ == DeBruijnRouting::simple) return static_cast<class_t>(2 * n_ + 1);
    return static_cast<class_t>(routing_ == DeBruijnRouting::shift ? n_ + 1 : n_);
  }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const { return {nodes()}; }
  std::uint32_t orbit_count() const noexcept { return nodes() / 2; }
  std::uint32_t orbit(node_t v) const noexcept { return detail::bit(v, n_ - 1) ? (~v & (nodes() - 1)) : v; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
  bool vertex_transitive() const noexcept { return false; }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  std::string_view auto_embedding(bool /*linear_guest*/) const noexcept { return "debruijn"; }
  /// With necklace spares: moves each failed PE its necklace's spare replaces from `failed` to
  /// `replaced` (the first of each necklace, in the order given).
  void replace_failed_pes(std::vector<node_t>& failed, std::vector<node_t>& replaced) const;

  unsigned n() const noexcept { return n_; }
  bool directed() const noexcept { return directed_; }
  bool improved() const noexcept { return improved_; }
  DeBruijnRouting routing() const noexcept { return routing_; }

  /// Longest k < n such that the low k bits of `cur` equal the high k bits of `dst` (n when
  /// equal): the directed distance from cur to dst is n - left_overlap(cur, dst).
  unsigned left_overlap(node_t cur, node_t dst) const noexcept {
    for (unsigned k = n_; k > 0; --k)
      if ((cur & ((node_t{1} << k) - 1)) == (dst >> (n_ - k))) return k;
    return 0;
  }
  /// Hops of the plain n-step left-shift (right = false) or right-shift route from cur to dst,
  /// accepted as soon as it reaches dst; shifts that would go round a self-loop cost no hop.
  unsigned shift_hops(node_t cur, node_t dst, bool right) const noexcept {
    const node_t mask = nodes() - 1;
    unsigned hops = 0;
    for (unsigned k = 0; k < n_ && cur != dst; ++k) {
      const node_t next = right ? (cur >> 1) | (node_t{detail::bit(dst, k)} << (n_ - 1))
                                : ((cur << 1) | detail::bit(dst, n_ - 1 - k)) & mask;
      hops += next != cur ? 1u : 0u;
      cur = next;
    }
    return hops;
  }
  /// Longest k such that the high k bits of `cur` equal the low k bits of `dst`: the
  /// right-shift route needs n - right_overlap(cur, dst) hops.
  unsigned right_overlap(node_t cur, node_t dst) const noexcept {
    for (unsigned k = n_; k > 0; --k)
      if ((cur >> (n_ - k)) == (dst & ((node_t{1} << k) - 1))) return k;
    return 0;
  }

 private:
  /// Undirected: peer through port p of the plain UB(2, n), or no_node when the port is
  /// absent (self-loop, or same peer as a lower port).
  node_t uport_peer(node_t v, unsigned p) const noexcept {
    const node_t l = detail::rotl(v, n_), r = detail::rotr(v, n_);
    const node_t c[4] = {l, l ^ 1u, r, detail::rotr(v ^ 1u, n_)};
    const node_t w = c[p];
    if (w == v) return no_node;
    for (unsigned q = 0; q < p; ++q)
      if (c[q] == w) return no_node;
    return w;
  }
  /// Undirected: the present port leading to the peer that nominal port p (0..3) names.
  port_t upeer_port(node_t v, unsigned p) const noexcept {
    const node_t l = detail::rotl(v, n_), r = detail::rotr(v, n_);
    const node_t c[4] = {l, l ^ 1u, r, detail::rotr(v ^ 1u, n_)};
    for (unsigned q = 0; q < p; ++q)
      if (c[q] == c[p]) return static_cast<port_t>(q);
    return static_cast<port_t>(p);
  }

  struct ExtraArc {
    node_t v = no_node;
    port_t p = 0;
    Link link;
  };

  unsigned n_;
  bool directed_, improved_;
  bool spares_ = false;  ///< one spare PE per necklace (faults only)
  DeBruijnRouting routing_;
  std::array<ExtraArc, 6> extra_{};             // improved: the 3 added links, both directions
  std::shared_ptr<const GraphTopology> graph_;  // undirected table routing: graph and table
};

/// Number of necklaces (cycles of the rotation) of n-bit words, e.g. 108 for n = 10.
/// Burnside: (1/n) sum_{d | n} phi(d) 2^(n/d). n in [1, 63].
std::uint64_t necklace_count(unsigned n);

}  // namespace rica
