// M_{x+x} routed by the paper's own rule (mxx-recursive-bypass-torus §2.2), generalised to every
// node class: `mxx:N,route=paper`. docs/topologies.md ("M_{x+x}: the paper's routing") gives the
// rule and says where it is ours; docs/reproduction.md compares its diameters with Table 1.
//
// The paper gives the outline for every node (x16 range -> go to the nearest x16 node and take its
// link; small |dx|+|dy| -> mesh; a box -> nearest x2 node; else nearest +8 node) and the complete
// rule for one class only, "x16a". The 4x4 block's classes are invariant under the translation
// (2, 2) and the reflection y -> 3 - y, which map the four x16 nodes onto each other: the x16 rule
// holds at every x16 node in its local frame (y mirrored on odd rows). For the +8 and x2 nodes
// (whose rules the paper leaves out) we take the outline with the x16 rule's thresholds, centred
// on the node, and make "go to the nearest X node" consistent: a node steps to a neighbour of
// class X only if that neighbour then takes its X link (for an x16 neighbour: by the paper's x16
// rule), choosing the neighbour whose (step + link) lands closest (torus L1); if no neighbour of
// the chosen class will, it takes the best other (step + link) or own link that beats the mesh
// distance, else a mesh step. The rule is memoryless (a function of the node's class and the
// offset to the destination), so the table below holds it completely; following every entry
// proves it loop-free for that N (the build throws otherwise).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "rica/topology/periodic.hpp"

namespace rica {

namespace {

enum class Kind { plus8, x16, x2 };

Kind kind(int x, int y) {
  x &= 3, y &= 3;
  if ((x == 0 && (y == 0 || y == 3)) || (x == 2 && (y == 1 || y == 2))) return Kind::plus8;
  if ((x == 3 && (y == 0 || y == 3)) || (x == 1 && (y == 1 || y == 2))) return Kind::x16;
  return Kind::x2;
}

struct Move {
  int x = 0, y = 0;
  bool operator==(const Move&) const = default;
};

int sg(int d) { return d >= 0 ? 1 : -1; }

/// The paper's x16 range ("range a"), on (|dx + 1|, |dy|) at an x16 node.
bool x16_range(int u, int v) {
  u = std::abs(u), v = std::abs(v);
  return (u > 16 + 4 && v > 4) || (u > 8 + 4 && v > 8 + 4) || (u > 4 && v > 16 + 4);
}

class PaperRule {
 public:
  explicit PaperRule(int n) : n_(n) {}

  /// Signed offset in (-n/2, n/2].
  int wrap(int d) const {
    d %= n_;
    if (d < 0) d += n_;
    return d > n_ / 2 ? d - n_ : d;
  }
  int l1(int dx, int dy) const { return std::abs(wrap(dx)) + std::abs(wrap(dy)); }

  /// The move of node (x, y) for offset (dx, dy) (signed, not both 0).
  Move decide(int x, int y, int dx, int dy) const {
    if (kind(x, y) == Kind::x16) return x16_rule(y, dx, dy);
    const Kind lv = level(dx, dy);
    if (mesh_range(dx, dy)) return mesh(dx, dy);
    // Options: (class, move, torus L1 after the move and the link, hops).
    struct Option {
      Kind k;
      Move m;
      int after, hops;
    };
    std::array<Option, 12> opts{};
    unsigned n = 0;
    for (Kind k : {Kind::x16, Kind::plus8, Kind::x2}) {
      if (k == kind(x, y)) {
        const Move r = remote(k, dx, dy);
        opts[n++] = {k, r, l1(dx - r.x, dy - r.y), 1};
        continue;
      }
      for (Move m : {Move{0, 1}, Move{0, -1}, Move{1, 0}, Move{-1, 0}}) {
        if (kind(x + m.x, y + m.y) != k) continue;
        const int ex = wrap(dx - m.x), ey = wrap(dy - m.y);
        if (ex == 0 && ey == 0) continue;  // the neighbour is the destination: mesh range
        Move r;
        if (k == Kind::x16) {
          r = x16_rule(y + m.y, ex, ey);
          if (std::abs(r.x) != 16) continue;
        } else {
          if (mesh_range(ex, ey) || level(ex, ey) != k) continue;  // it would not take its link
          r = remote(k, ex, ey);
        }
        opts[n++] = {k, m, l1(ex - r.x, ey - r.y), 2};
      }
    }
    const Option* best = nullptr;
    auto consider = [&](const Option& o) {
      if (!best || o.after + o.hops < best->after + best->hops ||
          (o.after + o.hops == best->after + best->hops && o.hops < best->hops))
        best = &o;
    };
    for (unsigned i = 0; i < n; ++i)
      if (opts[i].k == lv) consider(opts[i]);
    if (!best)
      for (unsigned i = 0; i < n; ++i)
        if (opts[i].after + opts[i].hops < l1(dx, dy)) consider(opts[i]);
    return best ? best->m : mesh(dx, dy);
  }

