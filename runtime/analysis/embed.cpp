// Guest graphs embedded in host topologies. See include/rica/embed.hpp.
#include "rica/embed.hpp"
#include "rica/embed_search.hpp"
#include "rica/suggest.hpp"

#include "rica/faults.hpp"

#include "rica/interrupt.hpp"
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

namespace rica {
namespace {

unsigned log2_exact(node_t v) {
  unsigned l = 0;
  while ((node_t{1} << l) < v) ++l;
  return (node_t{1} << l) == v ? l : ~0u;
}

void measure(const Guest& guest, const Topology& host, EmbedResult& r);

std::uint64_t parse_count(std::string_view text, const std::string& what) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size())
    throw usage_error(fmt::format("embed: {} '{}' is not a non-negative integer", what, text));
  return v;
}

}  // namespace

std::vector<std::uint8_t> de_bruijn_sequence(unsigned n) {
  detail::check_range("de_bruijn_sequence", "n", n, 1, 26);
  // Fredricksen-Kessler-Maiorana: the Lyndon words whose length divides n, concatenated in
  // lexicographic order. w[1..n] runs through the pre-necklaces; p is the length of the
  // Lyndon prefix of w.
  std::vector<std::uint8_t> seq, w(n + 1, 0);
  seq.reserve(std::size_t{1} << n);
  unsigned p = 1;
  for (;;) {
    if (n % p == 0) seq.insert(seq.end(), w.begin() + 1, w.begin() + 1 + p);
    unsigned i = n;
    while (i > 0 && w[i] == 1) --i;
    if (i == 0) break;
    w[i] = 1;
    for (unsigned j = i + 1; j <= n; ++j) w[j] = w[j - i];
    p = i;
  }
  return seq;
}

