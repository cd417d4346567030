#include "rica/topology/table.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include "rica/defaults.hpp"
#include "rica/io.hpp"

namespace rica {

namespace {

constexpr std::uint16_t unreachable = std::numeric_limits<std::uint16_t>::max();

std::string binary_label(node_t v, unsigned n) {
  std::string s(n, '0');
  for (unsigned i = 0; i < n; ++i)
    if (detail::bit(v, i)) s[n - 1 - i] = '1';
  return s;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// Splits a line into whitespace-separated tokens (views into `line`).
std::vector<std::string_view> tokens_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t b = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > b) out.push_back(line.substr(b, i - b));
  }
  return out;
}

std::optional<std::uint64_t> to_uint(std::string_view t) {
  std::uint64_t v = 0;
  const auto* e = t.data() + t.size();
  const auto r = std::from_chars(t.data(), e, v);
  if (r.ec != std::errc{} || r.ptr != e) return std::nullopt;
  return v;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Edge-list parsing

EdgeList parse_edge_list(std::istream& in, const std::string& origin) {
  constexpr std::uint64_t limit = GraphTopology::table_limit;
  struct PendingArc {
    node_t u, v;
    std::size_t line;
  };
  struct PendingLabel {
    node_t id;
    std::string text;
    std::size_t line;
  };
  std::optional<std::uint64_t> nodes, pes;
  std::size_t nodes_line = 0, pes_line = 0, directed_line = 0;
  std::vector<PendingArc> links;
  std::vector<PendingLabel> labels;
  std::uint64_t largest = 0;

  std::string raw;
  std::size_t lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    auto fail = [&](const std::string& what) {
      return usage_error(fmt::format("{}:{}: {}", origin, lineno, what));
    };
    std::string_view line = raw;
    if (const auto h = line.find('#'); h != std::string_view::npos) line = line.substr(0, h);
    const auto tok = tokens_of(line);
    if (tok.empty()) continue;

    auto node_id = [&](std::string_view t) -> node_t {
      const auto v = to_uint(t);
      if (!v) throw fail(fmt::format("expected a node id (a non-negative integer), got {}", quote_input(t)));
      if (*v >= limit) throw fail(fmt::format("node id {} is out of range [0, {}]", *v, limit - 1));
      largest = std::max(largest, *v);
      return static_cast<node_t>(*v);
    };
    auto count_value = [&](std::string_view kw, std::optional<std::uint64_t>& slot, std::size_t& slot_line) {
      if (slot) throw fail(fmt::format("'{}' given twice (first on line {})", kw, slot_line));
      if (tok.size() != 2) throw fail(fmt::format("'{}' takes exactly one value: '{} <count>'", kw, kw));
      const auto v = to_uint(tok[1]);
      if (!v) throw fail(fmt::format("'{}' value must be a positive integer, got {}", kw, quote_input(tok[1])));
      if (*v < 1 || *v > limit)
        throw fail(fmt::format("'{}' = {} is out of range [1, {}]", kw, *v, limit));
      slot = *v;
      slot_line = lineno;
    };

    const std::string_view kw = tok[0];
    if (kw == "nodes") {
      count_value(kw, nodes, nodes_line);
    } else if (kw == "pes") {
      count_value(kw, pes, pes_line);
    } else if (kw == "directed") {
      if (tok.size() != 1) throw fail("'directed' takes no value");
      if (directed_line) throw fail(fmt::format("'directed' given twice (first on line {})", directed_line));
      directed_line = lineno;
    } else if (kw == "label") {
      if (tok.size() < 3) throw fail("expected 'label <id> <text>'");
      const node_t id = node_id(tok[1]);
      // The text is the rest of the line after the id token, trimmed.
      const std::size_t from = static_cast<std::size_t>(tok[1].data() + tok[1].size() - line.data());
      std::string_view text = line.substr(from);
      while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
      while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
      for (const auto& l : labels)
        if (l.id == id) throw fail(fmt::format("node {} labelled twice (first on line {})", id, l.line));
      labels.push_back({id, std::string(text), lineno});
    } else if (to_uint(kw) || (!kw.empty() && kw.front() >= '0' && kw.front() <= '9') || kw.front() == '-') {
      if (tok.size() != 2)
        throw fail(fmt::format("a link line is '<u> <v>' (two node ids), got {} fields", tok.size()));
      const node_t u = node_id(tok[0]), v = node_id(tok[1]);
      if (u == v) throw fail(fmt::format("self-loop at node {} is not allowed", u));
      links.push_back({u, v, lineno});
    } else {
      throw fail(fmt::format("unknown keyword {} (expected nodes, pes, directed, label or '<u> <v>')", quote_input(kw)));
    }
  }
  if (in.bad()) throw usage_error(fmt::format("{}: read error", origin));
  if (links.empty()) throw usage_error(fmt::format("{}: no links (expected lines '<u> <v>')", origin));

  EdgeList g;
  const std::uint64_t n = nodes ? *nodes : largest + 1;
  for (const auto& l : links)
    for (const node_t id : {l.u, l.v})
      if (id >= n)
        throw usage_error(fmt::format("{}:{}: node id {} is out of range [0, {}] (nodes {} on line {})", origin,
                                      l.line, id, n - 1, n, nodes_line));
  for (const auto& l : labels)
    if (l.id >= n)
      throw usage_error(fmt::format("{}:{}: node id {} is out of range [0, {}] (nodes {} on line {})", origin,
                                    l.line, l.id, n - 1, n, nodes_line));
  if (pes && *pes > n)
    throw usage_error(fmt::format("{}:{}: 'pes' = {} is more than the {} nodes", origin, pes_line, *pes, n));
  g.nodes = static_cast<node_t>(n);
  g.pes = static_cast<node_t>(pes ? *pes : n);
  const bool directed = directed_line != 0;
  g.arcs.reserve(links.size() * (directed ? 1 : 2));
  for (const auto& l : links) {
    g.arcs.emplace_back(l.u, l.v);
    if (!directed) g.arcs.emplace_back(l.v, l.u);
  }
  if (!labels.empty()) {
    g.labels.assign(n, std::string{});
    for (auto& l : labels) g.labels[l.id] = std::move(l.text);
  }
  return g;
}

