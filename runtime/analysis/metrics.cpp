// Static and routed measures of a topology. See include/rica/metrics.hpp.
#include "rica/metrics.hpp"

#include "rica/interrupt.hpp"
#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "rica/graph.hpp"
#include "../machine/tsan.hpp"

namespace rica {
namespace {

struct Source {
  node_t node;
  std::uint64_t units;  // how many sources this one stands for, in the plan's unit (integers: the sums are exact)
};

struct PerSource {
  std::uint64_t sum_dist = 0, sum_routed = 0;
  std::uint32_t max_dist = 0, max_routed = 0;
};

struct Local {
  std::vector<std::uint32_t> dist;
  std::vector<node_t> queue;
  std::vector<std::uint64_t> visits;  // per slot, in weight units (integers: the sum is the same for any split)
  unsigned max_class = 0;
};

[[noreturn]] void routing_error(const std::string& spec, const std::string& what, node_t s, node_t d) {
  throw std::logic_error(fmt::format("routing of '{}' is broken: {} (route {} -> {})", spec, what, s, d));
}

/// BFS distances and routed paths from every source; `slot(v)` maps a node to its relay slot.
template <TopologyModel T, class SlotFn>
void trace_sources(const T& t, const Graph& g, const std::vector<Source>& sources, std::size_t slots, SlotFn slot,
                   std::vector<PerSource>& per_source, std::vector<std::uint64_t>& visits, unsigned& max_class) {
  const node_t pes = t.pes(), nodes = t.nodes();
  const class_t classes = t.buffer_classes();
  const std::string spec = t.spec();
  tbb::enumerable_thread_specific<Local> locals([&] {
    Local l;
    l.visits.assign(slots, 0);
    return l;
  });
  const auto body = [&](std::size_t si) {
    check_interrupt();  // rica/interrupt.hpp: once per source
    Local& L = locals.local();
    const node_t s = sources[si].node;
    const std::uint64_t w = sources[si].units;
    bfs(g, s, L.dist, L.queue);
    PerSource ps;
    for (node_t d = 0; d < pes; ++d) {
      if (d == s) continue;
      const std::uint32_t dd = L.dist[d];
      if (dd == unreachable)
        throw usage_error(fmt::format("'{}': PE {} cannot reach PE {}; the network is not strongly connected", spec, s, d));
      ps.sum_dist += dd;
      ps.max_dist = std::max(ps.max_dist, dd);
      node_t cur = s;
      class_t cls = 0;
      std::uint32_t hops = 0;
      while (true) {
        const Hop h = t.route(cur, d, cls);
        if (h.delivers()) {
          if (cur != d) routing_error(spec, fmt::format("delivered at node {}", cur), s, d);
          break;
        }
        const Link l = t.out_link(cur, h.port());
        if (!l.present()) routing_error(spec, fmt::format("absent port {} at node {}", h.port(), cur), s, d);
        if (h.next_class() >= classes)
          routing_error(spec, fmt::format("class {} >= buffer_classes {}", h.next_class(), classes), s, d);
        L.max_class = std::max<unsigned>(L.max_class, h.next_class());
        cur = l.peer;
        cls = h.next_class();
        if (++hops > nodes) routing_error(spec, "routing loop", s, d);
        if (cur != d) L.visits[slot(cur)] += w;
      }
      if (hops < dd) routing_error(spec, "route shorter than the shortest path", s, d);
      ps.sum_routed += hops;
      ps.max_routed = std::max(ps.max_routed, hops);
    }
    per_source[si] = ps;
  };
  detail::TsanLoop tsan;  // runtime/machine/tsan.hpp
  tbb::parallel_for(std::size_t{0}, sources.size(), tsan.fork(body));
  tsan.join();
  visits.assign(slots, 0);
  max_class = 0;
  for (const Local& L : locals) {
    for (std::size_t k = 0; k < slots; ++k) visits[k] += L.visits[k];
    max_class = std::max(max_class, L.max_class);
  }
}

/// Links per node (a bidirectional pair of arcs counts once) from the loop-free graph.
std::vector<std::uint32_t> link_degrees(const Graph& g, const Graph& rev) {
  std::vector<std::uint32_t> deg(g.nodes, 0);
  std::vector<node_t> out, in;
  for (node_t v = 0; v < g.nodes; ++v) {
    out.assign(g.target.begin() + g.first[v], g.target.begin() + g.first[v + 1]);
    in.assign(rev.target.begin() + rev.first[v], rev.target.begin() + rev.first[v + 1]);
    std::sort(out.begin(), out.end());
    std::sort(in.begin(), in.end());
    std::size_t i = 0, j = 0;
    std::uint32_t total = 0;
    while (i < out.size() || j < in.size()) {
      const node_t w = std::min(i < out.size() ? out[i] : no_node, j < in.size() ? in[j] : no_node);
      std::uint32_t co = 0, ci = 0;
      while (i < out.size() && out[i] == w) ++i, ++co;
      while (j < in.size() && in[j] == w) ++j, ++ci;
      total += std::max(co, ci);
    }
    deg[v] = total;
  }
  return deg;
}

/// BFS reachability of all PEs from `root`, skipping one arc (from -> to, first occurrence).
bool reaches_all_skipping(const Graph& g, node_t pes, node_t root, node_t from, node_t to) {
  std::vector<std::uint8_t> seen(g.nodes, 0);
  std::vector<node_t> q{root};
  seen[root] = 1;
  for (std::size_t h = 0; h < q.size(); ++h) {
    const node_t u = q[h];
    bool skipped = false;
    for (auto i = g.first[u]; i < g.first[u + 1]; ++i) {
      const node_t v = g.target[i];
      if (u == from && v == to && !skipped) {
        skipped = true;
        continue;
      }
      if (!seen[v]) {
        seen[v] = 1;
        q.push_back(v);
      }
    }
  }
  for (node_t v = 0; v < pes; ++v)
    if (!seen[v]) return false;
  return true;
}

/// A simple undirected network: every arc u -> v has its reverse v -> u, and no two arcs
/// join the same pair (the loop-free graph has no self-loops).
bool simple_undirected(const Graph& g, const Graph& rev) {
  std::vector<node_t> out, in;
  for (node_t v = 0; v < g.nodes; ++v) {
    out.assign(g.target.begin() + g.first[v], g.target.begin() + g.first[v + 1]);
    in.assign(rev.target.begin() + rev.first[v], rev.target.begin() + rev.first[v + 1]);
    std::sort(out.begin(), out.end());
    std::sort(in.begin(), in.end());
    if (out != in || std::adjacent_find(out.begin(), out.end()) != out.end()) return false;
  }
  return true;
}

/// Edge connectivity and minimum degree of an undirected connected network.
struct Connectivity {
  unsigned lambda = 0, delta = 0;
  std::string how;
};

std::optional<Connectivity> product_connectivity(const Topology& t, const MetricsOptions& opt);

std::optional<Connectivity> factor_connectivity(const Topology& t, const MetricsOptions& opt) {
  if (auto c = product_connectivity(t, opt)) return c;
  const Graph g = build_graph(t);
  const Graph rev = g.reversed();
  if (!simple_undirected(g, rev)) return std::nullopt;
  const FaultTolerance ft = edge_connectivity(t, opt);
  if (ft.method.rfind("upper bound", 0) == 0 || ft.value == 0) return std::nullopt;
  unsigned delta = ~0u;
  for (node_t v = 0; v < t.pes(); ++v) delta = std::min(delta, g.first[v + 1] - g.first[v]);
  return Connectivity{ft.value, delta, t.spec()};
}

/// Xu and Yang (Discrete Math. 306, 2006): for connected simple undirected G1, G2 with at least
/// two nodes each, lambda(G1 x G2) = min(lambda1 N2, lambda2 N1, delta1 + delta2), and the minimum
/// degrees add. A mesh is the product of paths (lambda = delta = 1).
std::optional<Connectivity> product_connectivity(const Topology& t, const MetricsOptions& opt) {
  auto combine_c = [](const Connectivity& a, double n1, const Connectivity& b, double n2) {
    const double l = std::min({a.lambda * n2, b.lambda * n1, static_cast<double>(a.delta + b.delta)});
    return Connectivity{static_cast<unsigned>(l), a.delta + b.delta, ""};
  };
  // A family's forms (rica/topology/family.hpp): a grid of paths, or a product of two topologies.
  if (const auto g = t.grid_form(); g && !g->wrap && g->decompose != GridForm::Decompose::never) {
    const Shape& s = g->sides;
    Connectivity acc{1, 1, ""};
    double n = s[0];
    for (std::size_t i = 1; i < s.size(); ++i) {
      acc = combine_c(acc, n, Connectivity{1, 1, ""}, s[i]);
      n *= s[i];
    }
    acc.how = "paths";
    return acc;
  }
  if (const auto p = t.product_factors()) {
    if (p->first->pes() < 2 || p->second->pes() < 2) return std::nullopt;
    const auto a = factor_connectivity(*p->first, opt);
    if (!a) return std::nullopt;
    const auto b = factor_connectivity(*p->second, opt);
    if (!b) return std::nullopt;
    Connectivity r = combine_c(*a, p->first->pes(), *b, p->second->pes());
    r.how = fmt::format("{} x {}", a->how, b->how);
    return r;
  }
  return std::nullopt;
}

}  // namespace

FaultTolerance edge_connectivity(const Topology& t, const MetricsOptions& opt) {
  const Graph g = build_graph(t);
  const Graph rev = g.reversed();
  const node_t pes = t.pes();
  if (pes < 2) return {0, "single PE"};
  if (!strongly_connected_pes(g, rev, pes)) return {0, "not strongly connected"};
  unsigned delta = ~0u;
  for (node_t v = 0; v < pes; ++v)
    delta = std::min({delta, g.first[v + 1] - g.first[v], rev.first[v + 1] - rev.first[v]});
  if (delta <= 1) return {delta, "min degree (strongly connected, so exact)"};
  if (opt.decompose && !opt.force_all_pairs) {
    if (const auto c = product_connectivity(t, opt))
      return {c->lambda, fmt::format("product theorem (Xu-Yang): min(l1 N2, l2 N1, d1 + d2) over {}", c->how)};
  }
  if (t.vertex_transitive() && t.direct() && !opt.force_all_pairs) return {delta, "vertex-transitive: equals min degree (Mader/Hamidoune)"};
  const std::uint64_t flow_work = std::uint64_t{pes} * delta * (g.arcs() + g.nodes);
  if (flow_work <= opt.flow_work_limit) {
    // Schnorr: over a cyclic order of the PEs, the smallest max-flow between neighbours in the
    // order is the smallest arc cut separating any two PEs.
    std::atomic<unsigned> best{delta};
    tbb::enumerable_thread_specific<UnitFlow> flows([&] { return UnitFlow(g); });
    const auto body = [&](node_t i) {
      check_interrupt();
      const unsigned cap = best.load(std::memory_order_relaxed);
      const unsigned f = flows.local().max_flow(i, (i + 1) % pes, cap);
      unsigned cur = best.load();
      while (f < cur && !best.compare_exchange_weak(cur, f)) {
      }
    };
    detail::TsanLoop tsan;  // runtime/machine/tsan.hpp
    tbb::parallel_for(node_t{0}, pes, tsan.fork(body));
    tsan.join();
    return {best.load(), "max-flow (Schnorr cyclic order)"};
  }
  if (delta == 2 && t.orbit_count() > 0 && t.direct()) {
    // lambda >= 2 iff no single arc disconnects; the symmetry maps every arc onto an arc that
    // leaves an orbit representative.
    for (std::uint32_t k = 0; k < t.orbit_count(); ++k) {
      const node_t r = t.orbit_rep(k);
      for (auto i = g.first[r]; i < g.first[r + 1]; ++i) {
        if (!reaches_all_skipping(g, pes, r, r, g.target[i]) || !reaches_all_skipping(rev, pes, r, g.target[i], r))
          return {1, "bridge search over arc orbits"};
      }
    }
    return {2, "bridge search over arc orbits: no bridge, equals min degree 2"};
  }
  return {delta, "upper bound: min degree (too large for max-flow)"};
}

namespace {

/// Distance and relay figures over ordered pairs of distinct PEs, in the reported unit (links,
/// or switches traversed for indirect networks).
struct PairFigures {
  double pes = 0;                  // N
  double sum_d = 0, sum_r = 0;     // shortest / routed distance sums
  unsigned diam = 0, rdiam = 0;    // shortest / routed diameters
  double relay_total = 0;          // relay counts summed over the router nodes
  double relay_max = 0;
  double routers = 0;              // router nodes (PEs when direct)
  unsigned max_class = 0;          // largest class the examined routes used
  std::string method, detail;
  std::string how;                 // short: "exact-symmetry", "closed form", "(a) x (b)"
  unsigned sources = 0;
  std::uint64_t seed = 0;
  double err_d = 0, err_r = 0;     // sampled: 3-sigma bounds of the means
};

/// Which sources tracing would use: one per orbit, every PE, or a sample (the work budget).
struct SourcePlan {
  double per_source_work = 0;  // one BFS plus N routes of about the mean distance
  bool symmetric = false, all_pairs = false;
};

SourcePlan plan_sources(const Topology& topo, const Graph& g, const MetricsOptions& opt) {
  const node_t N = topo.pes();
  double mean0 = 0;  // estimated from PE 0
  {
    std::vector<std::uint32_t> dist;
    std::vector<node_t> queue;
    bfs(g, 0, dist, queue);
    for (node_t v = 1; v < N; ++v) mean0 += dist[v];
    mean0 = std::max(1.0, mean0 / (N - 1));
  }
  SourcePlan p;
  p.per_source_work = static_cast<double>(g.arcs() + g.nodes) + N * mean0;
  const double limit = static_cast<double>(opt.exact_work_limit);
  std::uint32_t pe_orbits = 0;
  if (topo.orbit_count() > 0)
    for (std::uint32_t o = 0; o < topo.orbit_count(); ++o) pe_orbits += topo.orbit_rep(o) < N ? 1 : 0;
  p.symmetric = topo.orbit_count() > 0 && !opt.force_all_pairs && pe_orbits * p.per_source_work <= limit;
  p.all_pairs = !p.symmetric && (opt.force_all_pairs || N * p.per_source_work <= limit);
  return p;
}

/// BFS and routes from every source of the chosen method (symmetry, all pairs or a sample).
PairFigures traced_figures(const Topology& topo, const Graph& g, const MetricsOptions& opt) {
  PairFigures f;
  const std::string spec = topo.spec();
  const node_t N = topo.pes(), nodes = topo.nodes();
  const bool direct = topo.direct();
  const node_t r_begin = direct ? 0 : N, r_end = direct ? N : nodes;
  f.pes = N;
  f.routers = r_end - r_begin;
  std::vector<Source> sources;
  double unit = 1.0;  // sources stood for per Source::units
  const SourcePlan plan = plan_sources(topo, g, opt);
  const double per_source_work = plan.per_source_work;
  const bool symmetric = plan.symmetric;
  std::vector<double> slot_size;
  if (symmetric) {
    const std::uint32_t k = topo.orbit_count();
    slot_size.assign(k, 0.0);
    for (node_t v = 0; v < nodes; ++v) slot_size[topo.orbit(v)] += 1.0;
    for (std::uint32_t o = 0; o < k; ++o) {
      const node_t r = topo.orbit_rep(o);
      if (topo.orbit(r) != o) throw std::logic_error(fmt::format("'{}': orbit_rep({}) is not in orbit {}", spec, o, o));
      if (r < N) sources.push_back({r, static_cast<std::uint64_t>(slot_size[o])});
    }
    f.method = "exact-symmetry";
  } else if (plan.all_pairs) {
    slot_size.assign(nodes, 1.0);
    for (node_t s = 0; s < N; ++s) sources.push_back({s, 1});
    f.method = "exact-all-pairs";
  } else {
    // A seeded sample of sources, cut to the route-step budget (never fewer than 4).
    slot_size.assign(nodes, 1.0);
    const double fit = static_cast<double>(defaults::metrics::sample_route_steps) / per_source_work;
    const unsigned k = std::min<unsigned>({opt.sample_sources, N, std::max(4u, static_cast<unsigned>(fit))});
    std::mt19937_64 rng(opt.seed);
    std::vector<node_t> pick;
    std::uniform_int_distribution<node_t> any(0, N - 1);
    std::vector<std::uint8_t> taken(N, 0);
    while (pick.size() < k) {
      const node_t s = any(rng);
      if (!taken[s]) taken[s] = 1, pick.push_back(s);
    }
    unit = static_cast<double>(N) / k;  // every sampled source stands for N / k
    for (node_t s : pick) sources.push_back({s, 1});
    f.method = "sampled";
    f.seed = opt.seed;
  }
  f.sources = static_cast<unsigned>(sources.size());

  std::vector<PerSource> per(sources.size());
  std::vector<std::uint64_t> visits;
  topo.visit([&](const auto& t) {
    if (symmetric)
      trace_sources(t, g, sources, slot_size.size(), [&t](node_t v) { return t.orbit(v); }, per, visits, f.max_class);
    else
      trace_sources(t, g, sources, slot_size.size(), [](node_t v) { return v; }, per, visits, f.max_class);
  });

  // Distances. Indirect networks count switches traversed = links - 1.
  const double unit_shift = direct ? 0.0 : 1.0;
  double wsum = 0;
  std::vector<double> md, mr;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const double w = static_cast<double>(sources[i].units) * unit;
    const double sd = static_cast<double>(per[i].sum_dist) - unit_shift * (N - 1);
    const double sr = static_cast<double>(per[i].sum_routed) - unit_shift * (N - 1);
    f.sum_d += w * sd;
    f.sum_r += w * sr;
    wsum += w;
    md.push_back(sd / (N - 1));
    mr.push_back(sr / (N - 1));
    f.diam = std::max(f.diam, per[i].max_dist - static_cast<unsigned>(unit_shift));
    f.rdiam = std::max(f.rdiam, per[i].max_routed - static_cast<unsigned>(unit_shift));
  }
  if (std::abs(wsum - N) > 1e-6 * N) throw std::logic_error(fmt::format("'{}': orbit weights sum to {} != {}", spec, wsum, N));
  if (f.method == "sampled") {
    auto bound = [&](const std::vector<double>& xs) {
      double mean = 0, var = 0;
      for (double x : xs) mean += x;
      const double n = static_cast<double>(xs.size());
      mean /= n;
      for (double x : xs) var += (x - mean) * (x - mean);
      var /= std::max(1.0, n - 1.0);
      const double fpc = 1.0 - n / N;
      return 3.0 * std::sqrt(var / n * fpc);
    };
    f.err_d = bound(md);
    f.err_r = bound(mr);
  }