Guest parse_guest(std::string_view spec, node_t host_pes, bool oriented) {
  const auto colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string_view arg = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  Guest g;
  if (name == "ring" || name == "array" || name == "line") {
    g.kind = name == "ring" ? Guest::Kind::ring : Guest::Kind::array;
    const std::uint64_t n = arg.empty() ? host_pes : parse_count(arg, "guest size");
    if (n < (g.kind == Guest::Kind::ring ? 3u : 2u) || n > max_nodes)
      throw usage_error(fmt::format("embed: guest '{}' needs {} to {} nodes (got {})", name,
                                    g.kind == Guest::Kind::ring ? 3 : 2, max_nodes, n));
    g.nodes = static_cast<node_t>(n);
    const node_t edges = g.kind == Guest::Kind::ring ? g.nodes : g.nodes - 1;
    for (node_t i = 0; i < edges; ++i) {
      const node_t j = i + 1 == g.nodes ? 0 : i + 1;
      g.arcs.emplace_back(i, j);
      if (!oriented) g.arcs.emplace_back(j, i);
    }
    g.spec = fmt::format("{}:{}", g.kind == Guest::Kind::ring ? "ring" : "array", g.nodes);
  } else if (name == "tree") {
    g.kind = Guest::Kind::tree;
    const unsigned lp = log2_exact(host_pes);
    const std::uint64_t h = !arg.empty() ? parse_count(arg, "tree height")
                                         : (lp != ~0u && lp >= 1 ? lp - 1 : 0);
    if (h < 1 || h > 25) throw usage_error(fmt::format("embed: guest 'tree' height must be 1..25 (got {})", h));
    g.nodes = static_cast<node_t>((std::uint64_t{2} << h) - 1);
    for (node_t k = 0; 2 * k + 2 < g.nodes; ++k)
      for (node_t c : {2 * k + 1, 2 * k + 2}) {
        g.arcs.emplace_back(k, c);
        if (!oriented) g.arcs.emplace_back(c, k);
      }
    g.spec = fmt::format("tree:{}", h);
    g.height = static_cast<unsigned>(h);
  } else if (name == "double-tree") {
    g.kind = Guest::Kind::double_tree;
    const unsigned lp = log2_exact(host_pes);
    const std::uint64_t h = !arg.empty() ? parse_count(arg, "double-tree height")
                                         : (lp != ~0u && lp >= 3 ? lp - 2 : 0);
    if (h < 1 || h > 24)
      throw usage_error(fmt::format("embed: guest 'double-tree' height must be 1..24 (got {})", h));
    g.height = static_cast<unsigned>(h);
    const node_t leaves = node_t{1} << h, inner = leaves - 1, a_nodes = 2 * leaves - 1;
    g.nodes = a_nodes + inner;  // 3 * 2^H - 2
    // Tree B's heap index i: its own node below 2^H - 1, else the shared leaf (A's node i).
    const auto b_node = [&](node_t i) { return i < inner ? a_nodes + i : i; };
    for (node_t k = 0; k < inner; ++k)
      for (node_t c : {2 * k + 1, 2 * k + 2})
        for (const auto& [u, v] : {std::pair{k, c}, std::pair{b_node(k), b_node(c)}}) {
          g.arcs.emplace_back(u, v);
          if (!oriented) g.arcs.emplace_back(v, u);
        }
    g.spec = fmt::format("double-tree:{}", h);
  } else if (name == "shuffle-exchange") {
    g.kind = Guest::Kind::shuffle_exchange;
    const unsigned lp = log2_exact(host_pes);
    const std::uint64_t n = !arg.empty() ? parse_count(arg, "shuffle-exchange bits") : (lp != ~0u ? lp : 0);
    if (n < 2 || n > 24)
      throw usage_error(fmt::format("embed: guest 'shuffle-exchange' needs 2..24 address bits (got {})", n));
    g.height = static_cast<unsigned>(n);
    g.nodes = node_t{1} << n;
    const node_t mask = g.nodes - 1;
    std::vector<std::pair<node_t, node_t>> arcs;
    for (node_t v = 0; v < g.nodes; ++v) {
      const node_t s = ((v << 1) | (v >> (n - 1))) & mask;  // rotl
      if (s != v) {
        arcs.emplace_back(v, s);
        if (!oriented) arcs.emplace_back(s, v);
      }
      if (!oriented || (v & 1) == 0) arcs.emplace_back(v, v ^ 1);
    }
    std::sort(arcs.begin(), arcs.end());
    arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());  // n = 2: 01 - 10 twice
    g.arcs = std::move(arcs);
    g.spec = fmt::format("shuffle-exchange:{}", n);
  } else if (name == "mesh" || name == "torus") {
    g.kind = name == "mesh" ? Guest::Kind::mesh : Guest::Kind::torus;
    std::uint64_t rows = 0, cols = 0;
    if (arg.empty()) {
      const auto side = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(host_pes)) + 0.5);
      const unsigned lp = log2_exact(host_pes);
      if (side * side == host_pes) {
        rows = cols = side;
      } else if (lp != ~0u) {
        rows = std::uint64_t{1} << ((lp + 1) / 2);
        cols = std::uint64_t{1} << (lp / 2);
      } else {
        throw usage_error(fmt::format("embed: guest '{}' needs a size RxC here (the host's {} PEs are neither a square "
                                      "nor a power of two)", name, host_pes));
      }
    } else {
      const auto x = arg.find('x');
      if (x == std::string_view::npos)
        throw usage_error(fmt::format("embed: guest '{}:{}': give the size as RxC, e.g. {}:8x8", name, arg, name));
      rows = parse_count(arg.substr(0, x), "guest rows");
      cols = parse_count(arg.substr(x + 1), "guest columns");
    }
    const std::uint64_t least = g.kind == Guest::Kind::torus ? 3 : 1;
    if (rows < least || cols < least || rows * cols < 2 || rows * cols > max_nodes)
      throw usage_error(fmt::format("embed: guest '{}' {}x{}: each side at least {} ({}), at most {} nodes in all", name,
                                    rows, cols, least,
                                    g.kind == Guest::Kind::torus ? "smaller sides would double an edge" : "and 2 nodes",
                                    max_nodes));
    g.rows = static_cast<std::uint32_t>(rows);
    g.cols = static_cast<std::uint32_t>(cols);
    g.nodes = static_cast<node_t>(rows * cols);
    const bool wrap = g.kind == Guest::Kind::torus;
    const auto id = [&](std::uint32_t x, std::uint32_t y) { return static_cast<node_t>(x + g.rows * y); };
    for (std::uint32_t y = 0; y < g.cols; ++y)
      for (std::uint32_t x = 0; x < g.rows; ++x) {
        // edges to the +x and +y neighbours (wrapping on a torus): each edge once
        if (x + 1 < g.rows || wrap) {
          g.arcs.emplace_back(id(x, y), id((x + 1) % g.rows, y));
          if (!oriented) g.arcs.emplace_back(id((x + 1) % g.rows, y), id(x, y));
        }
        if (y + 1 < g.cols || wrap) {
          g.arcs.emplace_back(id(x, y), id(x, (y + 1) % g.cols));
          if (!oriented) g.arcs.emplace_back(id(x, (y + 1) % g.cols), id(x, y));
        }
      }
    g.spec = fmt::format("{}:{}x{}", name, g.rows, g.cols);
  } else {
    throw usage_error(fmt::format(
        "embed: unknown guest '{}'{}", name,
        valid_names_tail(name, {"ring", "array", "tree", "double-tree", "shuffle-exchange", "mesh", "torus"},
                         "ring[:N], array[:N], tree[:H], double-tree[:H], shuffle-exchange[:n], mesh[:RxC], torus[:RxC]")));
  }
  if (oriented) g.spec += " (oriented)";
  return g;
}

