// The exact, bounded placement search. See include/rica/embed_search.hpp.
#include "rica/embed_search.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "rica/interrupt.hpp"

namespace rica {

bool PeGraph::has_arc(node_t u, node_t v) const {
  const auto& o = out[u];
  return std::binary_search(o.begin(), o.end(), v);
}

namespace {
void erase_sorted(std::vector<node_t>& v, node_t x) {
  const auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it != v.end() && *it == x) v.erase(it);
}
}  // namespace

void PeGraph::remove_link(node_t u, node_t v) {
  erase_sorted(out[u], v);
  erase_sorted(in[v], u);
  erase_sorted(out[v], u);
  erase_sorted(in[u], v);
  erase_sorted(both[u], v);
  erase_sorted(both[v], u);
}

void PeGraph::remove_node(node_t v) {
  for (node_t u : std::vector<node_t>(both[v])) remove_link(u, v);
  live[v] = 0;
}

PeGraph pe_graph(const Topology& t, const std::vector<node_t>& failed) {
  PeGraph g;
  g.pes = t.pes();
  g.out.assign(g.pes, {});
  g.in.assign(g.pes, {});
  g.both.assign(g.pes, {});
  g.live.assign(g.pes, 1);
  t.visit([&](const auto& topo) {
    for (node_t v = 0; v < g.pes; ++v)
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = topo.out_link(v, p);
        if (!l.present() || l.peer == v || l.peer >= g.pes) continue;
        g.out[v].push_back(l.peer);
        g.in[l.peer].push_back(v);
      }
  });
  for (node_t v = 0; v < g.pes; ++v) {
    for (auto* a : {&g.out[v], &g.in[v]}) {
      std::sort(a->begin(), a->end());
      a->erase(std::unique(a->begin(), a->end()), a->end());
    }
    std::set_union(g.out[v].begin(), g.out[v].end(), g.in[v].begin(), g.in[v].end(), std::back_inserter(g.both[v]));
  }
  for (node_t v : failed)
    if (v < g.pes) g.remove_node(v);
  return g;
}

std::string_view to_string(SearchStatus s) noexcept {
  switch (s) {
    case SearchStatus::found: return "found";
    case SearchStatus::none: return "none";
    case SearchStatus::gave_up: return "gave up";
  }
  return "?";
}

namespace {

constexpr node_t unplaced = ~node_t{0};

/// The search state. Invariants between steps: occ[h] is the guest node on PE h (or unplaced);
/// at[g] the PE of guest node g (or unplaced); free_nb[h] counts the undirected neighbours of h
/// that are free (live, unoccupied, not blocked); need[g] counts g's unplaced guest neighbours.
class Search {
 public:
  Search(const Guest& g, const PeGraph& h, std::uint64_t budget) : g_(g), h_(h), budget_(budget) {
    const node_t N = g.nodes;
    gout_.assign(N, {});
    gin_.assign(N, {});
    gboth_.assign(N, {});
    for (const auto& [u, v] : g.arcs) {
      if (u == v) continue;
      gout_[u].push_back(v);
      gin_[v].push_back(u);
    }
    for (node_t u = 0; u < N; ++u) {
      for (auto* a : {&gout_[u], &gin_[u]}) {
        std::sort(a->begin(), a->end());
        a->erase(std::unique(a->begin(), a->end()), a->end());
      }
      std::set_union(gout_[u].begin(), gout_[u].end(), gin_[u].begin(), gin_[u].end(), std::back_inserter(gboth_[u]));
    }
    // DFS pre-order of the guest from node 0 (then from each node not yet reached); parent_[g]
    // is the guest neighbour g is placed next to, unplaced for a component's first node.
    order_.reserve(N);
    parent_.assign(N, unplaced);
    std::vector<std::uint8_t> seen(N, 0);
    std::vector<node_t> stack;
    for (node_t r = 0; r < N; ++r) {
      if (seen[r]) continue;
      stack.push_back(r);
      while (!stack.empty()) {
        const node_t u = stack.back();
        stack.pop_back();
        if (seen[u]) continue;
        seen[u] = 1;
        order_.push_back(u);
        for (auto it = gboth_[u].rbegin(); it != gboth_[u].rend(); ++it)
          if (!seen[*it]) {
            parent_[*it] = u;  // the last writer before *it is visited is its DFS parent
            stack.push_back(*it);
          }
      }
    }
    // parent_ above may name a neighbour visited later than the node (a later push overwrote
    // it): recompute as the earliest-ordered neighbour placed before the node.
    std::vector<node_t> pos(N);
    for (node_t k = 0; k < N; ++k) pos[order_[k]] = k;
    for (node_t k = 0; k < N; ++k) {
      const node_t u = order_[k];
      parent_[u] = unplaced;
      for (node_t w : gboth_[u])
        if (pos[w] < k && (parent_[u] == unplaced || pos[w] < pos[parent_[u]])) parent_[u] = w;
    }
    linear_ = (g.kind == Guest::Kind::ring || g.kind == Guest::Kind::array);
    ring_ = g.kind == Guest::Kind::ring;
    for (node_t k = 0; k < N && linear_; ++k) linear_ = order_[k] == k;  // the path 0, 1, ..., N-1
  }

