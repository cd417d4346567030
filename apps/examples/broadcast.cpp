// Broadcast (broadcast.hpp): flooding or a BFS spanning tree over the PE graph of any topology.
#include "broadcast.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "rica/core.hpp"
#include "rica/graph.hpp"

namespace rica::examples {

PeGraph pe_graph(const Topology& t) {
  const Graph g = build_graph(t);
  PeGraph out;
  out.pes = t.pes();
  out.first.assign(std::size_t{out.pes} + 1, 0);
  // From each PE, a search over switch nodes only (PEs are nodes [0, pes), switches follow):
  // the PEs it meets are its neighbours. A direct network has no switches: the out-link peers.
  std::vector<std::uint32_t> seen(g.nodes, unreachable);
  std::vector<node_t> stack, found;
  for (node_t p = 0; p < out.pes; ++p) {
    found.clear();
    stack.assign(1, p);
    seen[p] = p;
    while (!stack.empty()) {
      const node_t u = stack.back();
      stack.pop_back();
      for (auto i = g.first[u]; i < g.first[u + 1]; ++i) {
        const node_t v = g.target[i];
        if (seen[v] == p) continue;
        seen[v] = p;
        if (v < out.pes) found.push_back(v);
        else stack.push_back(v);
      }
    }
    std::sort(found.begin(), found.end());
    // Refused early when PE 0's neighbours times N already exceed the limit (an indirect network).
    const std::uint64_t projected = p == 0 ? std::uint64_t{found.size()} * out.pes : 0;
    if (out.target.size() + found.size() > PeGraph::max_pairs || projected > PeGraph::max_pairs)
      throw usage_error(fmt::format("app 'broadcast': the PE graph of '{}' would have more than {} (PE, neighbour) pairs "
                                    "(an indirect network of N PEs has N (N-1)); use at most 8,192 PEs there",
                                    t.spec(), PeGraph::max_pairs));
    out.target.insert(out.target.end(), found.begin(), found.end());
    out.first[p + 1] = static_cast<std::uint32_t>(out.target.size());
  }
  return out;
}

std::vector<std::uint32_t> pe_distances(const PeGraph& g, node_t src) {
  std::vector<std::uint32_t> dist(g.pes, unreachable);
  std::vector<node_t> queue{src};
  dist[src] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const node_t u = queue[head];
    for (node_t v : g.neighbours(u))
      if (dist[v] == unreachable) {
        dist[v] = dist[u] + 1;
        queue.push_back(v);
      }
  }
  return dist;
}

// Everything that depends only on the topology is built here, so that a bad spec is refused
// before any run starts.
Broadcast::Broadcast(const Topology& t, node_t source, BroadcastRule rule) : source_(source), rule_(rule) {
  if (source_ >= t.pes())
    throw usage_error(fmt::format("app 'broadcast': parameter 'source' = {} is not a PE; accepted: 0..{}", source_,
                                  t.pes() - 1));
  graph_ = pe_graph(t);
  const auto dist = pe_distances(graph_, source_);
  eccentricity_ = 0;
  for (node_t p = 0; p < graph_.pes; ++p) {
    if (dist[p] == unreachable)
      throw usage_error(fmt::format("app 'broadcast': PE {} cannot be reached from PE {} on '{}'", p, source_,
                                    t.spec()));
    eccentricity_ = std::max(eccentricity_, dist[p]);
  }
  children_.assign(graph_.pes, {});
  std::uint64_t most = 0;
  if (rule_ == BroadcastRule::tree) {
    // Parent of q: its lowest-numbered PE-neighbour-in (p with q among p's neighbours) one level
    // up. Scanning p ascending and taking the first claim gives exactly that.
    std::vector<node_t> parent(graph_.pes, no_node);
    for (node_t p = 0; p < graph_.pes; ++p)
      for (node_t q : graph_.neighbours(p))
        if (dist[q] == dist[p] + 1 && parent[q] == no_node) parent[q] = p;
    for (node_t q = 0; q < graph_.pes; ++q)
      if (q != source_) children_[parent[q]].push_back(q);
    for (const auto& c : children_) most = std::max<std::uint64_t>(most, c.size());
    // One-port (telephone) model of the tree: a PE sends to one child per step, the child whose
    // subtree takes longest first (optimal for a fixed tree). Bottom-up by decreasing level.
    std::vector<node_t> order(graph_.pes);
    for (node_t p = 0; p < graph_.pes; ++p) order[p] = p;
    std::sort(order.begin(), order.end(), [&](node_t a, node_t b) { return dist[a] > dist[b]; });
    std::vector<std::uint32_t> steps(graph_.pes, 0);
    for (node_t u : order) {
      auto& c = children_[u];
      std::stable_sort(c.begin(), c.end(), [&](node_t a, node_t b) { return steps[a] > steps[b]; });
      for (std::size_t i = 0; i < c.size(); ++i)
        steps[u] = std::max<std::uint32_t>(steps[u], static_cast<std::uint32_t>(i + 1) + steps[c[i]]);
    }
    one_port_steps_ = steps[source_];
  } else {
    for (node_t p = 0; p < graph_.pes; ++p) most = std::max<std::uint64_t>(most, graph_.neighbours(p).size());
  }
  max_sends_ = most;
}