  // Relay counts over router nodes.
  for (std::size_t k = 0; k < slot_size.size(); ++k) {
    const node_t rep = symmetric ? topo.orbit_rep(static_cast<std::uint32_t>(k)) : static_cast<node_t>(k);
    if (rep < r_begin || rep >= r_end) continue;
    const double relayed = static_cast<double>(visits[k]) * unit;
    f.relay_total += relayed;
    f.relay_max = std::max(f.relay_max, relayed / slot_size[k]);
  }
  return f;
}

/// The path P_k (one mesh dimension) in closed form: ordered pairs at distance |i - j|, so the
/// distance sum is (k-1)k(k+1)/3; node x relays the 2x(k-1-x) pairs it separates.
PairFigures path_figures(node_t k) {
  PairFigures f;
  const double K = k;
  f.pes = f.routers = K;
  f.sum_d = f.sum_r = (K - 1) * K * (K + 1) / 3;
  f.diam = f.rdiam = k - 1;
  f.relay_total = (K - 1) * K * (K - 2) / 3;
  f.relay_max = 2.0 * ((k - 1) / 2) * (k / 2);  // x = floor((k-1)/2): 2 x (k-1-x)
  f.method = "exact-product";
  f.how = "closed form";
  return f;
}

/// A ring C_k (one torus dimension, k >= 3) in closed form: routed the shorter way (+ on a tie),
/// so routes are shortest and a source's distances sum to (k^2 - 1)/4 (k odd) or k^2/4 (k even).
/// The routing is translation-invariant, so every node relays the same number of pairs: the
/// intermediate visits of one source's routes, sum - (k - 1).
PairFigures ring_figures(node_t k) {
  PairFigures f;
  const double K = k;
  const double per_source = (k % 2 == 1) ? (K * K - 1) / 4 : K * K / 4;
  f.pes = f.routers = K;
  f.sum_d = f.sum_r = K * per_source;
  f.diam = f.rdiam = k / 2;
  f.relay_max = per_source - (K - 1);
  f.relay_total = K * f.relay_max;
  f.method = "exact-product";
  f.how = "closed form";
  return f;
}

/// G1 x G2 routed first in G1, then in G2 (ProductTopology, and meshes in dimension order).
/// d((u1,u2),(v1,v2)) = d1(u1,v1) + d2(u2,v2) for shortest paths and for such routes, so over
/// ordered pairs  S = N2^2 S1 + N1^2 S2  and  D = D1 + D2. A route visits (q_j, s2) along G1's
/// route, then (d1, r_j) along G2's; counting the visits at w = (w1, w2) gives
///   relay(w) = N2 relay1(w1) + N1 relay2(w2) + (N1-1)(N2-1)
/// (the last term: the corner (d1, s2) of the routes that move in both factors).
PairFigures combine(const PairFigures& a, const PairFigures& b, unsigned classes_a) {
  PairFigures f;
  const double n1 = a.pes, n2 = b.pes;
  f.pes = f.routers = n1 * n2;
  f.sum_d = n2 * n2 * a.sum_d + n1 * n1 * b.sum_d;
  f.sum_r = n2 * n2 * a.sum_r + n1 * n1 * b.sum_r;
  f.diam = a.diam + b.diam;
  f.rdiam = a.rdiam + b.rdiam;
  f.relay_total = n2 * n2 * a.relay_total + n1 * n1 * b.relay_total + n1 * n2 * (n1 - 1) * (n2 - 1);
  f.relay_max = n2 * a.relay_max + n1 * b.relay_max + (n1 - 1) * (n2 - 1);
  f.max_class = n2 >= 2 ? classes_a + b.max_class : a.max_class;
  f.sources = a.sources + b.sources;
  f.method = "exact-product";
  return f;
}

std::optional<PairFigures> product_figures(const Topology& t, const MetricsOptions& opt);

/// A factor's figures: by decomposition when it is itself a product or mesh, else traced; empty
/// when only a sample would fit (the product is then not exact either).
std::optional<PairFigures> factor_figures(const Topology& t, const MetricsOptions& opt) {
  if (auto f = product_figures(t, opt)) return f;
  const Graph g = build_graph(t);
  if (!strongly_connected_pes(g, g.reversed(), t.pes())) return std::nullopt;
  PairFigures f = traced_figures(t, g, opt);
  if (f.method == "sampled") return std::nullopt;
  f.how = f.method;
  return f;
}

/// Exact figures of a mesh or Cartesian product from its factors, at any size; empty for other
/// topologies or when a factor is too large for exact analysis.
std::optional<PairFigures> product_figures(const Topology& t, const MetricsOptions& opt) {
  if (const auto g = t.grid_form(); g && g->decompose != GridForm::Decompose::never) {
    // Dimension order over paths (mesh) or rings (torus; a dimension of 2 is a path).
    const Shape& s = g->sides;
    const bool wrap = g->wrap;
    auto dim = [wrap](node_t k) { return wrap && k >= 3 ? ring_figures(k) : path_figures(k); };
    PairFigures f = dim(s[0]);
    for (std::size_t i = 1; i < s.size(); ++i) f = combine(f, dim(s[i]), 1);
    // Classes are a pure function of the hop: a mesh uses class 0 only; a torus routes the hops
    // that do not (or no longer) cross a ring's dateline in class 1, and every route to another
    // ring position of size >= 3 has such a hop.
    const bool rings = wrap && std::any_of(s.begin(), s.end(), [](node_t k) { return k >= 3; });
    f.max_class = rings ? 1 : 0;
    f.how = fmt::format("{} {}{}, closed form", s.size(), wrap ? "ring" : "path", s.size() == 1 ? "" : "s");
    f.detail = fmt::format("distances add over the factors; {} = {}, dimension order", wrap ? "torus" : "mesh", f.how);
    return f;
  }
  if (const auto p = t.product_factors()) {
    const auto a = factor_figures(*p->first, opt);
    if (!a) return std::nullopt;
    const auto b = factor_figures(*p->second, opt);
    if (!b) return std::nullopt;
    PairFigures f = combine(*a, *b, p->first->buffer_classes());
    f.how = fmt::format("{} ({}) x {} ({})", p->first->spec(), a->how, p->second->spec(), b->how);
    f.detail = fmt::format("distances add over the factors; {}", f.how);
    return f;
  }
  return std::nullopt;
}

}  // namespace

