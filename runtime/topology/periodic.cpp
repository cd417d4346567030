// Periodic tori: M_{x+x} (docs/topologies.md) and the Manhattan street network, with
#include "family_util.hpp"
// table-driven minimal routing built by BFS from one node per residue class.
#include "rica/topology/periodic.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>

namespace rica {

namespace {

using Offsets = std::vector<std::vector<std::pair<int, int>>>;

/// Threads for_each_residue uses for `count` residues.
unsigned residue_workers(unsigned count, bool parallel) {
  return parallel ? std::min(count, std::max(1u, std::thread::hardware_concurrency())) : 1u;
}

/// Runs f(r) for r in [0, count) on up to hardware_concurrency threads (serially for small work).
template <class F>
void for_each_residue(unsigned count, bool parallel, F&& f) {
  const unsigned workers = residue_workers(count, parallel);
  if (workers <= 1) {
    for (unsigned r = 0; r < count; ++r) f(r);
    return;
  }
  std::atomic<unsigned> next{0};
  std::vector<std::thread> pool;
  pool.reserve(workers);
  for (unsigned w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      for (unsigned r; (r = next.fetch_add(1)) < count;) f(r);
    });
  for (auto& t : pool) t.join();
}

/// Builds the tables. `symmetric`: every link has its reverse and the in-port of a link is the
/// index of the reverse offset in the peer's list; otherwise the in-port equals the out-port.
std::shared_ptr<PeriodicTopology::Tables> build(unsigned nx, unsigned ny, unsigned px, unsigned py,
                                                      const Offsets& raw, bool symmetric, std::string spec,
                                                      bool vertex_transitive) {
  using T = PeriodicTopology;
  auto t = std::make_shared<T::Tables>();
  t->spec = std::move(spec);
  t->vertex_transitive = vertex_transitive;
  const unsigned residues = px * py;
  const std::size_t n = std::size_t{nx} * ny;
  auto res_of = [&](unsigned x, unsigned y) { return (x % px) + px * (y % py); };

  // Normalise offsets, drop self-loops, merge duplicates (first occurrence keeps its port).
  std::vector<std::vector<std::pair<unsigned, unsigned>>> norm(residues);
  t->offsets.resize(residues);
  for (unsigned r = 0; r < residues; ++r) {
    for (auto [dx, dy] : raw[r]) {
      const auto ox = static_cast<unsigned>(((dx % static_cast<int>(nx)) + static_cast<int>(nx)) % static_cast<int>(nx));
      const auto oy = static_cast<unsigned>(((dy % static_cast<int>(ny)) + static_cast<int>(ny)) % static_cast<int>(ny));
      if (ox == 0 && oy == 0) continue;
      if (std::find(norm[r].begin(), norm[r].end(), std::pair{ox, oy}) != norm[r].end()) continue;
      norm[r].emplace_back(ox, oy);
      t->offsets[r].emplace_back(dx, dy);
    }
    t->max_ports = std::max(t->max_ports, static_cast<unsigned>(norm[r].size()));
  }
  if (t->max_ports > (1u << T::port_bits)) throw std::logic_error("periodic: too many ports");

  t->in_port.resize(residues);
  t->links.assign(std::size_t{residues} * t->max_ports, T::PortLink{});
  for (unsigned r = 0; r < residues; ++r) {
    const unsigned rx = r % px, ry = r / px;
    for (std::size_t p = 0; p < norm[r].size(); ++p) {
      const auto [ox, oy] = norm[r][p];
      port_t in = static_cast<port_t>(p);
      if (symmetric) {
        const auto& peer = norm[res_of(rx + ox, ry + oy)];
        const std::pair back{(nx - ox) % nx, (ny - oy) % ny};
        const auto it = std::find(peer.begin(), peer.end(), back);
        if (it == peer.end()) throw std::logic_error("periodic: link without its reverse");
        in = static_cast<port_t>(it - peer.begin());
      }
      t->in_port[r].push_back(in);
      t->links[r * t->max_ports + p] =
          T::PortLink{static_cast<std::uint16_t>(ox), static_cast<std::uint16_t>(oy), in, true};
    }
  }

  // Phase 1: BFS from each residue's representative (rx, ry), in offset coordinates.
  constexpr std::uint16_t unseen = 0xFFFF;
  const bool parallel = n >= (std::size_t{1} << 16);
  // The table (2 bytes per residue and offset) and a BFS queue per worker, refused before either
  // is allocated (issue 28).
  const double cells = static_cast<double>(residues) * static_cast<double>(n);
  require_memory(fmt::format("the routing table of {}", t->spec),
                 2.0 * cells + 4.0 * static_cast<double>(n) * residue_workers(residues, parallel),
                 "choose a smaller network");
  t->route.assign(residues * n, unseen);
  for_each_residue(residues, parallel, [&](unsigned r) {
    const unsigned rx = r % px, ry = r / px;
    std::uint16_t* d = t->route.data() + r * n;
    std::vector<std::uint32_t> queue(n);
    std::size_t head = 0, tail = 0;
    d[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
      const std::uint32_t q = queue[head++];
      const unsigned ox = q & 0xFFFFu, oy = q >> 16;
      const auto dn = static_cast<std::uint16_t>(d[std::size_t{oy} * nx + ox] + 1);
      for (auto [ax, ay] : norm[res_of(rx + ox, ry + oy)]) {
        unsigned qx = ox + ax, qy = oy + ay;
        if (qx >= nx) qx -= nx;
        if (qy >= ny) qy -= ny;
        std::uint16_t& e = d[std::size_t{qy} * nx + qx];
        if (e == unseen) {
          e = dn;
          queue[tail++] = qx | (qy << 16);
        }
      }
    }
  });
  unsigned diameter = 0;
  for (std::uint16_t e : t->route) {
    if (e == unseen) throw std::logic_error("periodic: network is not strongly connected");
    diameter = std::max<unsigned>(diameter, e);
  }
  if (diameter > T::max_distance) throw std::logic_error("periodic: diameter too large for the table");
  t->diameter = diameter;

  // Phase 2: next port = lowest out-port whose neighbour is one hop closer. dist(u, w) =
  // dist_{res(u)}[w - u] by translation by multiples of the period. Entries of other residues are
  // read while their owners write the port bits (not the distance bits): atomic_ref, relaxed.
  for_each_residue(residues, parallel, [&](unsigned r) {
    std::uint16_t* base = t->route.data();
    for (std::size_t i = r * n; i < (r + 1) * n; ++i) base[i] = static_cast<std::uint16_t>(base[i] << T::port_bits);
  });
  for_each_residue(residues, parallel, [&](unsigned r) {
    const unsigned rx = r % px, ry = r / px;
    std::uint16_t* base = t->route.data();
    const std::size_t ports = norm[r].size();
    std::vector<std::uint16_t*> peer(ports);
    for (std::size_t p = 0; p < ports; ++p) peer[p] = base + res_of(rx + norm[r][p].first, ry + norm[r][p].second) * n;
    std::uint16_t* own = base + r * n;
    for (unsigned ty = 0; ty < ny; ++ty)
      for (unsigned tx = 0; tx < nx; ++tx) {
        const std::size_t idx = std::size_t{ty} * nx + tx;
        std::atomic_ref<std::uint16_t> cell(own[idx]);
        const unsigned dist = cell.load(std::memory_order_relaxed) >> T::port_bits;
        if (dist == 0) continue;
        for (std::size_t p = 0; p < ports; ++p) {
          const auto [ox, oy] = norm[r][p];
          const unsigned sx = tx >= ox ? tx - ox : tx + nx - ox;
          const unsigned sy = ty >= oy ? ty - oy : ty + ny - oy;
          std::atomic_ref<std::uint16_t> other(peer[p][std::size_t{sy} * nx + sx]);
          if (static_cast<unsigned>(other.load(std::memory_order_relaxed) >> T::port_bits) + 1 == dist) {
            cell.store(static_cast<std::uint16_t>((dist << T::port_bits) | p), std::memory_order_relaxed);
            break;
          }
        }
      }
  });
  return t;
}

}  // namespace