  SearchResult run() {
    SearchResult res;
    const node_t N = g_.nodes, P = h_.pes;
    node_t live = 0;
    for (node_t v = 0; v < P; ++v) live += h_.live[v];
    if (N == 0 || N > live) return res;  // none: not enough PEs (exact)
    occ_.assign(P, unplaced);
    at_.assign(N, unplaced);
    blocked_.assign(P, 0);
    free_nb_.assign(P, 0);
    for (node_t v = 0; v < P; ++v)
      for (node_t y : h_.both[v]) free_nb_[v] += is_free(y);
    need_.resize(N);
    for (node_t u = 0; u < N; ++u) need_[u] = static_cast<node_t>(gboth_[u].size());
    seen_.assign(P, 0);

    std::vector<std::vector<node_t>> cands(N);
    std::vector<std::size_t> next(N, 0);
    node_t k = 0;
    candidates(0, cands[0]);
    for (;;) {
      if (next[k] < cands[k].size()) {
        const node_t x = cands[k][next[k]++];
        const node_t u = order_[k];
        if (!fits(u, x)) continue;
        if ((++res.steps & 4095) == 0) check_interrupt();
        if (res.steps > budget_) {
          res.status = SearchStatus::gave_up;
          res.steps = budget_;
          return res;
        }
        place(u, x);
        if (!forward_ok(u, x) || !linear_ok(k)) {
          unplace(u, x);
          continue;
        }
        if (k + 1 == N) {
          res.placement = at_;
          verify(res.placement);
          res.status = SearchStatus::found;
          return res;
        }
        ++k;
        candidates(k, cands[k]);
        next[k] = 0;
        continue;
      }
      // Level k is exhausted: undo the placement of level k - 1 and try its next candidate.
      if (k == 0) return res;  // none (exhaustive)
      --k;
      const node_t u = order_[k];
      const node_t x = at_[u];
      unplace(u, x);
      if (k == 0 && ring_) block(x);  // every ring through x has been tried from x as node 0
    }
  }

 private:
  bool is_free(node_t h) const { return h_.live[h] && occ_[h] == unplaced && !blocked_[h]; }

  /// The PEs guest node order_[k] may take: for a ring or array, and for any guest node without
  /// unplaced neighbours (a leaf), the tightest first (fewest free neighbours, then id: keep room
  /// for later); for other guest nodes the roomiest first (its unplaced neighbours need room).
  void candidates(node_t k, std::vector<node_t>& c) const {
    c.clear();
    const node_t u = order_[k], par = parent_[u];
    if (par == unplaced) {
      for (node_t v = 0; v < h_.pes; ++v)
        if (is_free(v)) c.push_back(v);
    } else {
      const bool down = std::binary_search(gout_[par].begin(), gout_[par].end(), u);
      for (node_t v : down ? h_.out[at_[par]] : h_.in[at_[par]])
        if (is_free(v)) c.push_back(v);
    }
    if (linear_ || need_[u] == 0)
      std::stable_sort(c.begin(), c.end(), [&](node_t a, node_t b) { return free_nb_[a] < free_nb_[b]; });
    else
      std::stable_sort(c.begin(), c.end(), [&](node_t a, node_t b) { return free_nb_[a] > free_nb_[b]; });
  }

  /// x is free, keeps enough free neighbours for u's unplaced neighbours, and has every host
  /// arc u's placed guest neighbours need.
  bool fits(node_t u, node_t x) const {
    if (!is_free(x) || free_nb_[x] < need_[u]) return false;
    for (node_t w : gout_[u])
      if (at_[w] != unplaced && !h_.has_arc(x, at_[w])) return false;
    for (node_t w : gin_[u])
      if (at_[w] != unplaced && !h_.has_arc(at_[w], x)) return false;
    return true;
  }

