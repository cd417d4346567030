// drain-pe: drain, but a router-only node (a switch of an indirect network, which has no PE of its
// own) sends its packets to the nearest PE of the same partition, which saves them and re-injects
// them when their job runs again. A PE's router saves at its own PE, as in drain.
//
// This file is the worked example of docs/os.md "Adding a policy": a new policy is a new file and
// one line in runtime/os/os_policies.cpp; it uses only the OsView, the switch state and
// drain's building blocks (drain_frozen, drain_bound), with no edit of the Machine, the OS driver
// or the other policies.
//
// Cost model: moving a switch's packets to its PE takes the hop distance times the longest link
// time; then the PE's memory path (save_words_per_cycle) saves them, one sender after another (a
// PE's memory is busy until its previous save is done). The bound is drain's with the farthest
// move added and the save and restore of k full routers at one PE, k the most nodes that send to
// one PE.
#include <deque>
#include <map>

#include "os_policy.hpp"

namespace rica::detail {
namespace {

class DrainToPe final : public SwitchPolicyImpl {
 public:
  std::uint64_t begin(SwitchState& s) override {
    const OsView& m = s.machine();
    std::uint64_t far = 0, k = 1;
    memory_free_.clear();
    for (unsigned j : s.outgoing()) {
      const auto& near = nearest(s, j);
      std::map<node_t, std::uint64_t> senders;
      for (node_t v : s.nodes_of(j)) {
        far = std::max<std::uint64_t>(far, near.at(v).second);
        k = std::max(k, ++senders[near.at(v).first]);
      }
    }
    const std::uint64_t router = s.words_cost(std::uint64_t{m.ports()} * m.classes() * m.buffer_words());
    return drain_bound(s) + far * m.max_link_cycles() + 2 * (k - 1) * router;
  }

  void on_order(SwitchState& s, const NodeSwitch& n) override { s.machine().halt(n.v); }

  std::optional<std::uint64_t> clear(SwitchState& s, const NodeSwitch& n, std::uint64_t now, std::uint64_t& packets,
                                     std::uint64_t& words) override {
    if (!drain_frozen(s, n, now)) return std::nullopt;
    node_t to = n.v;
    std::uint64_t distance = 0;
    if (n.v >= s.machine().pes()) std::tie(to, distance) = nearest(s, n.out).at(n.v);
    const std::uint64_t w = drain_sweep(s, n, now, to, packets, words);
    std::uint64_t& free = memory_free_[to];
    free = std::max(now + distance * s.machine().max_link_cycles(), free) + s.words_cost(w);
    return free;
  }

 private:
  /// For job j: each node of its set -> (the nearest PE of the set along out-links, distance),
  /// by a reverse breadth-first search from the PEs (ties: the smallest PE number).
  const std::map<node_t, std::pair<node_t, std::uint32_t>>& nearest(const SwitchState& s, unsigned j) {
    // Cached per job id and node set: a job stream gives an id to another job once its job has
    // finished (rica/os_stream.hpp), so the set, not the id alone, names the placement.
    const auto& set = s.nodes_of(j);
    auto it = cache_.find(j);
    if (it != cache_.end() && it->second.first == set) return it->second.second;
    const OsView& m = s.machine();
    std::map<node_t, std::pair<node_t, std::uint32_t>> near;
    std::vector<std::uint8_t> in_set(m.nodes(), 0);
    for (node_t v : set) in_set[v] = 1;
    std::deque<node_t> queue;
    std::vector<node_t> pes(set.begin(), set.end());
    std::sort(pes.begin(), pes.end());
    for (node_t v : pes)
      if (v < m.pes()) {
        near[v] = {v, 0};
        queue.push_back(v);
      }
    while (!queue.empty()) {  // predecessors of u: the nodes feeding u's in-ports
      const node_t u = queue.front();
      queue.pop_front();
      for (port_t q = 0; q < m.ports(); ++q) {
        const node_t w = m.upstream(u, q);
        if (w == no_node || !in_set[w] || near.count(w)) continue;
        near[w] = {near[u].first, near[u].second + 1};
        queue.push_back(w);
      }
    }
    for (node_t v : set)
      if (!near.count(v)) near[v] = {v, 0};  // no PE reachable: saves at its own memory (as drain)
    auto& entry = cache_[j];
    entry = {set, std::move(near)};
    return entry.second;
  }
  /// [job id]: (its node set, the nearest PE of each node).
  std::map<unsigned, std::pair<std::vector<node_t>, std::map<node_t, std::pair<node_t, std::uint32_t>>>> cache_;
  std::map<node_t, std::uint64_t> memory_free_;  // this switch: the cycle each receiving PE's memory is free
};

}  // namespace

std::unique_ptr<SwitchPolicyImpl> make_drain_pe_policy() { return std::make_unique<DrainToPe>(); }

}  // namespace rica::detail
