#include "rica/topology/user.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <unordered_set>

#include "cdg.hpp"

namespace rica {

using detail::DependencySet;
using detail::find_cycle;
using detail::no_channel;

UserTopology::UserTopology(UserTopologyDesc in) {
  auto d = std::make_shared<Desc>();
  d->spec = in.spec.empty() ? std::string("user") : std::move(in.spec);
  const std::string what = fmt::format("user topology '{}'", d->spec);
  auto fail = [&](const std::string& msg) { return usage_error(what + ": " + msg); };

  if (in.nodes < 2 || in.nodes > max_nodes)
    throw fail(fmt::format("nodes = {} is out of range [2, {}]", in.nodes, max_nodes));
  const node_t N = in.nodes, P = in.pes == 0 ? in.nodes : in.pes;
  if (P < 2 || P > N) throw fail(fmt::format("pes = {} is out of range [2, nodes = {}]", P, N));
  if (in.buffer_classes < 1) throw fail("buffer_classes must be at least 1");
  if (!in.routing) throw fail("no routing callable");
  if (static_cast<bool>(in.links) == !in.arcs.empty())
    throw fail(in.arcs.empty() ? "no links: give either a links callable or arcs"
                               : "give either a links callable or arcs, not both");
  d->nodes = N;
  d->pes = P;
  d->classes = in.buffer_classes;

  if (in.links) {
    if (in.ports < 1) throw fail("ports must be at least 1 with a links callable");
    if (std::uint64_t{N} * in.ports > link_table_limit)
      throw fail(fmt::format("nodes x ports = {} is more than the link table's {} entries",
                             std::uint64_t{N} * in.ports, link_table_limit));
    d->ports = in.ports;
    d->table.resize(std::size_t{N} * in.ports);
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < in.ports; ++p) d->table[std::size_t{v} * in.ports + p] = in.links(v, p);
  } else {
    // Out-ports in arc order per node, in-ports in order of (source node, source port).
    std::vector<std::uint32_t> outdeg(N, 0), indeg(N, 0);
    for (const auto& [u, v] : in.arcs) {
      if (u >= N || v >= N) throw fail(fmt::format("arc {} -> {} names a node outside [0, {}]", u, v, N - 1));
      ++outdeg[u];
      ++indeg[v];
    }
    const std::uint32_t q = std::max(*std::max_element(outdeg.begin(), outdeg.end()),
                                     *std::max_element(indeg.begin(), indeg.end()));
    if (q > max_ports) throw fail(fmt::format("a node has {} links; at most {} ports are supported", q, max_ports));
    if (std::uint64_t{N} * q > link_table_limit)
      throw fail(fmt::format("nodes x ports = {} is more than the link table's {} entries", std::uint64_t{N} * q,
                             link_table_limit));
    d->ports = static_cast<port_t>(q);
    d->table.assign(std::size_t{N} * q, Link{});
    std::fill(outdeg.begin(), outdeg.end(), 0);
    for (const auto& [u, v] : in.arcs) d->table[std::size_t{u} * q + outdeg[u]++].peer = v;
    std::fill(indeg.begin(), indeg.end(), 0);
    for (auto& l : d->table)
      if (l.present()) l.in_port = static_cast<port_t>(indeg[l.peer]++);
  }
  // Each (peer, in-port) is the end of exactly one link.
  {
    const port_t Q = d->ports;
    std::vector<std::uint64_t> fed(std::size_t{N} * Q, 0);  // 1 + the feeding (v * Q + p), 0 = none
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < Q; ++p) {
        const Link l = d->table[std::size_t{v} * Q + p];
        if (!l.present()) continue;
        if (l.peer >= N)
          throw fail(fmt::format("link from node {} port {} ends at node {}, outside [0, {}]", v, p, l.peer, N - 1));
        if (l.in_port >= Q)
          throw fail(fmt::format("link from node {} port {} arrives on in-port {}, but ports = {}", v, p, l.in_port, Q));
        auto& f = fed[std::size_t{l.peer} * Q + l.in_port];
        if (f != 0)
          throw fail(fmt::format("in-port {} of node {} is fed by two links (from node {} port {} and node {} port {})",
                                 l.in_port, l.peer, (f - 1) / Q, (f - 1) % Q, v, p));
        f = std::uint64_t{v} * Q + p + 1;
      }
  }
  if (!in.labels.empty()) {
    if (in.labels.size() != N) throw fail(fmt::format("{} labels for {} nodes", in.labels.size(), N));
    d->labels = std::move(in.labels);
  }
  if (in.shape.empty()) in.shape = {P};
  if (shape_size(in.shape) != P)
    throw fail(fmt::format("shape {} has {} PEs, not {}", shape_text(in.shape), shape_size(in.shape), P));
  d->shape = std::move(in.shape);
  d->routing = std::move(in.routing);
  d_ = std::move(d);
  if (in.check_routing && std::uint64_t{P} * N <= check_auto_limit) check_routing();
}