// ---------------------------------------------------------------------------------------------
// GraphTopology

GraphTopology::GraphTopology(const EdgeList& graph, std::string spec) : spec_(std::move(spec)) {
  const std::string& what = spec_;
  detail::check_range(what, "nodes", graph.nodes, 1, table_limit);
  detail::check_range(what, "pes", graph.pes, 1, graph.nodes);
  const node_t N = graph.nodes, P = graph.pes;

  auto t = std::make_shared<Tables>();
  t->nodes = N;
  t->pes = P;

  // CSR of the out-arcs, input order within a node; self-loops dropped.
  std::vector<std::uint32_t> outdeg(N, 0);
  for (const auto& [u, v] : graph.arcs) {
    if (u >= N || v >= N)
      throw usage_error(fmt::format("{}: arc {} -> {} names a node outside [0, {}]", what, u, v, N - 1));
    if (u != v) ++outdeg[u];
  }
  t->first.assign(std::size_t{N} + 1, 0);
  std::uint32_t max_out = 0;
  for (node_t v = 0; v < N; ++v) {
    t->first[v + 1] = t->first[v] + outdeg[v];
    max_out = std::max(max_out, outdeg[v]);
  }
  if (max_out > 255)
    throw usage_error(fmt::format("{}: a node has {} out-links; the routing table supports at most 255", what, max_out));
  t->links.assign(t->first[N], Link{});
  {
    std::vector<std::uint32_t> fill(t->first.begin(), t->first.end() - 1);
    for (const auto& [u, v] : graph.arcs)
      if (u != v) t->links[fill[u]++].peer = v;
  }
  // In-ports in order of (source node, source port).
  std::vector<std::uint32_t> indeg(N, 0);
  for (node_t v = 0; v < N; ++v)
    for (auto i = t->first[v]; i < t->first[v + 1]; ++i) {
      auto& l = t->links[i];
      if (indeg[l.peer] >= 65535)
        throw usage_error(fmt::format("{}: node {} has too many in-links", what, l.peer));
      l.in_port = static_cast<port_t>(indeg[l.peer]++);
    }
  std::uint32_t max_in = 0;
  for (auto d : indeg) max_in = std::max(max_in, d);
  t->max_ports = static_cast<port_t>(std::max(max_out, max_in));

  t->labels = graph.labels;
  if (!t->labels.empty()) t->labels.resize(N);

  // Reverse CSR: for every node, the sources of its in-arcs.
  std::vector<std::uint32_t> rfirst(std::size_t{N} + 1, 0);
  for (const auto& l : t->links) ++rfirst[l.peer + 1];
  for (node_t v = 0; v < N; ++v) rfirst[v + 1] += rfirst[v];
  std::vector<node_t> rsrc(rfirst[N]);
  {
    std::vector<std::uint32_t> fill(rfirst.begin(), rfirst.end() - 1);
    for (node_t v = 0; v < N; ++v)
      for (auto i = t->first[v]; i < t->first[v + 1]; ++i) rsrc[fill[t->links[i].peer]++] = v;
  }

  // All-pairs BFS over the reversed graph from every destination PE, a block of destinations at
  // a time so that the table rows [v * P + dst] are written contiguously.
  const std::size_t cells = std::size_t{N} * P;
  t->dist.assign(cells, unreachable);
  t->next_port.assign(cells, 0);
  auto name = [&](node_t v) {
    return (v < t->labels.size() && !t->labels[v].empty()) ? fmt::format("{} ('{}')", v, t->labels[v])
                                                            : std::to_string(v);
  };
  constexpr node_t block = 64;
  const node_t blocks = (P + block - 1) / block;
  // Blocks are independent (disjoint table cells): spread them over a few threads.
  std::atomic<node_t> next_block{0};
  std::atomic<node_t> bad_dst{no_node};  // lowest destination some PE cannot reach
  std::vector<unsigned> diam(std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), 8u)), 0);
  if (std::uint64_t{N} * P < (1u << 20)) diam.resize(1);  // small: not worth threads
  auto worker = [&](unsigned& diameter) {
    std::vector<std::uint16_t> dblock(std::size_t{block} * N);
    std::vector<node_t> queue(N);
    for (node_t bi; (bi = next_block.fetch_add(1)) < blocks;) {
      const node_t dst0 = bi * block, nb = std::min(block, P - dst0);
      for (node_t j = 0; j < nb; ++j) {
        const node_t dst = dst0 + j;
        std::uint16_t* d = dblock.data() + std::size_t{j} * N;
        std::fill(d, d + N, unreachable);
        d[dst] = 0;
        std::size_t head = 0, tail = 0;
        queue[tail++] = dst;
        while (head < tail) {
          const node_t w = queue[head++];
          for (auto i = rfirst[w]; i < rfirst[w + 1]; ++i) {
            const node_t u = rsrc[i];
            if (d[u] == unreachable) {
              d[u] = static_cast<std::uint16_t>(d[w] + 1);
              queue[tail++] = u;
            }
          }
        }
        for (node_t s = 0; s < P; ++s) {
          if (d[s] == unreachable) {
            node_t cur = bad_dst.load();
            while (dst < cur && !bad_dst.compare_exchange_weak(cur, dst)) {
            }
            return;
          }
          diameter = std::max<unsigned>(diameter, d[s]);
        }
      }
      for (node_t v = 0; v < N; ++v) {
        const auto b = t->first[v], e = t->first[v + 1];
        for (node_t j = 0; j < nb; ++j) {
          const std::uint16_t* d = dblock.data() + std::size_t{j} * N;
          const std::size_t cell = std::size_t{v} * P + dst0 + j;
          t->dist[cell] = d[v];
          if (d[v] == 0) continue;
          for (auto i = b; i < e; ++i)
            if (d[t->links[i].peer] + 1 == d[v]) {  // lowest port on a shortest path
              t->next_port[cell] = static_cast<std::uint8_t>(i - b);
              break;
            }
        }
      }
    }
  };
  {
    std::vector<std::thread> pool;
    for (std::size_t k = 1; k < diam.size(); ++k) pool.emplace_back(worker, std::ref(diam[k]));
    worker(diam[0]);
    for (auto& th : pool) th.join();
  }
  if (const node_t dst = bad_dst.load(); dst != no_node) {
    // Name one PE that cannot reach `dst` (recomputed: the error path is rare).
    std::vector<bool> seen(N, false);
    std::vector<node_t> q{dst};
    seen[dst] = true;
    for (std::size_t h = 0; h < q.size(); ++h)
      for (auto i = rfirst[q[h]]; i < rfirst[q[h] + 1]; ++i)
        if (!seen[rsrc[i]]) {
          seen[rsrc[i]] = true;
          q.push_back(rsrc[i]);
        }
    node_t s = 0;
    while (s < P && seen[s]) ++s;
    throw usage_error(fmt::format("{}: the network is not strongly connected: PE {} cannot reach PE {}", what,
                                  name(s), name(dst)));
  }
  const unsigned diameter = *std::max_element(diam.begin(), diam.end());
  t->diameter = diameter;
  t_ = std::move(t);
}