PeriodicTopology::PeriodicTopology(unsigned nx, unsigned ny, unsigned px, unsigned py,
                                   std::shared_ptr<const Tables> t)
    : nx_(nx),
      ny_(ny),
      px_(px),
      py_(py),
      div_(nx),
      max_ports_(static_cast<port_t>(t->max_ports)),
      diameter_(static_cast<class_t>(t->diameter)),
      links_(t->links.data()),
      table_(t->route.data()),
      t_(std::move(t)) {}

PeriodicTopology PeriodicTopology::mxx(unsigned n, MxxRoute route) {
  detail::check_range("mxx", "N", n, 8, 4096);
  if (route == MxxRoute::paper && n > 1024)
    throw usage_error(fmt::format("mxx: parameter 'route' = paper needs N <= 1024 (got N = {})", n));
  if (n % 4 != 0) throw usage_error(fmt::format("mxx: parameter 'N' = {} must be a multiple of 4", n));
  detail::check_node_count("mxx", std::uint64_t{n} * n);
  Offsets raw(16);
  for (unsigned r = 0; r < 16; ++r) {
    const unsigned x = r % 4, y = r / 4;
    auto& o = raw[r];
    o = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    if ((x == 0 && (y == 0 || y == 3)) || (x == 2 && (y == 1 || y == 2)))  // "+8" node
      o.insert(o.end(), {{8, 0}, {-8, 0}, {0, 8}, {0, -8}});
    else if ((x == 3 && (y == 0 || y == 3)) || (x == 1 && (y == 1 || y == 2)))  // "x16" node
      o.insert(o.end(), {{16, 16}, {-16, 16}, {16, -16}, {-16, -16}});
    else  // "x2" node
      o.insert(o.end(), {{2, 2}, {-2, 2}, {2, -2}, {-2, -2}});
  }
  auto t = build(n, n, 4, 4, raw, true,
                 route == MxxRoute::paper ? fmt::format("mxx:N={},route=paper", n) : fmt::format("mxx:N={}", n),
                 false);
  if (route == MxxRoute::paper) fill_mxx_paper_routes(n, *t);
  return PeriodicTopology(n, n, 4, 4, std::move(t));
}

