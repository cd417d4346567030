#include "rica/topology/user.hpp"

#include "rica/partition_layout.hpp"

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
  if (!in.orbits.empty()) {
    if (in.orbits.size() != N) throw fail(fmt::format("{} orbit numbers for {} nodes", in.orbits.size(), N));
    const std::uint32_t k = *std::max_element(in.orbits.begin(), in.orbits.end()) + 1;
    if (k > N) throw fail(fmt::format("orbit {} of {} nodes: orbits are numbered 0..K-1", k - 1, N));
    d->orbit_reps.assign(k, no_node);
    for (node_t v = N; v-- > 0;) d->orbit_reps[in.orbits[v]] = v;  // the least node of each orbit
    for (std::uint32_t o = 0; o < k; ++o)
      if (d->orbit_reps[o] == no_node) throw fail(fmt::format("orbit {} has no node; orbits are numbered 0..K-1", o));
    for (node_t v = 0; v < N; ++v)
      if ((v < P) != (d->orbit_reps[in.orbits[v]] < P))
        throw fail(fmt::format("orbit {} holds PE and switch nodes (node {})", in.orbits[v], v));
    d->orbits = std::move(in.orbits);
  }
  d->symmetry_keeps_ports = in.symmetry_keeps_ports && !d->orbits.empty();
  d->partition = std::move(in.partition);
  d->grid = std::move(in.grid);
  if (d->grid && shape_size(d->grid->sides) != N)
    throw fail(fmt::format("grid sides {} have {} nodes, not {}", shape_text(d->grid->sides), shape_size(d->grid->sides), N));
  d->bit_addressing = in.bit_addressing;
  d->embedding = std::move(in.embedding);
  d->routing = std::move(in.routing);
  d_ = std::move(d);
  if (in.check_routing && std::uint64_t{P} * N <= check_auto_limit) check_routing();
}

std::optional<PartitionLayout> UserTopology::partition_layout(const Topology& self, const PartitionRequest& r) const {
  if (!d_->partition) return std::nullopt;
  PartitionLayout L = d_->partition(self, r);
  if (L.part_of.size() != d_->pes)
    throw usage_error(fmt::format("partition {}: the family's rule gave {} PEs' partitions for {} PEs", d_->spec,
                                  L.part_of.size(), d_->pes));
  for (node_t v = 0; v < d_->pes; ++v)
    if (L.part_of[v] >= L.parts && L.part_of[v] != PartitionPlan::none)
      throw usage_error(fmt::format("partition {}: the family's rule put PE {} in partition {} of {}", d_->spec, v,
                                    L.part_of[v], L.parts));
  if (!L.shapes.empty() && L.shapes.size() != L.parts) L.shapes.clear();
  if (!L.descriptions.empty() && L.descriptions.size() != L.parts) L.descriptions.clear();
  if (L.sym) L.sym.reset();  // an XOR symmetry is the built-in rules' promise; verify every pair here
  if (L.rule.empty()) L.rule = "user";
  return L;
}

std::string UserTopology::label(node_t v) const {
  if (v < d_->labels.size() && !d_->labels[v].empty()) return d_->labels[v];
  return std::to_string(v);
}

void UserTopology::check_routing() const {
  detail::certify_routing(*this, fmt::format("user topology '{}'", d_->spec));  // runtime/topology/cdg.hpp
}

}  // namespace rica
