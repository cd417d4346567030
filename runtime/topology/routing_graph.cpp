// Up*/down* tables of the generic adaptive routing for table-routed graphs
// (rica/routing/graph.hpp; docs/topologies.md, "Adaptive routing").
#include <algorithm>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "rica/routing.hpp"

namespace rica {

bool graph_symmetric(const GraphTopology& t) {
  std::vector<std::pair<node_t, node_t>> a, r;
  for (node_t v = 0; v < t.nodes(); ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) break;
      a.emplace_back(v, l.peer);
      r.emplace_back(l.peer, v);
    }
  std::sort(a.begin(), a.end());
  std::sort(r.begin(), r.end());
  return a == r;
}

std::shared_ptr<const GraphUpDown> GraphUpDown::build(const GraphTopology& t) {
  const node_t N = t.nodes(), P = t.pes();
  constexpr std::uint32_t inf = std::numeric_limits<std::uint32_t>::max();
  constexpr std::uint8_t none = 0xFF;
  auto ud = std::make_shared<GraphUpDown>();
  // CSR of the out-arcs (peer per arc).
  ud->first.assign(std::size_t{N} + 1, 0);
  std::vector<node_t> peer;
  for (node_t v = 0; v < N; ++v) {
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) break;
      peer.push_back(l.peer);
    }
    ud->first[v + 1] = static_cast<std::uint32_t>(peer.size());
  }
  // Rank = (BFS level from node 0, id): the BFS spanning tree's order. The graph is symmetric,
  // so BFS over out-arcs is BFS over the undirected graph; nodes it does not reach (router-only
  // nodes cut off from the PEs) rank last and carry no route.
  std::vector<std::uint32_t> level(N, inf);
  std::vector<node_t> queue;
  queue.reserve(N);
  level[0] = 0;
  queue.push_back(0);
  for (std::size_t h = 0; h < queue.size(); ++h) {
    const node_t w = queue[h];
    for (auto i = ud->first[w]; i < ud->first[w + 1]; ++i)
      if (level[peer[i]] == inf) level[peer[i]] = level[w] + 1, queue.push_back(peer[i]);
  }
  auto lower = [&](node_t a, node_t b) { return level[a] < level[b] || (level[a] == level[b] && a < b); };
  ud->up.assign(peer.size(), 0);
  for (node_t v = 0; v < N; ++v)
    for (auto i = ud->first[v]; i < ud->first[v + 1]; ++i) ud->up[i] = lower(peer[i], v) ? 1 : 0;
  ud->fresh.assign(std::size_t{N} * P, none);
  ud->down.assign(std::size_t{N} * P, none);
  // Per destination: dn = shortest down-only distance (BFS backwards over down arcs; the in-arc
  // u -> w is the reverse of w's out-arc w -> u, down iff w -> u is up), then an = shortest legal
  // distance, an(u) = min(dn(u), 1 + min over up arcs u -> v of an(v)), by a bucket queue.
  std::vector<std::uint32_t> dn(N), an(N);
  std::vector<std::vector<node_t>> bucket;
  for (node_t dst = 0; dst < P; ++dst) {
    std::fill(dn.begin(), dn.end(), inf);
    dn[dst] = 0;
    queue.assign(1, dst);
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const node_t w = queue[h];
      for (auto i = ud->first[w]; i < ud->first[w + 1]; ++i)
        if (ud->up[i] && dn[peer[i]] == inf) dn[peer[i]] = dn[w] + 1, queue.push_back(peer[i]);
    }
    an = dn;
    bucket.assign(1, {});
    for (node_t v = 0; v < N; ++v)
      if (an[v] != inf) {
        if (bucket.size() <= an[v]) bucket.resize(std::size_t{an[v]} + 1);
        bucket[an[v]].push_back(v);
      }
    for (std::size_t d = 0; d < bucket.size(); ++d)
      for (std::size_t k = 0; k < bucket[d].size(); ++k) {
        const node_t w = bucket[d][k];
        if (an[w] != d) continue;  // a stale entry
        for (auto i = ud->first[w]; i < ud->first[w + 1]; ++i) {
          const node_t u = peer[i];  // the arc u -> w is up iff w -> u is down
          if (!ud->up[i] && an[u] > d + 1) {
            an[u] = static_cast<std::uint32_t>(d + 1);
            if (bucket.size() <= d + 1) bucket.resize(d + 2);
            bucket[d + 1].push_back(u);
          }
        }
      }
    // Next ports: the lowest port on a shortest legal (fresh) and down-only route.
    for (node_t u = 0; u < N; ++u) {
      if (u == dst) continue;
      const std::size_t cell = std::size_t{u} * P + dst;
      std::uint32_t best_f = inf, best_d = inf;
      for (auto i = ud->first[u]; i < ud->first[u + 1]; ++i) {
        const node_t v = peer[i];
        const auto p = static_cast<std::uint8_t>(i - ud->first[u]);
        const std::uint32_t via = ud->up[i] ? an[v] : dn[v];
        if (via != inf && via + 1 < best_f) best_f = via + 1, ud->fresh[cell] = p;
        if (!ud->up[i] && dn[v] != inf && dn[v] + 1 < best_d) best_d = dn[v] + 1, ud->down[cell] = p;
      }
    }
  }
  return ud;
}

}  // namespace rica
