#pragma once
// Broadcast: one source PE sends a message to every other PE (de Bruijn paper §6: "broadcast
// time 2 log2 N, against log2 N on the hypercube").
//
//   PE graph  q is a PE-neighbour of p when an out-link path from p reaches q through switch
//             nodes only: on a direct network the out-link peers of p, on an indirect one (Omega,
//             fat tree) every PE its switches reach (there a broadcast is the source sending to
//             every PE, depth 1).
//   flood     (default) a PE, on its first receipt, forwards one copy to each of its PE-neighbours
//             but the one it got it from; the source starts by sending to all its neighbours.
//             Later copies are counted as duplicates, never forwarded. Messages =
//             sum over PEs of |neighbours \ {sender of its first copy}|.
//   tree      the breadth-first spanning tree of the PE graph from the source (computed at
//             setup, a PE's parent its lowest-numbered neighbour one level up): a PE forwards to
//             its tree children only, the child with the longest one-port time first. N-1
//             messages, no duplicates, depth = the eccentricity. Also reported: the tree's
//             one-port (telephone) time in steps, a PE sending to one child per step — the
//             model of the de Bruijn paper's "2 log2 N" (binomial tree on the hypercube: log2 N).
//
// Reported (summary()): first receipts (N-1 when every PE is reached exactly once), messages,
// duplicates, depth (the most PE-hops a first copy travelled), links (the most network links a
// first copy's chain crossed), the BFS eccentricity of the source on the PE graph, and the
// broadcast time: the last first receipt, in cycles on the cycle engine (ns on the async one),
// counted from the source's start. With flooding under contention a first copy may take a longer
// path than the shortest, so depth >= eccentricity; with the tree, depth == eccentricity.
//
// Threading: pe_[p] is touched only on PE p's task (start() and the handler); the graph and tree
// are built by the constructor and read-only during the run.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"
#include "rica/topology.hpp"

namespace rica::examples {

/// PE-level adjacency of a topology (see the header comment), CSR, each list ascending, no self.
/// An indirect network's is complete (N (N-1) pairs): more than max_pairs is refused.
struct PeGraph {
  static constexpr std::uint64_t max_pairs = std::uint64_t{1} << 26;  ///< 256 MB of neighbours
  node_t pes = 0;
  std::vector<std::uint32_t> first;  ///< pes + 1 offsets into target
  std::vector<node_t> target;
  [[nodiscard]] std::span<const node_t> neighbours(node_t p) const {
    return {target.data() + first[p], target.data() + first[p + 1]};
  }
};
/// usage_error when the graph would have more than PeGraph::max_pairs (PE, neighbour) pairs.
[[nodiscard]] PeGraph pe_graph(const Topology& t);
/// Breadth-first PE-hop distances from `src` (rica::unreachable where none).
[[nodiscard]] std::vector<std::uint32_t> pe_distances(const PeGraph& g, node_t src);

enum class BroadcastRule { flood, tree };

class Broadcast : public App {
 public:
  /// Builds the PE graph (and the tree) of `t`; usage_error if `source` is not a PE of `t` or the
  /// graph is too large. setup() refuses a job's PEs (usage_error): a broadcast needs the machine.
  Broadcast(const Topology& t, node_t source, BroadcastRule rule);

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  /// After a run, per PE: copies received, level (PE-hops) and time of the first copy (the
  /// source: 0 and its start time).
  struct PeResult {
    std::uint64_t received = 0, sent = 0;
    bool reached = false;
    std::uint32_t level = 0, links = 0;
    std::uint64_t time = 0;
  };
  const std::vector<PeResult>& results() const noexcept { return pe_; }
  /// The source's BFS eccentricity on the PE graph.
  std::uint32_t eccentricity() const noexcept { return eccentricity_; }
  /// Tree rule: the one-port time of the BFS tree in steps.
  std::uint32_t one_port_steps() const noexcept { return one_port_steps_; }
  /// Largest first-copy level / broadcast time / messages / duplicates (after a run).
  std::uint32_t depth() const;
  std::uint64_t time() const;
  std::uint64_t messages() const;
  std::uint64_t duplicates() const;
  std::uint64_t first_receipts() const;

 private:
  void on_copy(Context& ctx, const Packet& p);
  void forward(Context& ctx, PeResult& s, node_t except);

  node_t source_;
  BroadcastRule rule_;
  PeGraph graph_;
  std::vector<std::vector<node_t>> children_;  ///< tree rule: BFS-tree children per PE
  std::uint32_t eccentricity_ = 0, one_port_steps_ = 0;
  std::uint64_t max_sends_ = 0, start_time_ = 0;
  handler_t handler_ = 0;
  std::vector<PeResult> pe_;
};

}  // namespace rica::examples
