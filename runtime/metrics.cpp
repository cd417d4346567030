// Static and routed measures of a topology. See include/rica/metrics.hpp.
#include "rica/metrics.hpp"

#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>

#include "rica/graph.hpp"
#include "tsan.hpp"

namespace rica {
namespace {

struct Source {
  node_t node;
  double weight;  // how many sources this one stands for
};

struct PerSource {
  std::uint64_t sum_dist = 0, sum_routed = 0;
  std::uint32_t max_dist = 0, max_routed = 0;
};

struct Local {
  std::vector<std::uint32_t> dist;
  std::vector<node_t> queue;
  std::vector<double> visits;  // per slot, weighted
  unsigned max_class = 0;
};

[[noreturn]] void routing_error(const std::string& spec, const std::string& what, node_t s, node_t d) {
  throw std::logic_error(fmt::format("routing of '{}' is broken: {} (route {} -> {})", spec, what, s, d));
}

/// BFS distances and routed paths from every source; `slot(v)` maps a node to its relay slot.
template <TopologyModel T, class SlotFn>
void trace_sources(const T& t, const Graph& g, const std::vector<Source>& sources, std::size_t slots, SlotFn slot,
                   std::vector<PerSource>& per_source, std::vector<double>& visits, unsigned& max_class) {
  const node_t pes = t.pes(), nodes = t.nodes();
  const class_t classes = t.buffer_classes();
  const std::string spec = t.spec();
  tbb::enumerable_thread_specific<Local> locals([&] {
    Local l;
    l.visits.assign(slots, 0.0);
    return l;
  });
  const auto body = [&](std::size_t si) {
    const detail::TsanTask tsan_task;  // runtime/tsan.hpp
    Local& L = locals.local();
    const node_t s = sources[si].node;
    const double w = sources[si].weight;
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
  detail::tsan_fork();
  tbb::parallel_for(std::size_t{0}, sources.size(), body);
  detail::tsan_join();
  visits.assign(slots, 0.0);
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
  if (t.vertex_transitive() && t.direct() && !opt.force_all_pairs) return {delta, "vertex-transitive: equals min degree (Mader/Hamidoune)"};
  const std::uint64_t flow_work = std::uint64_t{pes} * delta * (g.arcs() + g.nodes);
  if (flow_work <= opt.flow_work_limit) {
    // Schnorr: over a cyclic order of the PEs, the smallest max-flow between neighbours in the
    // order is the smallest arc cut separating any two PEs.
    std::atomic<unsigned> best{delta};
    tbb::enumerable_thread_specific<UnitFlow> flows([&] { return UnitFlow(g); });
    const auto body = [&](node_t i) {
      const detail::TsanTask tsan_task;  // runtime/tsan.hpp
      const unsigned cap = best.load(std::memory_order_relaxed);
      const unsigned f = flows.local().max_flow(i, (i + 1) % pes, cap);
      unsigned cur = best.load();
      while (f < cur && !best.compare_exchange_weak(cur, f)) {
      }
    };
    detail::tsan_fork();
    tbb::parallel_for(node_t{0}, pes, body);
    detail::tsan_join();
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
    m.degree_in = std::max(m.degree_in, in_count[v]);
    m.degree_out = std::max(m.degree_out, g.first[v + 1] - g.first[v]);
  }
  m.links = deg_sum / 2;
  m.degree = static_cast<double>(routers_deg) / (r_end - r_begin);

  // Sources.
  std::vector<Source> sources;
  // Work per source: one BFS plus N routes of about the mean distance (estimated from PE 0).
  double mean0 = 0;
  {
    std::vector<std::uint32_t> dist;
    std::vector<node_t> queue;
    bfs(g, 0, dist, queue);
    for (node_t v = 1; v < N; ++v) mean0 += dist[v];
    mean0 = std::max(1.0, mean0 / (N - 1));
  }
  const double per_source_work = static_cast<double>(g.arcs() + g.nodes) + N * mean0;
  const double limit = static_cast<double>(opt.exact_work_limit);
  std::uint32_t pe_orbits = 0;
  if (topo.orbit_count() > 0)
    for (std::uint32_t o = 0; o < topo.orbit_count(); ++o) pe_orbits += topo.orbit_rep(o) < N ? 1 : 0;
  const bool symmetric =
      topo.orbit_count() > 0 && !opt.force_all_pairs && pe_orbits * per_source_work <= limit;
  std::vector<double> slot_size;
  if (symmetric) {
    const std::uint32_t k = topo.orbit_count();
    slot_size.assign(k, 0.0);
    for (node_t v = 0; v < m.nodes; ++v) slot_size[topo.orbit(v)] += 1.0;
    for (std::uint32_t o = 0; o < k; ++o) {
      const node_t r = topo.orbit_rep(o);
      if (topo.orbit(r) != o) throw std::logic_error(fmt::format("'{}': orbit_rep({}) is not in orbit {}", m.spec, o, o));
      if (r < N) sources.push_back({r, slot_size[o]});
    }
    m.method = "exact-symmetry";
  } else if (opt.force_all_pairs || N * per_source_work <= limit) {
    slot_size.assign(m.nodes, 1.0);
    for (node_t s = 0; s < N; ++s) sources.push_back({s, 1.0});
    m.method = "exact-all-pairs";
  } else {
    // A seeded sample of sources, cut to the route-step budget (never fewer than 4).
    slot_size.assign(m.nodes, 1.0);
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
    for (node_t s : pick) sources.push_back({s, static_cast<double>(N) / k});
    m.method = "sampled";
    m.seed = opt.seed;
  }
  m.sources = static_cast<unsigned>(sources.size());

  std::vector<PerSource> per(sources.size());
  std::vector<double> visits;
  unsigned max_class = 0;
  topo.visit([&](const auto& t) {
    if (symmetric)
      trace_sources(t, g, sources, slot_size.size(), [&t](node_t v) { return t.orbit(v); }, per, visits, max_class);
    else
      trace_sources(t, g, sources, slot_size.size(), [](node_t v) { return v; }, per, visits, max_class);
  });
  m.classes_used = max_class + 1;

  // Distances. Indirect networks count switches traversed = links - 1.
  const double unit_shift = m.direct ? 0.0 : 1.0;
  double sum_d = 0, sum_r = 0, wsum = 0;
  std::vector<double> md, mr;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const double w = sources[i].weight;
    const double sd = static_cast<double>(per[i].sum_dist) - unit_shift * (N - 1);
    const double sr = static_cast<double>(per[i].sum_routed) - unit_shift * (N - 1);
    sum_d += w * sd;
    sum_r += w * sr;
    wsum += w;
    md.push_back(sd / (N - 1));
    mr.push_back(sr / (N - 1));
    m.diameter = std::max(m.diameter, per[i].max_dist - static_cast<unsigned>(unit_shift));
    m.routed_diameter = std::max(m.routed_diameter, per[i].max_routed - static_cast<unsigned>(unit_shift));
  }
  if (std::abs(wsum - N) > 1e-6 * N) throw std::logic_error(fmt::format("'{}': orbit weights sum to {} != {}", m.spec, wsum, N));
  const double pairs = static_cast<double>(N) * (N - 1);
  m.mean_distance = sum_d / pairs;
  m.routed_mean_distance = sum_r / pairs;
  m.mean_distance_incl_self = sum_d / (static_cast<double>(N) * N);
  m.routed_mean_distance_incl_self = sum_r / (static_cast<double>(N) * N);
  if (m.method == "sampled") {
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
    m.mean_distance_error = bound(md);
    m.routed_mean_distance_error = bound(mr);
  }

  // Relay counts over router nodes.
  double relay_total = 0;
  for (std::size_t k = 0; k < slot_size.size(); ++k) {
    const node_t rep = symmetric ? topo.orbit_rep(static_cast<std::uint32_t>(k)) : static_cast<node_t>(k);
    if (rep < r_begin || rep >= r_end) continue;
    relay_total += visits[k];
    m.max_relay = std::max(m.max_relay, visits[k] / slot_size[k]);
  }
  m.avg_relay = relay_total / (r_end - r_begin);

  m.normalized_distance = m.mean_distance * m.degree;
  m.traffic_density = m.mean_distance * N / static_cast<double>(m.links);
  m.cost = m.diameter * m.degree;
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
  j["buffer_classes"] = m.buffer_classes;
  j["classes_used"] = m.classes_used;
  j["distance_unit"] = m.distance_unit;
  j["method"] = m.method;  // "exact-symmetry", "exact-all-pairs" or "sampled"
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
