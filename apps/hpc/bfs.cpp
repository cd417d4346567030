// bfs (bfs.hpp): level-synchronous BFS of a Graph500 Kronecker graph, registered as "bfs".
#include "bfs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>

#include "app_registry.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"

namespace rica::hpc {

namespace {
constexpr std::uint64_t unreached = ~std::uint64_t{0};
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> kronecker_edges(std::uint32_t scale, std::uint32_t edgefactor,
                                                                     std::uint64_t seed) {
  const double A = 0.57, B = 0.19, C = 0.19;
  const double ab = A + B, c_norm = C / (1 - ab), a_norm = A / ab;
  const std::uint64_t n = std::uint64_t{1} << scale, m = n * edgefactor;
  Rng rng(seed ^ 0x6a09e667f3bcc908ULL);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> e(m);
  for (auto& [u, v] : e) {
    u = v = 0;
    for (std::uint32_t b = 0; b < scale; ++b) {
      const bool ii = rng.uniform() > ab;
      const bool jj = rng.uniform() > (ii ? c_norm : a_norm);
      u |= std::uint64_t{ii} << b;
      v |= std::uint64_t{jj} << b;
    }
  }
  std::vector<std::uint64_t> perm(n);  // vertex labels permuted (Fisher-Yates)
  for (std::uint64_t i = 0; i < n; ++i) perm[i] = i;
  for (std::uint64_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
  for (auto& [u, v] : e) u = perm[u], v = perm[v];
  for (std::uint64_t i = m; i > 1; --i) std::swap(e[i - 1], e[rng.below(i)]);
  return e;
}

void Bfs::setup(Machine& m) {
  seed_ = m.seed();
  const node_t p = m.pes();
  n_ = std::uint64_t{1} << cfg_.scale;
  edges_ = kronecker_edges(cfg_.scale, cfg_.edgefactor, seed_);
  // The root: given, or the first vertex with a neighbour other than itself in a seeded order.
  std::vector<std::uint8_t> linked(n_, 0);
  for (const auto& [u, v] : edges_)
    if (u != v) linked[u] = linked[v] = 1;
  if (cfg_.root >= 0) {
    root_ = static_cast<std::uint64_t>(cfg_.root);
    if (root_ >= n_)
      throw usage_error(fmt::format("app 'bfs': root {} is not a vertex (0..{})", root_, n_ - 1));
  } else {
    Rng pick(seed_ ^ 0xb5);
    root_ = pick.below(n_);
    for (std::uint64_t t = 0; t < n_ && !linked[root_]; ++t) root_ = (root_ + 1) % n_;
  }
  std::vector<node_t> members(p);
  for (node_t r = 0; r < p; ++r) members[r] = r;
  ar_ = std::make_unique<CollExec>(spec_of(coll::Kind::allreduce, cfg_.allreduce, p, 8),
                                   members);
  a2a_ = std::make_unique<CollExec>(spec_of(coll::Kind::alltoall, cfg_.alltoall, p, 8),
                                    members);
  steps_ = std::max<std::uint32_t>(1, ar_->steps());
  a_steps_ = std::max<std::uint32_t>(1, a2a_->steps());
  // The allreduce ends every level (a global step): no rank is more than a level ahead.
  setup_rounds(m, p, std::min<unsigned>(4096, static_cast<unsigned>(2 * per_level() + 2)));
  ranks_.assign(p, Rank{});
  // CSR per rank, both directions, self loops left out of the adjacency.
  std::vector<std::uint64_t> deg(n_, 0);
  for (const auto& [u, v] : edges_)
    if (u != v) ++deg[u], ++deg[v];
  for (node_t r = 0; r < p; ++r) {
    Rank& s = ranks_[r];
    const std::uint64_t owned = n_ > r ? (n_ - r + p - 1) / p : 0;
    s.off.assign(owned + 1, 0);
    for (std::uint64_t i = 0; i < owned; ++i) s.off[i + 1] = s.off[i] + deg[r + i * p];
    s.adj.resize(s.off[owned]);
    s.parent.assign(owned, unreached);
    s.out.assign(p, {});
  }
  std::vector<std::uint64_t> fill(n_, 0);
  for (const auto& [u, v] : edges_) {
    if (u == v) continue;
    Rank& su = ranks_[u % p];
    su.adj[su.off[u / p] + fill[u]++] = v;
    Rank& sv = ranks_[v % p];
    sv.adj[sv.off[v / p] + fill[v]++] = u;
  }
  Rank& sr = ranks_[root_ % p];
  sr.parent[root_ / p] = root_;
  sr.frontier.push_back(root_);
}

bool Bfs::done(node_t rank, std::uint64_t) const { return ranks_[rank].over; }

std::uint64_t Bfs::enter(Context& ctx, std::uint64_t round) {
  Rank& s = ranks_[ctx.pe()];
  const node_t p = static_cast<node_t>(ranks_.size()), me = ctx.pe();
  const std::uint64_t at = round % per_level();
  if (at < a_steps_) {  // the counts: the pairs of this level per destination, by alltoall
    if (at == 0) {
      for (auto& o : s.out) o.clear();
      for (std::uint64_t v : s.frontier) {
        const std::uint64_t lv = v / p;
        for (std::uint64_t e = s.off[lv]; e < s.off[lv + 1]; ++e) {
          const std::uint64_t w = s.adj[e];
          auto& o = s.out[w % p];
          o.push_back(w);
          o.push_back(v);
        }
      }
      s.counts.clear();
      for (node_t d = 0; d < p; ++d) s.counts[me * p + d] = {s.out[d].size() / 2};  // block src * p + dst
    }
    return at < a2a_->steps() ? a2a_->enter(ex_, ctx, round, me, static_cast<std::uint32_t>(at), s.counts) : 0;
  }
  if (at == a_steps_) {  // the pairs, one per packet (the rank's own go straight to its slot)
    s.incoming = 0;
    for (node_t src = 0; src < p; ++src) s.incoming += s.counts.at(src * p + me).at(0);
    s.counts.clear();
    for (node_t d = 0; d < p; ++d) ex_.send(ctx, d, round, s.out[d]);
    return s.incoming;
  }
  const std::uint32_t step = static_cast<std::uint32_t>(at - a_steps_ - 1);
  if (step == 0) s.sum = ar_->scalar(me, s.v);
  return step < ar_->steps() ? ar_->enter(ex_, ctx, round, me, step, s.sum) : 0;
}

void Bfs::consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) {
  Rank& s = ranks_[ctx.pe()];
  const node_t p = static_cast<node_t>(ranks_.size()), me = ctx.pe();
  const std::uint64_t at = round % per_level();
  if (at < a_steps_) {
    if (at < a2a_->steps()) a2a_->consume(me, static_cast<std::uint32_t>(at), msgs, s.counts, add_words);
    return;
  }
  if (at == a_steps_) {  // first come in (source rank, send order) becomes the parent
    s.next.clear();
    for (const auto& m : msgs)
      for (std::size_t i = 0; i + 1 < m.words.size(); i += 2) {
        const std::uint64_t w = m.words[i], v = m.words[i + 1];
        std::uint64_t& par = s.parent[w / p];
        if (par != unreached) continue;
        par = v;
        s.next.push_back(w);
      }
    s.frontier.swap(s.next);
    s.v = s.frontier.size();
    ++s.levels;
    return;
  }
  const std::uint32_t step = static_cast<std::uint32_t>(at - a_steps_ - 1);
  if (step < ar_->steps()) ar_->consume(me, step, msgs, s.sum, add_words);
  if (step + 1 == steps_ && ar_->scalar_result(s.sum) == 0) s.over = true;
}

bool Bfs::verify(std::string& why) const {
  if (!verify_rounds("bfs", why)) return false;
  std::vector<std::uint64_t> par(n_);
  for (std::uint64_t v = 0; v < n_; ++v) par[v] = parent(v);
  if (par[root_] != root_) {
    why = fmt::format("bfs: the root {} has parent {}", root_, par[root_]);
    return false;
  }
  // Levels from the parent links: a chain longer than n is a cycle.
  std::vector<std::uint64_t> level(n_, unreached);
  level[root_] = 0;
  std::vector<std::uint64_t> chain;
  for (std::uint64_t v = 0; v < n_; ++v) {
    if (par[v] == unreached || level[v] != unreached) continue;
    chain.clear();
    std::uint64_t u = v;
    while (level[u] == unreached) {
      if (par[u] == unreached || chain.size() > n_) {
        why = fmt::format("bfs: the parent links from {} do not reach the root (a cycle or an unreached parent)", v);
        return false;
      }
      chain.push_back(u);
      u = par[u];
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) level[*it] = level[par[*it]] + 1;
  }
  // Serial BFS distances, and the graph's edges as sorted adjacency for the tree-edge check.
  std::vector<std::vector<std::uint64_t>> adj(n_);
  for (const auto& [u, v] : edges_) adj[u].push_back(v), adj[v].push_back(u);
  for (auto& a : adj) std::sort(a.begin(), a.end());
  std::vector<std::uint64_t> dist(n_, unreached);
  std::deque<std::uint64_t> queue{root_};
  dist[root_] = 0;
  while (!queue.empty()) {
    const std::uint64_t u = queue.front();
    queue.pop_front();
    for (std::uint64_t w : adj[u])
      if (dist[w] == unreached) dist[w] = dist[u] + 1, queue.push_back(w);
  }
  for (std::uint64_t v = 0; v < n_; ++v) {
    if (v != root_ && par[v] != unreached && !std::binary_search(adj[v].begin(), adj[v].end(), par[v])) {
      why = fmt::format("bfs: tree edge ({}, {}) is not an edge of the graph", v, par[v]);
      return false;
    }
    if (level[v] != dist[v]) {
      why = fmt::format("bfs: vertex {} is at level {}, its distance from the root is {}", v,
                        level[v] == unreached ? -1 : static_cast<std::int64_t>(level[v]),
                        dist[v] == unreached ? -1 : static_cast<std::int64_t>(dist[v]));
      return false;
    }
  }
  for (const auto& [u, v] : edges_) {
    const bool ru = level[u] != unreached, rv = level[v] != unreached;
    if (ru != rv || (ru && (level[u] > level[v] + 1 || level[v] > level[u] + 1))) {
      why = fmt::format("bfs: edge ({}, {}) joins levels {} and {}", u, v, ru ? static_cast<std::int64_t>(level[u]) : -1,
                        rv ? static_cast<std::int64_t>(level[v]) : -1);
      return false;
    }
  }
  return true;
}

nlohmann::json Bfs::summary() const {
  nlohmann::json j = round_summary();
  j["app"] = "bfs";
  j["scale"] = cfg_.scale;
  j["edgefactor"] = cfg_.edgefactor;
  j["root"] = root_;
  std::uint64_t reached = 0, traversed = 0;
  for (std::uint64_t v = 0; v < n_; ++v) reached += parent(v) != unreached;
  for (const auto& [u, v] : edges_)
    if (u != v && parent(u) != unreached) ++traversed;
  j["reached"] = reached;
  j["edges_traversed"] = traversed;
  j["levels"] = ranks_.empty() ? 0 : ranks_[0].levels;
  j["allreduce"] = std::string(coll::name(cfg_.allreduce));
  j["alltoall"] = std::string(coll::name(cfg_.alltoall));
  const double cycles = static_cast<double>(finish_time());
  j["teps_per_cycle"] = cycles > 0 ? static_cast<double>(traversed) / cycles : 0.0;
  return j;
}

}  // namespace rica::hpc

namespace rica {
using namespace hpc;
namespace {

std::unique_ptr<App> make(const SpecArgs& a, const Topology&) {
  BfsConfig c;
  c.scale = a.uint("scale");
  c.edgefactor = a.uint("edgefactor");
  detail::check_range("app 'bfs'", "scale", c.scale, 1, 26);
  detail::check_range("app 'bfs'", "edgefactor", c.edgefactor, 1, 1024);
  c.allreduce = coll::parse_algorithm(coll::Kind::allreduce, a.text("allreduce"));
  c.alltoall = coll::parse_algorithm(coll::Kind::alltoall, a.text("alltoall"));
  if (a.has("root")) c.root = a.uint("root");
  if (c.root >= static_cast<std::int64_t>(std::uint64_t{1} << c.scale))
    throw usage_error(fmt::format("app 'bfs': root {} is not a vertex of scale {} (0..{})", c.root, c.scale,
                                  (std::uint64_t{1} << c.scale) - 1));
  const std::uint64_t m = (std::uint64_t{1} << c.scale) * c.edgefactor;
  if (m * 16 * 5 > defaults::apps::memory_limit)
    throw usage_error(fmt::format("app 'bfs': scale {} with edgefactor {} exceeds the {} GiB kernel memory limit",
                                  c.scale, c.edgefactor, defaults::apps::memory_limit >> 30));
  return std::make_unique<Bfs>(c);
}

}  // namespace

std::vector<AppEntry> builtin_apps_bfs() {
  return {{"bfs", "level-synchronous BFS of a Graph500 Kronecker graph; parents validated by the Graph500 rules, TEPS "
                  "in emulated cycles (docs/apps.md)",
           "bfs:scale=14",
           {{"scale", "1..26", "14", "2^scale vertices"},
            {"edgefactor", "1..1024", "16", "edges per vertex"},
            {"root", "0..2^scale-1", "", "the search key (default: drawn from the seed among linked vertices)"},
            {"allreduce", "recursive-doubling|ring|rabenseifner|binomial", "recursive-doubling",
             "the frontier-size allreduce (rica/collectives.hpp)"},
            {"alltoall", "linear|pairwise|bruck", "linear", "the pair counts' alltoall"}},
           "scale", make}};
}

}  // namespace rica
