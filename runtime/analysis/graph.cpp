#include "rica/graph.hpp"

#include <algorithm>

namespace rica {

Graph build_graph(const Topology& topo) {
  return topo.visit([](const auto& t) {
    Graph g;
    g.nodes = t.nodes();
    g.first.assign(std::size_t{g.nodes} + 1, 0);
    g.target.reserve(std::size_t{g.nodes} * t.ports());
    for (node_t v = 0; v < g.nodes; ++v) {
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = t.out_link(v, p);
        if (l.present() && l.peer != v) g.target.push_back(l.peer);
      }
      g.first[v + 1] = static_cast<std::uint32_t>(g.target.size());
    }
    return g;
  });
}

Graph Graph::reversed() const {
  Graph r;
  r.nodes = nodes;
  r.first.assign(std::size_t{nodes} + 1, 0);
  for (node_t t : target) ++r.first[t + 1];
  for (node_t v = 0; v < nodes; ++v) r.first[v + 1] += r.first[v];
  r.target.resize(target.size());
  std::vector<std::uint32_t> pos(r.first.begin(), r.first.end() - 1);
  for (node_t u = 0; u < nodes; ++u)
    for (auto i = first[u]; i < first[u + 1]; ++i) r.target[pos[target[i]]++] = u;
  return r;
}

void bfs(const Graph& g, node_t src, std::vector<std::uint32_t>& dist, std::vector<node_t>& queue) {
  dist.assign(g.nodes, unreachable);
  queue.resize(g.nodes);
  std::size_t head = 0, tail = 0;
  dist[src] = 0;
  queue[tail++] = src;
  while (head < tail) {
    const node_t u = queue[head++];
    const std::uint32_t du = dist[u] + 1;
    for (auto i = g.first[u]; i < g.first[u + 1]; ++i) {
      const node_t v = g.target[i];
      if (dist[v] == unreachable) {
        dist[v] = du;
        queue[tail++] = v;
      }
    }
  }
}

bool strongly_connected_pes(const Graph& g, const Graph& rev, node_t pes) {
  std::vector<std::uint32_t> dist;
  std::vector<node_t> queue;
  for (const Graph* h : {&g, &rev}) {
    bfs(*h, 0, dist, queue);
    for (node_t v = 0; v < pes; ++v)
      if (dist[v] == unreachable) return false;
  }
  return true;
}

UnitFlow::UnitFlow(const Graph& g) {
  // Residual graph: every arc u->v with capacity 1 plus its reverse residual arc v->u (cap 0).
  const node_t n = g.nodes;
  std::vector<std::uint32_t> deg(n, 0);
  for (node_t u = 0; u < n; ++u)
    for (auto i = g.first[u]; i < g.first[u + 1]; ++i) {
      ++deg[u];
      ++deg[g.target[i]];
    }
  first_.assign(std::size_t{n} + 1, 0);
  for (node_t v = 0; v < n; ++v) first_[v + 1] = first_[v] + deg[v];
  const std::size_t m = first_[n];
  to_.resize(m);
  rev_.resize(m);
  cap_.resize(m);
  std::vector<std::uint32_t> pos(first_.begin(), first_.end() - 1);
  for (node_t u = 0; u < n; ++u)
    for (auto i = g.first[u]; i < g.first[u + 1]; ++i) {
      const node_t v = g.target[i];
      const auto a = pos[u]++, b = pos[v]++;
      to_[a] = v;
      cap_[a] = 1;
      rev_[a] = b;
      to_[b] = u;
      cap_[b] = 0;
      rev_[b] = a;
    }
  orig_ = cap_;
  parent_arc_.assign(n, 0);
  seen_.assign(n, 0);
  queue_.resize(n);
}

unsigned UnitFlow::max_flow(node_t s, node_t t, unsigned cap) {
  cap_ = orig_;  // restore the unit capacities of the original arcs
  unsigned flow = 0;
  while (flow < cap) {
    ++stamp_;
    std::size_t head = 0, tail = 0;
    queue_[tail++] = s;
    seen_[s] = stamp_;
    bool found = false;
    while (head < tail && !found) {
      const node_t u = queue_[head++];
      for (auto a = first_[u]; a < first_[u + 1]; ++a) {
        const node_t v = to_[a];
        if (cap_[a] && seen_[v] != stamp_) {
          seen_[v] = stamp_;
          parent_arc_[v] = a;
          if (v == t) { found = true; break; }
          queue_[tail++] = v;
        }
      }
    }
    if (!found) break;
    for (node_t v = t; v != s;) {
      const auto a = parent_arc_[v];
      --cap_[a];
      ++cap_[rev_[a]];
      v = to_[rev_[a]];
    }
    ++flow;
  }
  return flow;
}

}  // namespace rica