EmbedMap parse_embed_map(std::string_view name) {
  for (EmbedMap m : {EmbedMap::automatic, EmbedMap::identity, EmbedMap::debruijn, EmbedMap::gray, EmbedMap::product,
                     EmbedMap::search})
    if (to_string(m) == name) return m;
  throw usage_error(fmt::format(
      "embed: --map '{}' is not accepted; accepted values: auto, identity, debruijn, gray, product, search", name));
}

std::string_view to_string(EmbedMap m) noexcept {
  switch (m) {
    case EmbedMap::automatic: return "auto";
    case EmbedMap::identity: return "identity";
    case EmbedMap::debruijn: return "debruijn";
    case EmbedMap::gray: return "gray";
    case EmbedMap::product: return "product";
    case EmbedMap::search: return "search";
  }
  return "?";
}

namespace {
void check_budget(std::uint64_t b) {
  if (b < 1 || b > defaults::embed::search_budget_max)
    throw usage_error(fmt::format("embed: --search-budget {} is out of range [1, {}]", b, defaults::embed::search_budget_max));
}

/// EmbedMap::search on `graph` (the PE graph of `host`, faults applied): the placement when found,
/// measured by `host`'s routing.
EmbedResult searched(const Guest& guest, const Topology& host, const PeGraph& graph, std::uint64_t budget) {
  check_budget(budget);
  EmbedResult r;
  r.guest = guest.spec;
  r.host = host.spec();
  r.map = std::string(to_string(EmbedMap::search));
  r.guest_nodes = guest.nodes;
  r.host_pes = host.pes();
  r.expansion = static_cast<double>(r.host_pes) / guest.nodes;
  const SearchResult s = search_placement(guest, graph, budget);
  r.search = s.status;
  r.search_steps = s.steps;
  r.search_budget = budget;
  r.arcs = guest.arcs.size();
  if (s.status == SearchStatus::found) {
    r.placement = s.placement;
    measure(guest, host, r);
  }
  return r;
}
}  // namespace

EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map, std::uint64_t search_budget) {
  if (map == EmbedMap::search) return searched(guest, host, pe_graph(host), search_budget);
  const node_t P = host.pes();
  if (map == EmbedMap::automatic) {
    // The family's own choice (rica/topology/family.hpp): de Bruijn hosts, the hypercube's Gray code.
    // "linear": a guest the Gray code places with dilation 1 (rings, arrays, and meshes and tori as
    // the product of two Gray codes).
    const bool linear = guest.kind == Guest::Kind::ring || guest.kind == Guest::Kind::array ||
                        guest.kind == Guest::Kind::mesh || guest.kind == Guest::Kind::torus;
    const std::string_view pick = host.auto_embedding(linear);
    map = pick.empty() ? EmbedMap::identity : parse_embed_map(pick);
  }
  EmbedResult r;
  r.guest = guest.spec;
  r.host = host.spec();
  r.map = std::string(to_string(map));
  r.guest_nodes = guest.nodes;
  r.host_pes = P;
  r.placement.resize(guest.nodes);
  const unsigned n = log2_exact(P);
  switch (map) {
    case EmbedMap::search:  // handled above; kept so the switch names every map
    case EmbedMap::automatic:
    case EmbedMap::identity:
      for (node_t i = 0; i < guest.nodes; ++i) r.placement[i] = i % P;
      break;
    case EmbedMap::debruijn: {
      if (n == ~0u || n < 2)
        throw usage_error(fmt::format("embed: --map debruijn needs 2^n PEs (n >= 2); '{}' has {}", r.host, P));
      if (guest.kind == Guest::Kind::tree) {
        // Heap order from 1: node v's children 2v and 2v+1 are its de Bruijn successors.
        if (guest.nodes > P - 1)
          throw usage_error(fmt::format("embed: --map debruijn places a tree of at most {} nodes (height {}) on '{}'",
                                        P - 1, n - 1, r.host));
        for (node_t k = 0; k < guest.nodes; ++k) r.placement[k] = k + 1;
      } else if (guest.kind == Guest::Kind::double_tree) {
        // Tree A in heap order from PE 1: depth-d node of path x on 0^(n-d-1) 1 x, below 2^(n-1).
        // Tree B rooted at R = 1^H 0^(n-H-1) 1: its depth-d node of path x on (R mod 2^(n-d)) x,
        // i.e. 1^(H-d) 0^(n-H-1) 1 x: top bit 1 for d < H (so off tree A), a run of H-d leading
        // ones (so distinct per depth), and at d = H exactly A's leaf 0^(n-H-1) 1 x. Parent to
        // child is a left shift in both trees: every arc is a de Bruijn arc.
        const unsigned H = guest.height;
        if (H + 2 > n)
          throw usage_error(fmt::format("embed: --map debruijn places a double tree of height at most {} ({} nodes) "
                                        "on '{}'", n - 2, 3 * (P / 4) - 2, r.host));
        const node_t leaves = node_t{1} << H, inner = leaves - 1, a_nodes = 2 * leaves - 1;
        for (node_t k = 0; k < a_nodes; ++k) r.placement[k] = k + 1;
        for (node_t i = 0; i < inner; ++i) {
          const unsigned d = static_cast<unsigned>(std::bit_width(i + 1)) - 1;  // depth of heap index i
          const node_t x = (i + 1) - (node_t{1} << d);                        // its path, d bits
          const node_t top = (((node_t{1} << (H - d)) - 1) << (n - H)) | 1;   // 1^(H-d) 0^(n-H-1) 1
          r.placement[a_nodes + i] = (top << d) | x;
        }
      } else if (guest.kind == Guest::Kind::shuffle_exchange) {
        // Node v on PE v: a shuffle v -> rotl(v) is the de Bruijn arc v -> 2v + msb(v); an
        // exchange v -> v^1 is a right shift then a left shift (2 links) on the undirected host.
        if (guest.nodes != P)
          throw usage_error(fmt::format("embed: --map debruijn places a shuffle-exchange graph of exactly {} nodes "
                                        "(shuffle-exchange:{}) on '{}'", P, n, r.host));
        for (node_t v = 0; v < guest.nodes; ++v) r.placement[v] = v;
      } else {
        if (guest.nodes > P)
          throw usage_error(fmt::format("embed: --map debruijn places at most {} ring/array nodes on '{}'", P, r.host));
        const auto seq = de_bruijn_sequence(n);
        node_t w = 0;
        for (unsigned j = 0; j < n; ++j) w = (w << 1) | seq[j];
        for (node_t i = 0; i < guest.nodes; ++i) {
          r.placement[i] = w;
          w = ((w << 1) | seq[(i + n) % P]) & (P - 1);  // the next window
        }
      }
      break;
    }
    case EmbedMap::product: {
      const std::optional<ProductFactors> f = host.product_factors();
      if (!f || !f->first->direct() || !f->second->direct())
        throw usage_error(fmt::format("embed: --map product needs a product of two direct networks as the host, e.g. "
                                      "'product:(ubruijn:5)*(ubruijn:5)'; '{}' is not one", r.host));
      if (guest.kind != Guest::Kind::mesh && guest.kind != Guest::Kind::torus)
        throw usage_error("embed: --map product places a mesh or torus guest (rows on the first factor, columns on "
                          "the second)");
      const node_t n1 = f->first->pes(), n2 = f->second->pes();
      if (guest.rows > n1 || guest.cols > n2)
        throw usage_error(fmt::format("embed: --map product: {} does not fit '{}': at most {}x{}", guest.spec, r.host,
                                      n1, n2));
      // Each side laid on its factor by that factor's own map (a de Bruijn sequence, a Gray code):
      // a linear array for a mesh, a ring for a torus; a side of one node sits on PE 0.
      const auto side = [&](const Topology& factor, std::uint32_t len) {
        if (len < 2) return std::vector<node_t>(len, 0);
        const bool ring = guest.kind == Guest::Kind::torus;
        return embed(parse_guest(fmt::format("{}:{}", ring ? "ring" : "array", len), factor.pes(), false), factor)
            .placement;
      };
      const std::vector<node_t> pa = side(*f->first, guest.rows), pb = side(*f->second, guest.cols);
      for (node_t i = 0; i < guest.nodes; ++i) r.placement[i] = pa[i % guest.rows] + n1 * pb[i / guest.rows];
      break;
    }
    case EmbedMap::gray:
      if (n == ~0u) throw usage_error(fmt::format("embed: --map gray needs 2^n PEs; '{}' has {}", r.host, P));
      if (guest.nodes > P)
        throw usage_error(fmt::format("embed: --map gray places at most {} nodes on '{}'", P, r.host));
      if (guest.kind == Guest::Kind::mesh || guest.kind == Guest::Kind::torus) {
        // The product of two reflected Gray codes: grid neighbours differ in one address bit
        // (also across a torus's wrap-around, gray(2^a - 1) and gray(0) differing in the top bit).
        const unsigned a = log2_exact(guest.rows), b = log2_exact(guest.cols);
        if (a == ~0u || b == ~0u)
          throw usage_error(fmt::format("embed: --map gray places a 2^a x 2^b grid; {} is not", guest.spec));
        for (node_t i = 0; i < guest.nodes; ++i) {
          const node_t x = i % guest.rows, y = i / guest.rows;
          r.placement[i] = (x ^ (x >> 1)) | ((y ^ (y >> 1)) << a);
        }
        break;
      }
      if (guest.kind != Guest::Kind::ring && guest.kind != Guest::Kind::array)
        throw usage_error("embed: --map gray places rings, arrays, meshes and tori, not trees or shuffle-exchange graphs");
      for (node_t i = 0; i < guest.nodes; ++i) r.placement[i] = i ^ (i >> 1);
      break;
  }
  measure(guest, host, r);
  return r;
}

