// Compact (topology-aware) placement (rica/os_stream.hpp): a job gets k free PEs that are close
// in the network itself, on any topology: from each of up to `starts` free PEs, a breadth-first
// search over the network's links (through switch nodes and busy PEs, which it crosses but does
// not take) collects the k nearest free PEs; the set whose summed hop distance from its start is
// least wins (ties: the lowest start). Its routes may still cross other jobs' nodes, so it is an
// open placement (space sharing only); the interference shows as foreign link packets.
#include <algorithm>
#include <memory>

#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Compact final : public Allocator {
 public:
  explicit Compact(const Topology& t) : used_(t.pes(), 0), pes_(t.pes()) {
    // The network's adjacency, once: out-links of every node.
    auto adj = std::make_shared<std::vector<std::vector<node_t>>>(t.nodes());
    t.visit([&](const auto& topo) {
      for (node_t v = 0; v < t.nodes(); ++v)
        for (port_t p = 0; p < t.ports(); ++p) {
          const Link l = topo.out_link(v, p);
          if (l.present()) (*adj)[v].push_back(l.peer);
        }
    });
    adj_ = std::move(adj);
    depth_.assign(t.nodes(), ~0u);
  }

  std::optional<std::vector<node_t>> allocate(node_t k) override {
    if (k > pes_ - held_) return std::nullopt;
    std::vector<node_t> best;
    std::uint64_t best_cost = ~std::uint64_t{0};
    unsigned tried = 0;
    // Starts spread over the free PEs (every free PE when few are free).
    const node_t free = pes_ - held_, stride = std::max<node_t>(1, free / starts);
    node_t seen_free = 0;
    for (node_t s = 0; s < pes_ && tried < starts; ++s) {
      if (used_[s]) continue;
      if (seen_free++ % stride != 0) continue;
      ++tried;
      std::uint64_t cost = 0;
      std::vector<node_t> got = grow(s, k, cost);
      if (got.size() == k && cost < best_cost) best_cost = cost, best = std::move(got);
    }
    if (best.size() != k) return std::nullopt;
    for (node_t v : best) used_[v] = 1;
    held_ += k;
    return best;
  }
  void release(const std::vector<node_t>& pes) override {
    for (node_t v : pes) used_[v] = 0;
    held_ -= static_cast<node_t>(pes.size());
  }
  node_t held() const override { return held_; }
  node_t largest_free() const override { return pes_ - held_; }
  bool closed() const override { return false; }
  std::unique_ptr<Allocator> clone() const override { return std::make_unique<Compact>(*this); }

 private:
  static constexpr unsigned starts = 16;
  /// The k nearest free PEs of `s` by hops (breadth first, ports in order); `cost` sums their depths.
  std::vector<node_t> grow(node_t s, node_t k, std::uint64_t& cost) {
    std::vector<node_t> got, queue = {s}, touched = {s};
    depth_[s] = 0;
    for (std::size_t h = 0; h < queue.size() && got.size() < k; ++h) {
      const node_t v = queue[h];
      if (v < pes_ && !used_[v]) got.push_back(v), cost += depth_[v];
      for (node_t w : (*adj_)[v])
        if (depth_[w] == ~0u) depth_[w] = depth_[v] + 1, queue.push_back(w), touched.push_back(w);
    }
    for (node_t v : touched) depth_[v] = ~0u;
    return got;
  }
  std::shared_ptr<const std::vector<std::vector<node_t>>> adj_;  ///< [node]: out-link peers (shared by clones)
  std::vector<std::uint32_t> depth_;      ///< [node]: BFS scratch, ~0 between searches
  std::vector<std::uint8_t> used_;        ///< [PE]
  node_t pes_ = 0, held_ = 0;
};

}  // namespace

std::unique_ptr<Allocator> make_compact_allocator(const Topology& t, std::uint64_t) {
  return std::make_unique<Compact>(t);
}

}  // namespace rica::detail
