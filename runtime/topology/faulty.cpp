// Fault specs, fault sets and the table-driven rerouting around them (rica/faults.hpp,
// rica/topology/faulty.hpp; docs/faults.md).
#include "rica/faults.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>

#include "rica/app.hpp"
#include "rica/defaults.hpp"
#include "rica/io.hpp"
#include "rica/topology.hpp"
#include "../machine/tsan.hpp"

namespace rica {

// ---- the spec -----------------------------------------------------------------------------------

std::string FaultSpec::text() const {
  std::vector<std::string> items;
  if (!file.empty()) items.push_back("file:" + file);
  if (links) items.push_back(fmt::format("links={}", links));
  if (nodes) items.push_back(fmt::format("nodes={}", nodes));
  if (at) items.push_back(fmt::format("at={}", at));
  return fmt::format("{}", fmt::join(items, ","));
}

FaultSpec parse_fault_spec(const std::string& spec) {
  const std::string accepted = "accepted: links=K, nodes=K, file:PATH, at=CYCLE, comma-separated, e.g. links=4,nodes=1";
  FaultSpec f;
  if (spec.empty()) throw usage_error("--faults: empty spec; " + accepted);
  // file:PATH runs to the next ",links=", ",nodes=", ",at=" or the end (a path may hold commas).
  std::vector<std::string> items;
  std::size_t i = 0;
  while (i <= spec.size()) {
    std::size_t j = spec.find(',', i);
    if (spec.compare(i, 5, "file:") == 0) {
      j = std::string::npos;
      for (std::size_t k = spec.find(',', i); k != std::string::npos; k = spec.find(',', k + 1))
        if (spec.compare(k + 1, 6, "links=") == 0 || spec.compare(k + 1, 6, "nodes=") == 0 ||
            spec.compare(k + 1, 3, "at=") == 0) {
          j = k;
          break;
        }
    }
    items.push_back(spec.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  bool seen_links = false, seen_nodes = false, seen_at = false;
  for (const std::string& it : items) {
    if (it.empty()) throw usage_error(fmt::format("--faults: '{}' has an empty item; {}", spec, accepted));
    auto once = [&](bool& seen, const char* name) {
      if (seen) throw usage_error(fmt::format("--faults: '{}' gives {} twice", spec, name));
      seen = true;
    };
    if (it.starts_with("file:")) {
      if (!f.file.empty()) throw usage_error(fmt::format("--faults: '{}' gives file: twice", spec));
      f.file = it.substr(5);
      if (f.file.empty()) throw usage_error("--faults: file: needs a path, e.g. file:faults.txt");
    } else if (it.starts_with("links=")) {
      once(seen_links, "links=");
      f.links = parse_uint(it.substr(6), "--faults: links", 0, defaults::limits::fault_items);
    } else if (it.starts_with("nodes=")) {
      once(seen_nodes, "nodes=");
      f.nodes = parse_uint(it.substr(6), "--faults: nodes", 0, defaults::limits::fault_items);
    } else if (it.starts_with("at=")) {
      once(seen_at, "at=");
      f.at = parse_uint(it.substr(3), "--faults: at", 1, std::uint64_t{1} << 31);
    } else {
      throw usage_error(fmt::format("--faults: unknown item '{}'; {}", it, accepted));
    }
  }
  if (f.empty() && f.at) throw usage_error("--faults: at= needs something to fail (links=K, nodes=K or file:PATH)");
  return f;
}

// ---- resolving a spec on a topology --------------------------------------------------------------

namespace {

/// Unordered node pairs joined by at least one arc (u < v), sorted; and whether every arc has
/// its reverse (a bidirectional network).
std::vector<std::pair<node_t, node_t>> link_pairs(const Topology& t) {
  std::vector<std::pair<node_t, node_t>> pairs;
  t.visit([&](const auto& topo) {
    for (node_t v = 0; v < t.nodes(); ++v)
      for (port_t p = 0; p < t.ports(); ++p) {
        const Link l = topo.out_link(v, p);
        if (l.present() && l.peer != v) pairs.emplace_back(std::min(v, l.peer), std::max(v, l.peer));
      }
  });
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  return pairs;
}

void read_fault_file(const Topology& t, const std::string& path, FaultSet& fs) {
  const std::string what = "--faults: file:" + path;
  const std::string text = read_text_file(path, what, {std::uint64_t{64} << 20, 4096});
  std::istringstream in(text);
  std::string line;
  const auto pairs = link_pairs(t);
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (const auto h = line.find('#'); h != std::string::npos) line.erase(h);
    std::istringstream ls(line);
    std::vector<std::string> w;
    for (std::string x; ls >> x;) w.push_back(x);
    if (w.empty()) continue;
    auto where = [&](unsigned field) { return fmt::format("{}:{}: field {}", path, n, field); };
    auto node = [&](unsigned field) -> node_t {
      try {
        return t.parse_node(w[field]);
      } catch (const usage_error& e) {
        throw usage_error(fmt::format("--faults: {}: {}", where(field + 1), e.what()));
      }
    };
    if (w[0] == "link") {
      if (w.size() != 3)
        throw usage_error(fmt::format("--faults: {}:{}: 'link' takes two nodes (link U V), got {} field(s)", path, n,
                                      w.size() - 1));
      const node_t u = node(1), v = node(2);
      const std::pair<node_t, node_t> k{std::min(u, v), std::max(u, v)};
      if (u == v || !std::binary_search(pairs.begin(), pairs.end(), k))
        throw usage_error(fmt::format("--faults: {}: there is no link between {} and {} in '{}'", where(3),
                                      t.label(u), t.label(v), t.spec()));
      fs.links.push_back(k);
    } else if (w[0] == "node") {
      if (w.size() != 2)
        throw usage_error(fmt::format("--faults: {}:{}: 'node' takes one node (node V), got {} field(s)", path, n,
                                      w.size() - 1));
      fs.nodes.push_back(node(1));
    } else {
      throw usage_error(
          fmt::format("--faults: {}: unknown keyword {}; accepted: link U V, node V, # comment", where(1),
                      quote_input(w[0])));
    }
  }
}

template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

FaultSet resolve_faults(const Topology& t, const FaultSpec& spec, std::uint64_t seed) {
  FaultSet fs;
  fs.at = spec.at;
  fs.spec = spec.text();
  if (!spec.file.empty()) read_fault_file(t, spec.file, fs);
  sort_unique(fs.links);
  sort_unique(fs.nodes);
  // Random choices from the run's seed: a partial Fisher-Yates shuffle of the candidates, links
  // first (among links between surviving nodes, not already failed), then PEs.
  Rng rng(seed ^ 0x6661756c7473ULL);  // "faults"
  if (spec.links) {
    // An indirect network (switches numbered after the PEs): links between two switches only. A
    // terminal's link is its PE's only way in or out (fat trees, Omega, dragonfly, HyperX, Slim
    // Fly), so drawing it would disconnect the network, refused every time; a fault file may still
    // name it. A direct network's nodes are PEs and routers at once: every link is drawn.
    const bool routers_only = t.pes() < t.nodes();
    std::vector<std::pair<node_t, node_t>> cand;
    for (const auto& k : link_pairs(t))
      if ((!routers_only || (k.first >= t.pes() && k.second >= t.pes())) &&
          !std::binary_search(fs.links.begin(), fs.links.end(), k) &&
          !std::binary_search(fs.nodes.begin(), fs.nodes.end(), k.first) &&
          !std::binary_search(fs.nodes.begin(), fs.nodes.end(), k.second))
        cand.push_back(k);
    if (spec.links > cand.size())
      throw usage_error(fmt::format("--faults: links={} but '{}' has only {} {}links that can still fail{}", spec.links,
                                    t.spec(), cand.size(), routers_only ? "switch-to-switch " : "",
                                    routers_only ? " (terminal links are drawn never; a fault file may name them)" : ""));
    for (std::uint64_t i = 0; i < spec.links; ++i) {
      std::swap(cand[i], cand[i + rng.below(cand.size() - i)]);
      fs.links.push_back(cand[i]);
    }
  }
  if (spec.nodes) {
    std::vector<node_t> cand;
    for (node_t v = 0; v < t.pes(); ++v)
      if (!std::binary_search(fs.nodes.begin(), fs.nodes.end(), v)) cand.push_back(v);
    if (spec.nodes > cand.size())
      throw usage_error(fmt::format("--faults: nodes={} but '{}' has only {} PEs that can still fail", spec.nodes,
                                    t.spec(), cand.size()));
    for (std::uint64_t i = 0; i < spec.nodes; ++i) {
      std::swap(cand[i], cand[i + rng.below(cand.size() - i)]);
      fs.nodes.push_back(cand[i]);
    }
  }
  sort_unique(fs.links);
  sort_unique(fs.nodes);
  // A family with spare PEs (de Bruijn with necklace spares) repairs some failures itself.
  t.replace_failed_pes(fs.nodes, fs.replaced);
  return fs;
}

Topology with_faults(const Topology& t, const std::string& spec, std::uint64_t seed) {
  if (spec.empty()) return t;
  return with_faults(t, parse_fault_spec(spec), seed);
}

Topology with_faults(const Topology& t, const FaultSpec& f, std::uint64_t seed) {
  if (f.empty()) return t;  // links=0,nodes=0: nothing fails
  const FaultSet fs = resolve_faults(t, f, seed);
  if (fs.links.empty() && fs.nodes.empty()) return t;  // every failure repaired by a spare
  return FaultyTopology(t, fs);
}

std::vector<node_t> failed_nodes(const Topology& t) {
  if (const auto* f = std::get_if<FaultyTopology>(&t.variant())) return f->failed_nodes();
  return {};
}
std::uint64_t fail_cycle(const Topology& t) {
  if (const auto* f = std::get_if<FaultyTopology>(&t.variant())) return f->fail_at();
  return 0;
}

// ---- the rerouting tables --------------------------------------------------------------------------

FaultyTopology::FaultyTopology(const Topology& base, const FaultSet& faults)
    : base_(std::make_shared<const Topology>(base)) {
  auto tb = std::make_shared<Tables>();
  Tables& T = *tb;
  const node_t N = base.nodes(), P = base.pes();
  T.nodes = N;
  T.pes = P;
  T.ports = base.ports();
  T.at = faults.at;
  T.offset = faults.at ? base.buffer_classes() : class_t{0};
  T.failed_links = faults.links;
  T.failed_nodes = faults.nodes;
  if (std::holds_alternative<FaultyTopology>(base.variant()))
    throw usage_error("--faults: the topology already has faults; give one fault set");
  if (T.ports > port_mask)
    throw usage_error(fmt::format("--faults: '{}' has {} ports; the rerouting tables take at most {}", base.spec(),
                                  T.ports, port_mask));
  if (static_cast<double>(N) * P > static_cast<double>(table_limit))
    throw usage_error(fmt::format("--faults: '{}' has {} nodes x {} PEs; the rerouting tables (4 bytes per node and "
                                  "PE) take at most {} pairs (4096 x 4096)",
                                  base.spec(), N, P, table_limit));
  T.dead.assign(N, 0);
  for (node_t v : faults.nodes) {
    if (v >= N) throw usage_error(fmt::format("--faults: node {} does not exist in '{}'", v, base.spec()));
    T.dead[v] = 1;
  }
  // Links: the base's, with the failed arcs marked (and hidden when the faults are static).
  T.links.assign(std::size_t{N} * T.ports, Link{});
  T.dead_arc.assign(std::size_t{N} * T.ports, 0);
  std::vector<std::pair<node_t, node_t>> sorted = faults.links;
  std::sort(sorted.begin(), sorted.end());
  base.visit([&](const auto& b) {
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < T.ports; ++p) {
        const Link l = b.out_link(v, p);
        if (!l.present()) continue;
        const std::size_t i = std::size_t{v} * T.ports + p;
        const std::pair<node_t, node_t> k{std::min(v, l.peer), std::max(v, l.peer)};
        const bool dead = T.dead[v] || T.dead[l.peer] || std::binary_search(sorted.begin(), sorted.end(), k);
        T.dead_arc[i] = dead;
        if (!dead || T.at) T.links[i] = l;
      }
  });
  node_t alive_pes = 0;
  for (node_t v = 0; v < P; ++v) alive_pes += !T.dead[v];
  if (alive_pes < 2)
    throw usage_error(fmt::format("--faults: {} of the {} PEs of '{}' fail; at least 2 must survive",
                                  P - alive_pes, P, base.spec()));
  // Surviving arcs, forward (CSR by source) and backward (by target).
  std::vector<std::uint32_t> fwd_first(N + 1, 0), bwd_first(N + 1, 0);
  for (node_t v = 0; v < N; ++v)
    for (port_t p = 0; p < T.ports; ++p) {
      const std::size_t i = std::size_t{v} * T.ports + p;
      if (T.links[i].present() && !T.dead_arc[i]) ++fwd_first[v + 1], ++bwd_first[T.links[i].peer + 1];
    }
  for (node_t v = 0; v < N; ++v) fwd_first[v + 1] += fwd_first[v], bwd_first[v + 1] += bwd_first[v];
  std::vector<node_t> bwd(bwd_first[N]);
  std::vector<node_t> und(std::size_t{fwd_first[N]} * 2);
  std::vector<std::uint32_t> und_first(N + 1, 0);
  {
    std::vector<std::uint32_t> fill(bwd_first.begin(), bwd_first.end() - 1);
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < T.ports; ++p) {
        const std::size_t i = std::size_t{v} * T.ports + p;
        if (T.links[i].present() && !T.dead_arc[i]) bwd[fill[T.links[i].peer]++] = v;
      }
    for (node_t v = 0; v < N; ++v)
      und_first[v + 1] = und_first[v] + (fwd_first[v + 1] - fwd_first[v]) + (bwd_first[v + 1] - bwd_first[v]);
    std::vector<std::uint32_t> uf(und_first.begin(), und_first.end() - 1);
    for (node_t v = 0; v < N; ++v)
      for (port_t p = 0; p < T.ports; ++p) {
        const std::size_t i = std::size_t{v} * T.ports + p;
        if (T.links[i].present() && !T.dead_arc[i]) und[uf[v]++] = T.links[i].peer, und[uf[T.links[i].peer]++] = v;
      }
  }
  // Ranks: breadth-first level over the undirected surviving graph from the lowest surviving
  // node, then id (unreached nodes, e.g. failed ones, rank last).
  constexpr std::uint32_t inf = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint64_t> rank(N, ~std::uint64_t{0});
  {
    std::vector<std::uint32_t> level(N, inf);
    node_t root = 0;
    while (root < N && T.dead[root]) ++root;
    std::vector<node_t> q{root};
    level[root] = 0;
    for (std::size_t h = 0; h < q.size(); ++h)
      for (std::uint32_t e = und_first[q[h]]; e < und_first[q[h] + 1]; ++e)
        if (level[und[e]] == inf) level[und[e]] = level[q[h]] + 1, q.push_back(und[e]);
    for (node_t v = 0; v < N; ++v)
      if (level[v] != inf) rank[v] = (std::uint64_t{level[v]} << 32) | v;
  }
  // Per destination PE: distances to it over the surviving arcs (backward BFS), then the
  // fewest-phase shortest next hop for each node and went-down flag, nodes by increasing distance.
  T.next.assign(std::size_t{N} * P * 2, no_entry);
  std::vector<std::uint32_t> max_phase(P, 0);
  std::vector<node_t> cut_from(P, no_node);
  base.visit([&](const auto& b) {
  // The fork and the join happen inside libtbb: stated for ThreadSanitizer (runtime/machine/tsan.hpp).
  detail::TsanLoop tsan;
  tbb::parallel_for(tbb::blocked_range<node_t>(0, P), tsan.fork([&](const tbb::blocked_range<node_t>& r) {
    std::vector<std::uint32_t> dist(N), cost(std::size_t{N} * 2);
    std::vector<node_t> q;
    q.reserve(N);
    for (node_t d = r.begin(); d != r.end(); ++d) {
      if (T.dead[d]) continue;
      std::fill(dist.begin(), dist.end(), inf);
      q.clear();
      q.push_back(d);
      dist[d] = 0;
      cost[std::size_t{d} * 2] = cost[std::size_t{d} * 2 + 1] = 0;
      for (std::size_t h = 0; h < q.size(); ++h) {
        const node_t w = q[h];
        for (std::uint32_t e = bwd_first[w]; e < bwd_first[w + 1]; ++e)
          if (dist[bwd[e]] == inf) dist[bwd[e]] = dist[w] + 1, q.push_back(bwd[e]);
      }
      for (node_t v = 0; v < P; ++v)
        if (!T.dead[v] && dist[v] == inf) {
          cut_from[d] = v;
          break;
        }
      for (std::size_t h = 1; h < q.size(); ++h) {  // q is in order of distance
        const node_t v = q[h];
        // The base's own choice (for a fresh packet) where it is still a shortest hop: the
        // rerouting then differs from the base's routing only around the faults.
        const Hop own = b.route(v, d, 0);
        const port_t own_port = own.delivers() ? port_t{0xffff} : own.port();
        for (unsigned down = 0; down < 2; ++down) {
          std::uint32_t best = inf;
          std::uint16_t entry = no_entry;
          // Phases to go when leaving through p (inf: p is not a surviving shortest hop).
          auto phases = [&](port_t p, bool& up) -> std::uint32_t {
            const std::size_t i = std::size_t{v} * T.ports + p;
            const node_t w = T.links[i].peer;
            if (!T.links[i].present() || T.dead_arc[i] || dist[w] + 1 != dist[v]) return inf;
            up = rank[w] < rank[v];
            return cost[std::size_t{w} * 2 + (up ? 0u : 1u)] + ((up && down) ? 1u : 0u);
          };
          bool up = false;
          if (own_port < T.ports && (best = phases(own_port, up)) != inf) {
            entry = static_cast<std::uint16_t>(own_port | (up ? up_bit : 0));
          } else {
            for (port_t p = 0; p < T.ports; ++p) {
              const std::uint32_t c = phases(p, up);
              if (c < best) best = c, entry = static_cast<std::uint16_t>(p | (up ? up_bit : 0));
            }
          }
          cost[std::size_t{v} * 2 + down] = best;
          T.next[(std::size_t{v} * P + d) * 2 + down] = entry;
          if (down == 0) max_phase[d] = std::max(max_phase[d], best);
        }
      }
    }
  }));
  tsan.join();
  });
  for (node_t d = 0; d < P; ++d)
    if (cut_from[d] != no_node)
      throw usage_error(fmt::format("--faults: '{}' leaves the network disconnected: PE {} cannot reach PE {}",
                                    faults.spec, base.label(cut_from[d]), base.label(d)));
  const std::uint64_t classes = std::uint64_t{T.offset} + 2 * (*std::max_element(max_phase.begin(), max_phase.end()) + 1);
  if (classes > max_buffer_classes)
    throw usage_error(fmt::format("--faults: the rerouting needs {} buffer classes (at most {})", classes,
                                  max_buffer_classes));
  T.classes = static_cast<class_t>(classes);
  // The resolved faults, for reports.
  std::vector<std::string> items;
  for (const auto& [u, v] : T.failed_links) items.push_back(fmt::format("{}-{}", base.label(u), base.label(v)));
  for (node_t v : T.failed_nodes) items.push_back(fmt::format("node {}", base.label(v)));
  for (node_t v : faults.replaced) items.push_back(fmt::format("node {} (replaced by its necklace's spare)", base.label(v)));
  T.text = fmt::format("{}: {}", faults.spec, fmt::join(items, " "));
  t_ = std::move(tb);
}

std::string FaultyTopology::label(node_t v) const { return base_->label(v); }
std::string FaultyTopology::spec() const { return base_->spec(); }
Shape FaultyTopology::shape() const { return base_->shape(); }

}  // namespace rica