EmbedResult embed(const Guest& guest, const Topology& host, EmbedMap map, const std::string& faults,
                  std::uint64_t seed, std::uint64_t search_budget) {
  if (faults.empty()) return embed(guest, host, map, search_budget);
  const FaultSpec spec = parse_fault_spec(faults);  // once: the check and the faults below
  if (spec.at) throw usage_error("embed: --faults at=CYCLE does not apply (an embedding is static); drop at=");
  const Topology faulty = with_faults(host, spec, seed);
  const std::vector<node_t> failed = failed_nodes(faulty);
  if (map == EmbedMap::search) {
    // The faulty network's live PEs and links, as they are: nothing moves, nothing rotates.
    EmbedResult r = searched(guest, faulty, pe_graph(faulty, failed), search_budget);
    r.faults = faults;
    r.failed_pes = static_cast<std::uint32_t>(failed.size());
    return r;
  }
  std::vector<std::uint8_t> dead(host.pes(), 0);
  for (node_t v : failed)
    if (v < host.pes()) dead[v] = 1;
  // Every guest node on a failed PE moves to the next live PE in address order (cyclic).
  const auto replace = [&](EmbedResult& r) {
    r.faults = faults;
    r.host = faulty.spec();
    r.failed_pes = static_cast<std::uint32_t>(failed.size());
    r.moved = 0;
    for (node_t& pe : r.placement)
      if (dead[pe]) {
        node_t next = pe;
        do next = next + 1 == host.pes() ? 0 : next + 1;
        while (dead[next]);  // with_faults leaves live PEs, so this ends
        pe = next;
        ++r.moved;
      }
    measure(guest, faulty, r);
  };
  EmbedResult best = embed(guest, host, map);  // placed (and measured) on the intact host
  const std::vector<node_t> intact = best.placement;
  replace(best);
  // A ring or array placed along a Hamiltonian cycle of the host (its map's placement of ring:P)
  // may start anywhere on it: every rotation is tried and the best kept (fewest guest nodes moved,
  // then the lowest dilation, congestion, mean dilation, rotation).
  const bool linear = guest.kind == Guest::Kind::ring || guest.kind == Guest::Kind::array;
  const node_t P = host.pes();
  if (linear && P >= 3 && guest.nodes <= P) {
    const Guest cycle_guest = parse_guest(fmt::format("ring:{}", P), P, true);
    const std::vector<node_t> cycle = embed(cycle_guest, host, map).placement;
    const bool along = std::equal(intact.begin(), intact.end(), cycle.begin()) &&
                       std::set<node_t>(cycle.begin(), cycle.end()).size() == P;
    if (along) {
      const auto key = [](const EmbedResult& r) {
        return std::tuple{r.moved, r.dilation, r.congestion, r.mean_dilation, r.rotation};
      };
      for (node_t k = 1; k < P; ++k) {
        EmbedResult r = best;
        r.rotation = k;
        for (node_t i = 0; i < guest.nodes; ++i) r.placement[i] = cycle[(i + k) % P];
        replace(r);
        if (key(r) < key(best)) best = std::move(r);
      }
    }
  }
  return best;
}