TopologyMetrics compute_metrics(const Topology& topo, const MetricsOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  TopologyMetrics m;
  m.spec = topo.spec();
  m.pes = topo.pes();
  m.nodes = topo.nodes();
  m.direct = topo.direct();
  m.distance_unit = m.direct ? "links" : "switches";
  m.buffer_classes = topo.buffer_classes();
  const node_t N = m.pes;
  if (N < 2) throw usage_error(fmt::format("'{}' has fewer than 2 PEs", m.spec));

  const Graph g = build_graph(topo);
  const Graph rev = g.reversed();
  if (!strongly_connected_pes(g, rev, N))
    throw usage_error(fmt::format("'{}': the PEs are not strongly connected", m.spec));

  // Degree and links.
  const auto deg = link_degrees(g, rev);
  std::uint64_t deg_sum = 0, routers_deg = 0;
  std::vector<unsigned> in_count(m.nodes, 0);
  topo.visit([&](const auto& t) {
    for (node_t v = 0; v < m.nodes; ++v)
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = t.out_link(v, p);
        if (l.present()) ++in_count[l.peer];
      }
  });
  const node_t r_begin = m.direct ? 0 : N, r_end = m.direct ? N : m.nodes;
  for (node_t v = 0; v < m.nodes; ++v) deg_sum += deg[v];
  for (node_t v = r_begin; v < r_end; ++v) {
    routers_deg += deg[v];
    m.degree_max = std::max<unsigned>(m.degree_max, deg[v]);
    m.degree_in = std::max(m.degree_in, in_count[v]);
    m.degree_out = std::max(m.degree_out, g.first[v + 1] - g.first[v]);
  }
  m.links = deg_sum / 2;
  m.degree = static_cast<double>(routers_deg) / (r_end - r_begin);

  // Distances and relays: by decomposition (meshes, products), else traced from sources.
  // A torus is decomposed only when its symmetry would not fit the exact budget.
  std::optional<PairFigures> decomposed;
  if (opt.decompose && !opt.force_all_pairs) {
    const auto grid = topo.grid_form();
    const bool prefer_symmetry = grid && grid->decompose == GridForm::Decompose::without_symmetry;
    if (!prefer_symmetry || !plan_sources(topo, g, opt).symmetric)
      decomposed = product_figures(topo, opt);
  }
  const PairFigures f = decomposed ? *decomposed : traced_figures(topo, g, opt);
  m.method = f.method;
  m.method_detail = f.detail;
  m.sources = f.sources;
  m.seed = f.seed;
  m.classes_used = f.max_class + 1;
  m.diameter = f.diam;
  m.routed_diameter = f.rdiam;
  const double pairs = static_cast<double>(N) * (N - 1);
  m.mean_distance = f.sum_d / pairs;
  m.routed_mean_distance = f.sum_r / pairs;
  m.mean_distance_incl_self = f.sum_d / (static_cast<double>(N) * N);
  m.routed_mean_distance_incl_self = f.sum_r / (static_cast<double>(N) * N);
  m.mean_distance_error = f.err_d;
  m.routed_mean_distance_error = f.err_r;
  m.avg_relay = f.relay_total / f.routers;
  m.max_relay = f.relay_max;

  m.normalized_distance = m.mean_distance * m.degree;
  m.traffic_density = m.mean_distance * N / static_cast<double>(m.links);
  m.cost = static_cast<double>(m.diameter) * m.degree_max;
  m.cost_mean_degree = m.diameter * m.degree;
  const FaultTolerance ft = edge_connectivity(topo, opt);
  m.fault_tolerance = ft.value;
  m.fault_tolerance_method = ft.method;
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return m;
}