 private:
  /// The outline's class for an offset, with the x16 rule's thresholds centred on the node.
  static Kind level(int dx, int dy) {
    if (x16_range(dx, dy)) return Kind::x16;
    if (std::abs(dx) <= 4 && std::abs(dy) <= 4) return Kind::x2;
    return Kind::plus8;
  }
  static bool mesh_range(int dx, int dy) { return !x16_range(dx, dy) && std::abs(dx) + std::abs(dy) <= 3; }
  /// funMesh: x first.
  static Move mesh(int dx, int dy) { return dx == 0 ? Move{0, sg(dy)} : Move{sg(dx), 0}; }
  /// The link a node of class k takes toward (dx, dy): funx16, its x2 analogue, and the +8 link
  /// along the larger offset.
  static Move remote(Kind k, int dx, int dy) {
    switch (k) {
      case Kind::x16: return {16 * sg(dx), 16 * sg(dy)};
      case Kind::x2: return {2 * sg(dx), 2 * sg(dy)};
      default: return std::abs(dx) >= std::abs(dy) ? Move{8 * sg(dx), 0} : Move{0, 8 * sg(dy)};
    }
  }
  /// The paper's "Routing for node type x16a", verbatim, in the node's local frame (y mirrored on
  /// odd rows: the reflection y -> 3 - y maps the x16 nodes of odd rows onto those of even rows).
  static Move x16_rule(int y, int dx, int dy) {
    const int s = (y & 1) ? -1 : 1, ly = s * dy;
    if (x16_range(dx + 1, ly)) return {16 * sg(dx), s * 16 * sg(ly)};  // funx16()
    if (std::abs(dx + 1) <= 4 && std::abs(ly) <= 4) {
      if (std::abs(dx) + std::abs(ly) <= 3) return mesh(dx, dy);  // funMesh()
      return dx < -ly ? Move{-1, 0} : Move{0, s};                // to node type x2b / x2c
    }
    return {1, 0};  // to node type +8a
  }
  int n_;
};

}  // namespace

void PeriodicTopology::fill_mxx_paper_routes(unsigned n, Tables& t) {
  const PaperRule rule(static_cast<int>(n));
  const std::size_t nodes = std::size_t{n} * n;
  constexpr std::uint16_t unknown = 0xFFFF, busy = 0xFFFE;
  // State (residue r, offset (ox, oy) in [0, n)^2): index r * nodes + oy * n + ox.
  std::vector<std::uint16_t> route(16 * nodes, unknown);
  auto port_of = [&](unsigned r, Move m) -> int {
    const auto ox = static_cast<unsigned>(((m.x % static_cast<int>(n)) + static_cast<int>(n)) % static_cast<int>(n));
    const auto oy = static_cast<unsigned>(((m.y % static_cast<int>(n)) + static_cast<int>(n)) % static_cast<int>(n));
    for (unsigned p = 0; p < t.max_ports; ++p) {
      const PortLink& l = t.links[r * t.max_ports + p];
      if (l.present && l.ox == ox && l.oy == oy) return static_cast<int>(p);
    }
    return -1;
  };
  unsigned diameter = 0;
  std::vector<std::size_t> chain;
  std::vector<std::uint8_t> chain_port;
  for (std::size_t start = 0; start < route.size(); ++start) {
    if (route[start] != unknown) continue;
    // Follow the rule from `start` until a known state (or the destination), then unwind.
    chain.clear(), chain_port.clear();
    std::size_t s = start;
    unsigned tail = 0;  // route length from the state where the walk stopped
    for (;;) {
      const unsigned r = static_cast<unsigned>(s / nodes);
      const unsigned off = static_cast<unsigned>(s % nodes), ox = off % n, oy = off / n;
      if (ox == 0 && oy == 0) {
        route[s] = 0;
        break;
      }
      if (route[s] == busy)
        throw std::logic_error(fmt::format("mxx route=paper: the route from residue ({},{}) to offset ({},{}) loops (N = {})",
                                           r % 4, r / 4, ox, oy, n));
      if (route[s] != unknown) {
        tail = route[s] >> port_bits;
        break;
      }
      const int x = static_cast<int>(r % 4), y = static_cast<int>(r / 4);
      const Move m = rule.decide(x, y, rule.wrap(static_cast<int>(ox)), rule.wrap(static_cast<int>(oy)));
      const int p = port_of(r, m);
      if (p < 0)
        throw std::logic_error(fmt::format("mxx route=paper: no link ({},{}) at residue ({},{}) (N = {})", m.x, m.y,
                                           x, y, n));
      route[s] = busy;
      chain.push_back(s), chain_port.push_back(static_cast<std::uint8_t>(p));
      const unsigned nr = static_cast<unsigned>(((x + m.x) & 3) + 4 * ((y + m.y) & 3));
      const unsigned nx = static_cast<unsigned>((static_cast<int>(ox) - m.x % static_cast<int>(n) + 2 * static_cast<int>(n)) % static_cast<int>(n));
      const unsigned ny = static_cast<unsigned>((static_cast<int>(oy) - m.y % static_cast<int>(n) + 2 * static_cast<int>(n)) % static_cast<int>(n));
      s = nr * nodes + std::size_t{ny} * n + nx;
    }
    for (std::size_t i = chain.size(); i-- > 0;) {
      ++tail;
      if (tail > max_distance) throw std::logic_error("mxx route=paper: route too long for the table");
      route[chain[i]] = static_cast<std::uint16_t>((tail << port_bits) | chain_port[i]);
      diameter = std::max(diameter, tail);
    }
  }
  t.route = std::move(route);
  t.diameter = diameter;
}

}  // namespace rica