EmbedResult embed_every_fault(const Guest& guest, const Topology& host, const std::string& faults,
                              std::uint64_t search_budget) {
  const FaultSpec spec = parse_fault_spec(faults);
  if (!spec.file.empty() || spec.at || spec.links + spec.nodes != 1)
    throw usage_error(fmt::format("embed: --every-fault tries every single fault: give --faults links=1 or --faults "
                                  "nodes=1 (got '{}')", faults));
  check_budget(search_budget);
  EmbedResult r;
  r.guest = guest.spec;
  r.host = host.spec();
  r.map = std::string(to_string(EmbedMap::search));
  r.guest_nodes = guest.nodes;
  r.host_pes = host.pes();
  r.arcs = guest.arcs.size();
  r.expansion = static_cast<double>(r.host_pes) / guest.nodes;
  r.faults = spec.text();
  r.search_budget = search_budget;
  r.every_fault = search_every_fault(guest, host, spec.links == 1, search_budget);
  r.search_steps = r.every_fault->steps_total;
  return r;
}

namespace {

// Load, expansion, and every guest arc routed on `host` from r.placement: dilation and congestion.
void measure(const Guest& guest, const Topology& host, EmbedResult& r) {
  const node_t P = host.pes();
  std::vector<unsigned> per_pe(P, 0);
  r.load = 0;
  for (node_t pe : r.placement) r.load = std::max(r.load, ++per_pe[pe]);
  r.expansion = static_cast<double>(P) / guest.nodes;
  r.dilation = 0;
  r.congestion = 0;

  // Route every guest arc; count guest arcs per host channel (node, out-port).
  const port_t ports = host.ports();
  std::vector<std::uint32_t> use(std::size_t{host.nodes()} * ports, 0);
  std::uint64_t total = 0;
  host.visit([&](const auto& t) {
    std::size_t arc = 0;
    for (const auto& [u, v] : guest.arcs) {
      if ((arc++ & 4095) == 0) check_interrupt();  // rica/interrupt.hpp: once per 4,096 arcs
      const node_t s = r.placement[u], d = r.placement[v];
      node_t cur = s;
      class_t cls = 0;
      unsigned hops = 0;
      for (;;) {
        const Hop h = t.route(cur, d, cls);
        if (h.delivers()) break;
        const Link l = t.out_link(cur, h.port());
        if (!l.present() || ++hops > t.nodes())
          throw std::logic_error(fmt::format("embed: routing of '{}' is broken at node {} ({} -> {})", r.host, cur, s, d));
        ++use[std::size_t{cur} * ports + h.port()];
        cur = l.peer;
        cls = h.next_class();
      }
      r.dilation = std::max(r.dilation, hops);
      total += hops;
    }
  });
  r.arcs = guest.arcs.size();
  r.mean_dilation = r.arcs ? static_cast<double>(total) / static_cast<double>(r.arcs) : 0.0;
  for (auto c : use) r.congestion = std::max<unsigned>(r.congestion, c);
}

}  // namespace