std::string GraphTopology::label(node_t v) const {
  if (v < t_->labels.size() && !t_->labels[v].empty()) return t_->labels[v];
  return std::to_string(v);
}

// ---------------------------------------------------------------------------------------------
// Shuffle-exchange and edge-list files

GraphTopology make_shuffle_exchange(unsigned n) {
  detail::check_range("shuffle", "n", n, 2, 13);
  EdgeList g;
  g.nodes = g.pes = node_t{1} << n;
  g.labels.reserve(g.nodes);
  for (node_t v = 0; v < g.nodes; ++v) {
    // Ports in this order, self-loops dropped, duplicates merged: shuffle, unshuffle, exchange.
    const node_t c[3] = {detail::rotl(v, n), detail::rotr(v, n), v ^ 1u};
    for (unsigned i = 0; i < 3; ++i) {
      if (c[i] == v) continue;
      if (std::find(c, c + i, c[i]) != c + i) continue;
      g.arcs.emplace_back(v, c[i]);
    }
    g.labels.push_back(binary_label(v, n));
  }
  return GraphTopology(g, fmt::format("shuffle:n={}", n));
}

GraphTopology load_edge_list_file(const std::string& path) {
  std::istringstream in(read_text_file(
      path, "file:" + path, {defaults::input::topology_file_bytes, defaults::input::topology_line_bytes}));
  EdgeList g = parse_edge_list(in, path);
  return GraphTopology(g, "file:" + path);
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_shuffle(const SpecArgs& a) { return make_shuffle_exchange(a.uint("n")); }
Topology make_file(const SpecArgs& a) {
  if (a.raw().empty()) throw usage_error("file: expected 'file:<path>' naming an edge-list file");
  return load_edge_list_file(a.raw());
}

}  // namespace

std::vector<TopologyEntry> GraphTopology::registry_entries() {
  return {
      {"shuffle", "shuffle-exchange; table routing", "shuffle:10", {{"n", "2..13", "", "address bits: 2^n nodes"}},
       "n", make_shuffle},
      {"file", "custom topology from an edge-list file (docs/topologies.md)", "file:examples/ring8.txt",
       {{"<path>", "a readable file", "", "edge list; table-driven shortest-path routing"}}, "*", make_file},
  };
}

}  // namespace rica