  void place(node_t u, node_t x) {
    occ_[x] = u;
    at_[u] = x;
    for (node_t y : h_.both[x]) --free_nb_[y];
    for (node_t w : gboth_[u]) --need_[w];
  }
  void unplace(node_t u, node_t x) {
    occ_[x] = unplaced;
    at_[u] = unplaced;
    for (node_t y : h_.both[x]) ++free_nb_[y];
    for (node_t w : gboth_[u]) ++need_[w];
  }
  void block(node_t x) {
    blocked_[x] = 1;
    for (node_t y : h_.both[x]) --free_nb_[y];
  }

  /// Every placed host neighbour of x still has room for its guest node's unplaced neighbours.
  bool forward_ok(node_t u, node_t x) const {
    if (free_nb_[x] < need_[u]) return false;
    for (node_t y : h_.both[x])
      if (occ_[y] != unplaced && free_nb_[y] < need_[occ_[y]]) return false;
    return true;
  }

  /// A ring or array with nodes 0..k placed: the remaining N-1-k nodes must lie in the free part
  /// of the host reachable from node k's PE, and a ring's last node must be a free neighbour of
  /// node 0's PE in that part.
  bool linear_ok(node_t k) {
    if (!linear_) return true;
    const node_t N = g_.nodes, R = N - 1 - k;
    if (R == 0 || k == 0) return true;
    ++stamp_;
    if (stamp_ == 0) {
      std::fill(seen_.begin(), seen_.end(), 0);
      stamp_ = 1;
    }
    queue_.clear();
    queue_.push_back(at_[k]);
    seen_[at_[k]] = stamp_;
    node_t reached = 0;
    for (std::size_t i = 0; i < queue_.size(); ++i)
      for (node_t y : h_.both[queue_[i]])
        if (seen_[y] != stamp_ && is_free(y)) {
          seen_[y] = stamp_;
          queue_.push_back(y);
          ++reached;
        }
    if (reached < R) return false;
    if (!ring_) return true;
    for (node_t y : h_.both[at_[0]])
      if (seen_[y] == stamp_ && y != at_[k] && is_free(y)) return true;
    return false;
  }

  /// A found placement, checked independently of the search's bookkeeping.
  void verify(const std::vector<node_t>& p) const {
    std::vector<std::uint8_t> used(h_.pes, 0);
    for (node_t x : p)
      if (x >= h_.pes || !h_.live[x] || used[x]++) throw std::logic_error("embed search: a placement reuses or misses a PE");
    for (const auto& [u, v] : g_.arcs)
      if (u != v && !h_.has_arc(p[u], p[v]))
        throw std::logic_error(fmt::format("embed search: guest arc {} -> {} is not a host arc", u, v));
  }

  const Guest& g_;
  const PeGraph& h_;
  std::uint64_t budget_;
  std::vector<std::vector<node_t>> gout_, gin_, gboth_;
  std::vector<node_t> order_, parent_;
  bool linear_ = false, ring_ = false;
  std::vector<node_t> occ_, at_, free_nb_, need_;
  std::vector<std::uint8_t> blocked_;
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
  std::vector<node_t> queue_;
};

}  // namespace

SearchResult search_placement(const Guest& guest, const PeGraph& host, std::uint64_t budget) {
  if (budget == 0) throw std::invalid_argument("search_placement: budget must be at least 1");
  return Search(guest, host, budget).run();
}

EveryFaultResult search_every_fault(const Guest& guest, const Topology& host, bool links, std::uint64_t budget) {
  EveryFaultResult r;
  r.kind = links ? "links" : "nodes";
  r.budget = budget;
  const PeGraph intact = pe_graph(host);
  const auto tally = [&](const std::string& what, const SearchResult& s) {
    ++r.faults;
    r.steps_max = std::max(r.steps_max, s.steps);
    r.steps_total += s.steps;
    switch (s.status) {
      case SearchStatus::found: ++r.found; return;
      case SearchStatus::none: ++r.none; break;
      case SearchStatus::gave_up: ++r.gave_up; break;
    }
    r.missing.emplace_back(what, s.status);
  };
  if (links) {
    for (node_t u = 0; u < intact.pes; ++u)
      for (node_t v : intact.both[u]) {
        if (v < u) continue;  // each link once
        PeGraph g = intact;
        g.remove_link(u, v);
        tally(fmt::format("link {} {}", u, v), search_placement(guest, g, budget));
      }
  } else {
    for (node_t v = 0; v < intact.pes; ++v) {
      std::vector<node_t> failed{v}, replaced;
      host.replace_failed_pes(failed, replaced);  // a spare takes over: the intact host
      PeGraph g = intact;
      if (failed.empty()) ++r.repaired;
      else g.remove_node(v);
      tally(fmt::format("node {}", v), search_placement(guest, g, budget));
    }
  }
  return r;
}

}  // namespace rica
