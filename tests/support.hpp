#pragma once
// Independent checks shared by the test suites: link consistency, exhaustive route tracing and
// the Dally-Seitz channel-dependency-graph acyclicity check.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "rica/topology.hpp"

namespace rica::test {

/// Every link ends at an existing node on an in-port < ports(), and each (peer, in_port) is the
/// end of exactly one link.
inline void expect_consistent_links(const Topology& t) {
  const node_t n = t.nodes();
  const port_t P = t.ports();
  std::vector<std::uint8_t> used(std::size_t{n} * P, 0);
  for (node_t v = 0; v < n; ++v)
    for (port_t p = 0; p < P; ++p) {
      const Link l = t.out_link(v, p);
      if (!l.present()) continue;
      ASSERT_LT(l.peer, n) << t.spec() << " node " << v << " port " << p;
      ASSERT_LT(l.in_port, P) << t.spec() << " node " << v << " port " << p;
      auto& u = used[std::size_t{l.peer} * P + l.in_port];
      ASSERT_EQ(u, 0) << t.spec() << ": in-port " << l.in_port << " of node " << l.peer << " is fed twice";
      u = 1;
    }
}

struct RouteStats {
  std::uint64_t pairs = 0, hops = 0;
  unsigned max_hops = 0, max_class = 0;
  std::vector<std::uint64_t> deps;  // channel dependencies (from << 32 | to), channel = (v*P+p)*C+c
};

/// Follows the routing for the given pairs, asserting delivery over present links with classes
/// below buffer_classes(); records channel dependencies when `deps` is set.
inline RouteStats trace_pairs(const Topology& t, const std::vector<std::pair<node_t, node_t>>& pairs, bool deps) {
  RouteStats st;
  const port_t P = t.ports();
  const class_t C = t.buffer_classes();
  t.visit([&](const auto& topo) {
    for (auto [s, d] : pairs) {
      node_t cur = s;
      class_t cls = 0;
      unsigned hops = 0;
      std::uint64_t prev = ~std::uint64_t{0};
      while (true) {
        const Hop h = topo.route(cur, d, cls);
        if (h.delivers()) break;
        const Link l = topo.out_link(cur, h.port());
        ASSERT_TRUE(l.present()) << t.spec() << ": route " << s << "->" << d << " uses absent port " << h.port()
                                 << " at " << cur;
        ASSERT_LT(h.next_class(), C) << t.spec() << ": route " << s << "->" << d;
        st.max_class = std::max<unsigned>(st.max_class, h.next_class());
        const std::uint64_t ch = (std::uint64_t{cur} * P + h.port()) * C + h.next_class();
        if (deps && prev != ~std::uint64_t{0}) st.deps.push_back(prev << 32 | ch);
        prev = ch;
        cur = l.peer;
        cls = h.next_class();
        ASSERT_LE(++hops, t.nodes()) << t.spec() << ": routing loop " << s << "->" << d;
      }
      ASSERT_EQ(cur, d) << t.spec() << ": delivered at the wrong node";
      st.hops += hops;
      st.max_hops = std::max(st.max_hops, hops);
      ++st.pairs;
    }
  });
  return st;
}

inline std::vector<std::pair<node_t, node_t>> all_pairs(const Topology& t) {
  std::vector<std::pair<node_t, node_t>> v;
  for (node_t s = 0; s < t.pes(); ++s)
    for (node_t d = 0; d < t.pes(); ++d)
      if (s != d) v.emplace_back(s, d);
  return v;
}

inline std::vector<std::pair<node_t, node_t>> random_pairs(const Topology& t, std::size_t k, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<node_t> pe(0, t.pes() - 1);
  std::vector<std::pair<node_t, node_t>> v;
  while (v.size() < k) {
    const node_t s = pe(rng), d = pe(rng);
    if (s != d) v.emplace_back(s, d);
  }
  return v;
}

/// Kahn's algorithm over the recorded channel dependencies: true when acyclic.
inline bool acyclic(std::vector<std::uint64_t> deps) {
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  std::vector<std::uint32_t> ids;
  for (auto e : deps) {
    ids.push_back(static_cast<std::uint32_t>(e >> 32));
    ids.push_back(static_cast<std::uint32_t>(e));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  auto idx = [&](std::uint32_t c) { return std::lower_bound(ids.begin(), ids.end(), c) - ids.begin(); };
  std::vector<std::uint32_t> indeg(ids.size(), 0), first(ids.size() + 1, 0);
  std::vector<std::uint32_t> to(deps.size());
  for (auto e : deps) ++first[idx(static_cast<std::uint32_t>(e >> 32)) + 1];
  for (std::size_t i = 0; i < ids.size(); ++i) first[i + 1] += first[i];
  std::vector<std::uint32_t> pos(first.begin(), first.end() - 1);
  for (auto e : deps) {
    const auto b = idx(static_cast<std::uint32_t>(e));
    to[pos[idx(static_cast<std::uint32_t>(e >> 32))]++] = static_cast<std::uint32_t>(b);
    ++indeg[b];
  }
  std::vector<std::uint32_t> q;
  for (std::size_t i = 0; i < ids.size(); ++i)
    if (!indeg[i]) q.push_back(static_cast<std::uint32_t>(i));
  std::size_t done = 0;
  while (done < q.size()) {
    const auto u = q[done++];
    for (auto i = first[u]; i < first[u + 1]; ++i)
      if (--indeg[to[i]] == 0) q.push_back(to[i]);
  }
  return done == ids.size();
}

}  // namespace rica::test
