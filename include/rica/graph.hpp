#pragma once
// Explicit graph (CSR) of a topology's links, for analysis: BFS distances, connectivity, max-flow.
// Not used on the packet path.

#include <cstdint>
#include <vector>

#include "rica/topology.hpp"

namespace rica {

/// Out-arcs of every node in CSR form; self-loops dropped, parallel arcs kept.
struct Graph {
  node_t nodes = 0;
  std::vector<std::uint32_t> first;  ///< nodes + 1 offsets into target
  std::vector<node_t> target;

  [[nodiscard]] std::uint64_t arcs() const noexcept { return target.size(); }
  [[nodiscard]] Graph reversed() const;
};

[[nodiscard]] Graph build_graph(const Topology& t);

inline constexpr std::uint32_t unreachable = 0xffffffffu;
/// Breadth-first hop distances from `src` into `dist` (resized to g.nodes; unreachable nodes get
/// `unreachable`). `queue` is scratch space, reused across calls.
void bfs(const Graph& g, node_t src, std::vector<std::uint32_t>& dist, std::vector<node_t>& queue);

/// Every PE reaches every other PE (checked from PE 0 forwards and backwards).
[[nodiscard]] bool strongly_connected_pes(const Graph& g, const Graph& rev, node_t pes);

/// Unit-capacity max-flow from s to t (each arc capacity 1), stopping early at `cap`.
/// Not thread-safe per object; use one per thread.
class UnitFlow {
 public:
  explicit UnitFlow(const Graph& g);
  unsigned max_flow(node_t s, node_t t, unsigned cap);

 private:
  std::vector<std::uint32_t> first_;
  std::vector<node_t> to_;
  std::vector<std::uint32_t> rev_;
  std::vector<std::uint8_t> cap_, orig_;
  std::vector<std::uint32_t> parent_arc_;
  std::vector<std::uint32_t> seen_;
  std::vector<node_t> queue_;
  std::uint32_t stamp_ = 0;
};

}  // namespace rica