std::string UserTopology::label(node_t v) const {
  if (v < d_->labels.size() && !d_->labels[v].empty()) return d_->labels[v];
  return std::to_string(v);
}

void UserTopology::check_routing() const {
  const Desc& d = *d_;
  const std::string what = fmt::format("user topology '{}'", d.spec);
  const node_t N = d.nodes, P = d.pes;
  const port_t Q = d.ports;
  const class_t C = d.classes;
  const std::uint64_t states = std::uint64_t{N} * C, channels = std::uint64_t{N} * Q * C;
  if (states > (std::uint64_t{1} << 28) || channels >= no_channel)
    throw usage_error(fmt::format("{}: too large to check the routing ({} nodes x {} classes)", what, N, C));
  auto channel_text = [&](std::uint32_t ch) {
    const node_t v = static_cast<node_t>(ch / (std::uint64_t{Q} * C));
    const auto p = static_cast<port_t>(ch / C % Q);
    return fmt::format("link {} -> {} (port {}, class {})", v, d.table[std::size_t{v} * Q + p].peer, p, ch % C);
  };

  // Memo per destination: remaining hops from each (node, class) state, or unknown / on the
  // walk now; and the channel the state leaves through (no_channel when it delivers).
  constexpr std::uint32_t unknown = std::numeric_limits<std::uint32_t>::max(), on_walk = unknown - 1;
  std::vector<std::uint32_t> rem(states), out(states);
  std::vector<std::uint64_t> walk;
  // Follows every route once per (destination, state); on_edge(from, to, src, dst) sees every
  // channel dependency some route has (at least once) and returns true to stop.
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
          if (rem[st] == on_walk) throw fail(fmt::format("loops (node {} in class {} twice)", cur, cls));
          if (rem[st] != unknown) {  // the rest of this route was followed before
            if (prev != no_channel && out[st] != no_channel && on_edge(prev, out[st], src, dst)) return;
            tail = rem[st];
            break;
          }
          const Hop h = d.routing(cur, dst, cls);
          if (h.delivers()) {
            if (cur != dst) throw fail(fmt::format("delivers at node {}", cur));
            rem[st] = 0;
            out[st] = no_channel;
            break;
          }
          if (h.port() >= Q || !d.table[std::size_t{cur} * Q + h.port()].present())
            throw fail(fmt::format("leaves node {} through port {}, which has no link", cur, h.port()));
          if (h.next_class() >= C)
            throw fail(fmt::format("takes class {} at node {}; buffer classes are 0..{}", h.next_class(), cur, C - 1));
          if (walk.size() >= N) throw fail(fmt::format("does not arrive within {} hops", N));
          const auto ch = static_cast<std::uint32_t>((std::uint64_t{cur} * Q + h.port()) * C + h.next_class());
          rem[st] = on_walk;
          out[st] = ch;
          walk.push_back(st);
          if (prev != no_channel && on_edge(prev, ch, src, dst)) return;
          prev = ch;
          cur = d.table[std::size_t{cur} * Q + h.port()].peer;
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
    const std::size_t link = from / C;  // = v * Q + p
    return std::uint64_t{d.table[link].peer} * Q * C;
  };
  const std::vector<std::uint64_t> cycle = find_cycle(deps.edges(first_at_peer));
  if (cycle.empty()) return;
  // Name a pair whose route uses a dependency on the cycle (the first, in the same order).
  node_t s = 0, t = 0;
  std::uint64_t edge = cycle.front();
  follow([&](std::uint32_t a, std::uint32_t b, node_t src, node_t dst) {
    const std::uint64_t e = std::uint64_t{a} << 32 | b;
    if (!std::binary_search(cycle.begin(), cycle.end(), e)) return false;
    s = src, t = dst, edge = e;
    return true;
  });
  throw usage_error(fmt::format(
      "{}: the routing can deadlock: a cycle of {} channel dependencies, e.g. {} then {}, used by the route from PE "
      "{} to PE {}",
      what, cycle.size(), channel_text(static_cast<std::uint32_t>(edge >> 32)),
      channel_text(static_cast<std::uint32_t>(edge)), s, t));
}

}  // namespace rica