PeriodicTopology PeriodicTopology::msn(unsigned rows, unsigned cols) {
  detail::check_range("msn", "rows", rows, 4, 4096);
  detail::check_range("msn", "cols", cols, 4, 4096);
  if (rows % 2 != 0) throw usage_error(fmt::format("msn: parameter 'rows' = {} must be even", rows));
  if (cols % 2 != 0) throw usage_error(fmt::format("msn: parameter 'cols' = {} must be even", cols));
  detail::check_node_count("msn", std::uint64_t{rows} * cols);
  Offsets raw(4);
  for (unsigned r = 0; r < 4; ++r) {
    const unsigned x = r % 2, y = r / 2;
    raw[r] = {{y == 0 ? 1 : -1, 0}, {0, x == 0 ? 1 : -1}};
  }
  // Vertex-transitive: translations by (2, 0) and (0, 2), and the automorphisms
  // (x, y) -> (x + 1, -y) and (x, y) -> (-x, y + 1) (checked in tests/test_periodic.cpp).
  return PeriodicTopology(cols, rows, 2, 2,
                          build(cols, rows, 2, 2, raw, false, fmt::format("msn:{}x{}", rows, cols), true));
}

std::string PeriodicTopology::label(node_t v) const { return fmt::format("({},{})", v % nx_, v / nx_); }


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

using detail::size_of;

Topology make_mxx(const SpecArgs& a) {
  return PeriodicTopology::mxx(a.uint("N"), a.choice("route", {"minimal", "paper"}) == 1 ? MxxRoute::paper
                                                                                       : MxxRoute::minimal);
}
Topology make_msn(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  if (s.size() != 2) throw usage_error(fmt::format("msn: parameter 'shape' = '{}' must be RxC", a.text("shape")));
  return PeriodicTopology::msn(s[0], s[1]);
}
TopologySize size_mxx(const SpecArgs& a) {
  const unsigned n = a.uint("N");
  detail::check_range("mxx", "N", n, 8, 4096);  // PeriodicTopology::mxx's bounds, refused first
  const double nodes = static_cast<double>(n) * n;
  return {nodes, nodes, 8, 1};  // 8 ports: 4 torus links, 4 bypass links; classes: the table's diameter
}
TopologySize size_msn(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  if (s.size() != 2) return size_of(make_msn(a));  // make_msn says why
  detail::check_range("msn", "rows", s[0], 4, 4096);  // PeriodicTopology::msn's bounds, refused first
  detail::check_range("msn", "cols", s[1], 4, 4096);
  const double n = static_cast<double>(s[0]) * s[1];
  return {n, n, 2, 1};
}

}  // namespace

std::vector<TopologyEntry> PeriodicTopology::registry_entries() {
  return {
      {"mxx", "M_{x+x}: N x N torus with recursive bypass tori; table routing", "mxx:32",
       {{"N", "multiple of 4, 8..4096", "", "side of the torus"},
        {"route", "minimal|paper", "minimal",
         "minimal = shortest paths; paper = the paper's own rule (its 2.2, generalised; N <= 1024)"}},
       "N", make_mxx, size_mxx, Drawing::grid},
      {"msn", "Manhattan street network (unidirectional, alternating)", "msn:32x32",
       {{"shape", "RxC, both even, >= 4", "", "rows x columns"}}, "shape", make_msn, size_msn, Drawing::grid},
  };
}

}  // namespace rica