nlohmann::json to_json(const EmbedResult& r) {
  nlohmann::json j{{"guest", r.guest},         {"host", r.host},         {"map", r.map},
                        {"guest_nodes", r.guest_nodes}, {"host_pes", r.host_pes}, {"arcs", r.arcs},
                        {"dilation", r.dilation},   {"mean_dilation", r.mean_dilation},
                        {"congestion", r.congestion}, {"load", r.load},       {"expansion", r.expansion},
                        {"faults", r.faults},       {"failed_pes", r.failed_pes}, {"moved", r.moved},
                        {"rotation", r.rotation}};
  if (!r.placed())  // a search without a placement: no figures to show
    for (const char* k : {"dilation", "mean_dilation", "congestion", "load"}) j[k] = nullptr;
  if (r.search) {
    j["search"] = to_string(*r.search);
  } else if (r.every_fault) {
    j["search"] = nullptr;
  }
  if (r.search || r.every_fault) {
    j["search_steps"] = r.search_steps;
    j["search_budget"] = r.search_budget;
  }
  if (r.every_fault) {
    const EveryFaultResult& e = *r.every_fault;
    nlohmann::json missing = nlohmann::json::array();
    for (const auto& [what, st] : e.missing) missing.push_back({{"fault", what}, {"search", to_string(st)}});
    j["every_fault"] = {{"kind", e.kind},         {"faults", e.faults},       {"found", e.found},
                        {"none", e.none},         {"gave_up", e.gave_up},     {"repaired", e.repaired},
                        {"steps_max", e.steps_max}, {"steps_total", e.steps_total}, {"budget", e.budget},
                        {"missing", missing}};
  }
  return j;
}

}  // namespace rica