nlohmann::json to_json(const TopologyMetrics& m) {
  nlohmann::json j;
  j["topology"] = m.spec;
  j["pes"] = m.pes;
  j["nodes"] = m.nodes;
  j["links"] = m.links;
  j["degree"] = m.degree;
  j["degree_in"] = m.degree_in;
  j["degree_out"] = m.degree_out;
  j["degree_max"] = m.degree_max;
  j["diameter"] = m.diameter;
  j["mean_distance"] = m.mean_distance;
  j["routed_diameter"] = m.routed_diameter;
  j["routed_mean_distance"] = m.routed_mean_distance;
  j["mean_distance_incl_self"] = m.mean_distance_incl_self;
  j["routed_mean_distance_incl_self"] = m.routed_mean_distance_incl_self;
  j["normalized_distance"] = m.normalized_distance;
  j["traffic_density"] = m.traffic_density;
  j["avg_relay"] = m.avg_relay;
  j["max_relay"] = m.max_relay;
  j["fault_tolerance"] = m.fault_tolerance;
  j["fault_tolerance_method"] = m.fault_tolerance_method;
  j["cost"] = m.cost;
  j["cost_mean_degree"] = m.cost_mean_degree;
  j["buffer_classes"] = m.buffer_classes;
  j["classes_used"] = m.classes_used;
  j["distance_unit"] = m.distance_unit;
  j["method"] = m.method;  // "exact-symmetry", "exact-all-pairs", "exact-product" or "sampled"
  if (!m.method_detail.empty()) j["method_detail"] = m.method_detail;
  j["method_sources"] = m.sources;
  if (m.method == "sampled") {
    j["sample_seed"] = m.seed;
    j["mean_distance_error"] = m.mean_distance_error;  // 3-sigma bound
    j["routed_mean_distance_error"] = m.routed_mean_distance_error;
  }
  j["seconds"] = m.seconds;
  return j;
}

}  // namespace rica
