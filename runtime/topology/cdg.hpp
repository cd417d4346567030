#pragma once
// Internal (not installed): the channel dependency graph (CDG) machinery shared by the user
// topology's construction check (user.cpp) and the built-in families that take an explicit
// `classes=K` (dragonfly, slimfly): a set of channel dependencies, a cycle finder, and
// certify_routing(), which follows every PE pair's route once per (destination, node, class)
// state and proves the dependency graph acyclic (Dally-Seitz) or names a cycle.

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "rica/core.hpp"

namespace rica::detail {

constexpr std::uint32_t no_channel = std::numeric_limits<std::uint32_t>::max();

/// The set of channel dependencies (from -> to) seen while following routes. A dependency leaves
/// the peer of `from`, so `to` is one of the ports * classes channels there: a bitmap of
/// channels x (ports * classes) bits when that is small, a hash set otherwise.
class DependencySet {
 public:
  DependencySet(std::uint64_t channels, std::uint64_t per_node) : per_node_(per_node) {
    if (channels * per_node <= bitmap_limit) bits_.assign((channels * per_node + 63) / 64, 0);
  }
  void insert(std::uint32_t from, std::uint32_t to) {
    if (!bits_.empty()) {
      const std::uint64_t i = std::uint64_t{from} * per_node_ + to % per_node_;
      bits_[i / 64] |= std::uint64_t{1} << (i % 64);
    } else {
      hash_.insert(std::uint64_t{from} << 32 | to);
    }
  }
  /// Every dependency as (from << 32 | to), sorted. `first_at_peer(from)` is the first channel
  /// leaving the peer of `from` (the bitmap keeps `to` relative to it).
  template <class FirstAtPeer>
  std::vector<std::uint64_t> edges(FirstAtPeer&& first_at_peer) const {
    std::vector<std::uint64_t> out;
    if (!bits_.empty()) {
      for (std::size_t w = 0; w < bits_.size(); ++w)
        for (std::uint64_t b = bits_[w]; b != 0; b &= b - 1) {
          const std::uint64_t i = w * 64 + static_cast<unsigned>(__builtin_ctzll(b));
          const auto from = static_cast<std::uint32_t>(i / per_node_);
          out.push_back(std::uint64_t{from} << 32 | (first_at_peer(from) + i % per_node_));
        }
    } else {
      out.assign(hash_.begin(), hash_.end());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  static constexpr std::uint64_t bitmap_limit = std::uint64_t{1} << 28;  // bits: 32 MiB
  std::uint64_t per_node_;
  std::vector<std::uint64_t> bits_;         // [from * per_node + to % per_node]
  std::unordered_set<std::uint64_t> hash_;  // from << 32 | to, when bits_ is empty
};

/// A cycle of the dependency graph given as sorted (from << 32 | to) edges, as its edges, or
/// empty when the graph is acyclic (Kahn's algorithm, then a walk back through what is left).
inline std::vector<std::uint64_t> find_cycle(const std::vector<std::uint64_t>& deps) {
  std::vector<std::uint32_t> ids;
  ids.reserve(deps.size() * 2);
  for (auto e : deps) {
    ids.push_back(static_cast<std::uint32_t>(e >> 32));
    ids.push_back(static_cast<std::uint32_t>(e));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto idx = [&](std::uint32_t c) {
    return static_cast<std::uint32_t>(std::lower_bound(ids.begin(), ids.end(), c) - ids.begin());
  };
  const std::size_t n = ids.size();
  std::vector<std::uint32_t> first(n + 1, 0), rfirst(n + 1, 0), to(deps.size()), from(deps.size()), indeg(n, 0);
  for (auto e : deps) {
    ++first[idx(static_cast<std::uint32_t>(e >> 32)) + 1];
    ++rfirst[idx(static_cast<std::uint32_t>(e)) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i], rfirst[i + 1] += rfirst[i];
  {
    std::vector<std::uint32_t> pos(first.begin(), first.end() - 1), rpos(rfirst.begin(), rfirst.end() - 1);
    for (auto e : deps) {
      const auto a = idx(static_cast<std::uint32_t>(e >> 32)), b = idx(static_cast<std::uint32_t>(e));
      to[pos[a]++] = b;
      from[rpos[b]++] = a;
      ++indeg[b];
    }
  }
  std::vector<std::uint32_t> q;
  for (std::uint32_t i = 0; i < n; ++i)
    if (indeg[i] == 0) q.push_back(i);
  for (std::size_t h = 0; h < q.size(); ++h)
    for (auto i = first[q[h]]; i < first[q[h] + 1]; ++i)
      if (--indeg[to[i]] == 0) q.push_back(to[i]);
  if (q.size() == n) return {};
  // Every channel left has a predecessor that is left too: walk back until one repeats.
  std::uint32_t v = 0;
  while (indeg[v] == 0) ++v;
  std::vector<std::uint32_t> seen_at(n, std::numeric_limits<std::uint32_t>::max()), walk;
  while (seen_at[v] == std::numeric_limits<std::uint32_t>::max()) {
    seen_at[v] = static_cast<std::uint32_t>(walk.size());
    walk.push_back(v);
    std::uint32_t u = v;
    for (auto i = rfirst[v]; i < rfirst[v + 1]; ++i)
      if (indeg[from[i]] != 0) {
        u = from[i];
        break;
      }
    v = u;
  }
  std::vector<std::uint64_t> cycle;  // walk[k] <- walk[k+1]: the edge walk[k+1] -> walk[k]
  for (std::size_t k = seen_at[v]; k < walk.size(); ++k) {
    const std::uint32_t b = walk[k], a = (k + 1 < walk.size()) ? walk[k + 1] : walk[seen_at[v]];
    cycle.push_back(std::uint64_t{ids[a]} << 32 | ids[b]);
  }
  std::sort(cycle.begin(), cycle.end());
  return cycle;
}


/// Follows every ordered pair of distinct PEs of `t` (any TopologyModel) by its route(), once per
/// (destination, node, class) state, and checks that each is delivered at its destination over
/// present links within nodes() hops with classes below buffer_classes(), and that the channel
/// dependency graph over (link, class) is acyclic. Throws usage_error "<what>: ..." naming the
/// first bad pair or a cycle of dependencies (with a route that uses it). Work: at most
/// pes x nodes x classes route() calls; memory nodes x classes words plus the dependencies.
template <class T>
void certify_routing(const T& t, const std::string& what) {
  const node_t N = t.nodes(), P = t.pes();
  const port_t Q = t.ports();
  const class_t C = t.buffer_classes();
  const std::uint64_t states = std::uint64_t{N} * C, channels = std::uint64_t{N} * Q * C;
  if (states > (std::uint64_t{1} << 28) || channels >= no_channel)
    throw usage_error(fmt::format("{}: too large to check the routing ({} nodes x {} classes)", what, N, C));
  auto channel_text = [&](std::uint32_t ch) {
    const node_t v = static_cast<node_t>(ch / (std::uint64_t{Q} * C));
    const auto p = static_cast<port_t>(ch / C % Q);
    return fmt::format("link {} -> {} (port {}, class {})", t.label(v), t.label(t.out_link(v, p).peer), p, ch % C);
  };
  constexpr std::uint32_t unknown = std::numeric_limits<std::uint32_t>::max(), on_walk = unknown - 1;
  std::vector<std::uint32_t> rem(states), out(states);
  std::vector<std::uint64_t> walk;
  auto follow = [&](auto&& on_edge) {
    for (node_t dst = 0; dst < P; ++dst) {
      std::fill(rem.begin(), rem.end(), unknown);
      for (node_t src = 0; src < P; ++src) {
        if (src == dst) continue;
        auto fail = [&](const std::string& msg) {
          return usage_error(fmt::format("{}: the route from PE {} to PE {} {}", what, src, dst, msg));
        };
        walk.clear();
        node_t cur = src;
        class_t cls = 0;
        std::uint32_t prev = no_channel, tail = 0;
        while (true) {
          const std::uint64_t st = std::uint64_t{cur} * C + cls;
          if (rem[st] == on_walk) throw fail(fmt::format("loops (node {} in class {} twice)", t.label(cur), cls));
          if (rem[st] != unknown) {
            if (prev != no_channel && out[st] != no_channel && on_edge(prev, out[st], src, dst)) return;
            tail = rem[st];
            break;
          }
          const Hop h = t.route(cur, dst, cls);
          if (h.delivers()) {
            if (cur != dst) throw fail(fmt::format("delivers at node {}", t.label(cur)));
            rem[st] = 0;
            out[st] = no_channel;
            break;
          }
          const Link l = h.port() < Q ? t.out_link(cur, h.port()) : Link{};
          if (!l.present())
            throw fail(fmt::format("leaves node {} through port {}, which has no link", t.label(cur), h.port()));
          if (h.next_class() >= C)
            throw fail(fmt::format("takes class {} at node {}; buffer classes are 0..{}", h.next_class(),
                                   t.label(cur), C - 1));
          if (walk.size() >= N) throw fail(fmt::format("does not arrive within {} hops", N));
          const auto ch = static_cast<std::uint32_t>((std::uint64_t{cur} * Q + h.port()) * C + h.next_class());
          rem[st] = on_walk;
          out[st] = ch;
          walk.push_back(st);
          if (prev != no_channel && on_edge(prev, ch, src, dst)) return;
          prev = ch;
          cur = l.peer;
          cls = h.next_class();
        }
        if (walk.size() + tail > N)
          throw fail(fmt::format("takes {} hops, more than the {} nodes", walk.size() + tail, N));
        for (std::size_t i = walk.size(); i-- > 0;) rem[walk[i]] = tail + static_cast<std::uint32_t>(walk.size() - i);
      }
    }
  };
  DependencySet deps(channels, std::uint64_t{Q} * C);
  follow([&](std::uint32_t a, std::uint32_t b, node_t, node_t) {
    deps.insert(a, b);
    return false;
  });
  auto first_at_peer = [&](std::uint32_t from) {
    const node_t v = static_cast<node_t>(from / (std::uint64_t{Q} * C));
    const auto p = static_cast<port_t>(from / C % Q);
    return std::uint64_t{t.out_link(v, p).peer} * Q * C;
  };
  const std::vector<std::uint64_t> cycle = find_cycle(deps.edges(first_at_peer));
  if (cycle.empty()) return;
  node_t s = 0, d = 0;
  std::uint64_t edge = cycle.front();
  follow([&](std::uint32_t a, std::uint32_t b, node_t src, node_t dst) {
    const std::uint64_t e = std::uint64_t{a} << 32 | b;
    if (!std::binary_search(cycle.begin(), cycle.end(), e)) return false;
    s = src, d = dst, edge = e;
    return true;
  });
  throw usage_error(fmt::format(
      "{}: the routing can deadlock: a cycle of {} channel dependencies, e.g. {} then {}, used by the route from PE "
      "{} to PE {}",
      what, cycle.size(), channel_text(static_cast<std::uint32_t>(edge >> 32)),
      channel_text(static_cast<std::uint32_t>(edge)), s, d));
}

}  // namespace rica::detail