void Broadcast::setup(Machine& m) {
  if (m.pes() != m.topology().pes())
    throw usage_error("app 'broadcast' needs the whole machine (it floods the topology's links), not a job's PEs");
  if (m.pes() != graph_.pes)
    throw std::logic_error(fmt::format("broadcast was built for {} PEs, run on {}", graph_.pes, m.pes()));
  handler_ = m.add_handler([this](Context& ctx, const Packet& p) { on_copy(ctx, p); });
  pe_.assign(m.pes(), PeResult{});
}

void Broadcast::start(Context& ctx) {
  if (ctx.pe() != source_) return;
  PeResult& s = pe_[ctx.pe()];
  s.reached = true;
  s.time = start_time_ = ctx.now();
  forward(ctx, s, no_node);
}

// payload: word 0 = the receiver's level (sender's + 1), word 1 = links the sender's copy crossed.
void Broadcast::forward(Context& ctx, PeResult& s, node_t except) {
  const auto send = [&](node_t q) {
    ctx.send(q, handler_, s.level + 1, s.links);
    ++s.sent;
  };
  if (rule_ == BroadcastRule::tree) {
    for (node_t q : children_[ctx.pe()]) send(q);
  } else {
    for (node_t q : graph_.neighbours(ctx.pe()))
      if (q != except) send(q);
  }
}

void Broadcast::on_copy(Context& ctx, const Packet& p) {
  PeResult& s = pe_[ctx.pe()];
  ++s.received;
  if (s.reached) return;  // a duplicate: counted, not forwarded
  s.reached = true;
  s.level = static_cast<std::uint32_t>(p.payload[0]);
  s.links = static_cast<std::uint32_t>(p.payload[1]) + p.hops;
  s.time = ctx.now();
  forward(ctx, s, p.src);
}

std::uint32_t Broadcast::depth() const {
  std::uint32_t d = 0;
  for (const auto& s : pe_) d = std::max(d, s.level);
  return d;
}

std::uint64_t Broadcast::time() const {
  std::uint64_t t = 0;
  for (const auto& s : pe_) t = std::max(t, s.time - start_time_);
  return t;
}

std::uint64_t Broadcast::messages() const {
  std::uint64_t n = 0;
  for (const auto& s : pe_) n += s.sent;
  return n;
}

std::uint64_t Broadcast::first_receipts() const {
  std::uint64_t n = 0;
  for (node_t p = 0; p < pe_.size(); ++p) n += p != source_ && pe_[p].reached;
  return n;
}

std::uint64_t Broadcast::duplicates() const {
  std::uint64_t received = 0;
  for (const auto& s : pe_) received += s.received;
  return received - first_receipts();
}

bool Broadcast::verify(std::string& why) const {
  std::uint64_t received = 0;
  for (node_t p = 0; p < pe_.size(); ++p) {
    const PeResult& s = pe_[p];
    received += s.received;
    if (!s.reached) {
      why = fmt::format("broadcast: PE {} never received the message", p);
      return false;
    }
    if (p != source_ && s.received == 0) {
      why = fmt::format("broadcast: PE {} is marked reached without a copy", p);
      return false;
    }
    if (s.level == 0 && p != source_) {
      why = fmt::format("broadcast: PE {} has level 0", p);
      return false;
    }
  }
  if (received != messages()) {
    why = fmt::format("broadcast: {} copies received, {} sent", received, messages());
    return false;
  }
  if (rule_ == BroadcastRule::tree && (messages() != pe_.size() - 1 || depth() != eccentricity_)) {
    why = fmt::format("broadcast (tree): {} messages, depth {}; expected {} and the eccentricity {}", messages(),
                      depth(), pe_.size() - 1, eccentricity_);
    return false;
  }
  return true;
}

nlohmann::json Broadcast::summary() const {
  const std::uint64_t n = pe_.size();
  nlohmann::json j = {{"app", "broadcast"},
                      {"rule", rule_ == BroadcastRule::tree ? "tree" : "flood"},
                      {"source", source_},
                      {"pes", n},
                      {"first_receipts", first_receipts()},
                      {"messages", messages()},
                      {"duplicates", duplicates()},
                      {"depth", depth()},
                      {"eccentricity", eccentricity_},
                      {"links", 0},
                      {"time", time()}};
  std::uint32_t links = 0;
  for (const auto& s : pe_) links = std::max(links, s.links);
  j["links"] = links;
  if (n >= 2 && (n & (n - 1)) == 0) j["two_log2_pes"] = 2 * std::countr_zero(n);
  if (rule_ == BroadcastRule::tree) j["one_port_steps"] = one_port_steps_;
  return j;
}

}  // namespace rica::examples
