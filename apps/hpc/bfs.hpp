#pragma once
// bfs: level-synchronous breadth-first search of a Graph500 Kronecker graph (docs/apps.md).
//
//   graph     Graph500's generator: 2^scale vertices, edgefactor 2^scale undirected edges, each
//             from `scale` quadrant choices with A, B, C, D = 0.57, 0.19, 0.19, 0.05; then the vertex
//             labels permuted and the edge list shuffled, all from the run seed (kronecker_edges).
//             Self loops and duplicates stay in the list, as the benchmark's; building the graph
//             (Graph500's kernel 1) is not timed: setup() gives each rank the adjacency of its
//             vertices.
//   ranks     every PE; vertex v belongs to rank v mod P.
//   root      `root`, or by default the first vertex with a neighbour other than itself in an order
//             drawn from the seed (Graph500 draws its search keys among such vertices).
//   level L   (top-down) each rank sends, for every edge (v, w) of a frontier vertex v, the pair
//             (w, v) to w's owner. Round 1: every rank tells every other how many pairs it will
//             send it (one packet each: an alltoall of counts, as MPI codes' MPI_Alltoall before
//             their MPI_Alltoallv); round 2: the pairs, one per packet; the owner keeps the first
//             pair of an unvisited w in (source rank, send order) as w's parent, deterministic.
//             Then an allreduce of the next frontier's size (integer sum); the search ends when it
//             is 0. The counts' alltoall and the allreduce are the collective library's
//             (`alltoall=`, `allreduce=`; CollExec, one round per step); the pairs are the kernel's
//             own point-to-point round.
//   verify    Graph500's rules on the parent array: the root is its own parent; the parent links
//             form a tree (no cycle) whose levels differ by one along each tree edge; every tree
//             edge is an edge of the graph; every input edge joins vertices whose levels differ by
//             at most one, or two unreached ones (so the tree spans the root's component); and the
//             levels equal a serial BFS's distances.
//   TEPS      edges of the root's component (input edges with both ends reached, self loops
//             excluded) over the search's emulated cycles.

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "coll_exec.hpp"
#include "round_app.hpp"

namespace rica::hpc {

struct BfsConfig {
  std::uint32_t scale = 14;
  std::uint32_t edgefactor = 16;
  std::int64_t root = -1;  ///< -1: drawn from the seed
  coll::Algorithm allreduce = coll::Algorithm::recursive_doubling;  ///< the frontier-size sum
  coll::Algorithm alltoall = coll::Algorithm::linear;               ///< the pair counts
};

/// Graph500's Kronecker edge list for (scale, edgefactor, seed).
std::vector<std::pair<std::uint64_t, std::uint64_t>> kronecker_edges(std::uint32_t scale, std::uint32_t edgefactor,
                                                                     std::uint64_t seed);

class Bfs : public RoundApp {
 public:
  explicit Bfs(BfsConfig c) : cfg_(c) {}
  void setup(Machine& m) override;
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  std::uint64_t root() const noexcept { return root_; }
  /// After the run: the parent of v (~0 = unreached).
  std::uint64_t parent(std::uint64_t v) const { return ranks_[v % ranks_.size()].parent[v / ranks_.size()]; }

 private:
  std::uint64_t enter(Context& ctx, std::uint64_t round) override;
  void consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) override;
  bool done(node_t rank, std::uint64_t round) const override;
  struct Rank {
    std::vector<std::uint64_t> off, adj;     ///< CSR of the owned vertices (local index v / P)
    std::vector<std::uint64_t> parent;       ///< per owned vertex, ~0 = unreached
    std::vector<std::uint64_t> frontier, next;  ///< owned vertices (global numbers)
    std::vector<std::vector<std::uint64_t>> out;  ///< this level's pairs per destination rank
    std::uint64_t incoming = 0;              ///< pairs announced for this level
    Blocks counts, sum;                      ///< the alltoall and the allreduce in progress
    std::uint64_t v = 0;                     ///< the allreduce's value
    std::uint64_t levels = 0;                ///< levels searched
    bool over = false;
  };
  std::uint64_t per_level() const noexcept { return a_steps_ + 1 + steps_; }

  BfsConfig cfg_;
  std::uint64_t seed_ = 0, n_ = 0, root_ = 0;
  std::uint32_t steps_ = 1, a_steps_ = 1;  ///< rounds of the allreduce and of the counts' alltoall (>= 1)
  std::unique_ptr<CollExec> ar_, a2a_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> edges_;
  std::vector<Rank> ranks_;
};

}  // namespace rica::hpc
