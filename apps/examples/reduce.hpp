#pragma once
// TreeReduce: the worked example of the RICA programming model (docs/programming.md).
//
// Every PE holds a value; a global sum is computed by a binomial-tree reduction over PE addresses
// with active messages, then broadcast back down the same tree so that every PE ends up with it.
//
//   tree      parent(p) = p with its lowest set bit cleared (PE 0 is the root);
//             children(p) = p + 2^k for every k below p's lowest set bit (every k for PE 0)
//             with p + 2^k < N. E.g. N = 8: 0 -> {1, 2, 4}, 2 -> {3}, 4 -> {5, 6}, 6 -> {7}.
//   up        a PE adds its children's partial sums as they arrive (a JoinCounter of
//             |children|); on the last one it sends its partial sum to its parent. Leaves send at
//             once. When PE 0's join fires, its partial sum is the total.
//   down      PE 0 stores the total and sends it to its children; each PE stores it and passes it
//             on to its own children.
//   rounds    R rounds run back to back: a PE starts round r+1 as soon as it has the total of
//             round r. Round r reduces value(p) + r, value(p) = Rng(seed ^ p).below(1000), seed
//             the run seed (EngineConfig::seed, seen as Machine::seed()).
//
// Messages: (N-1) up + (N-1) down per round, 2 R (N-1) in all.
//
// Ownership and threading: one TreeReduce object serves every PE. Its per-PE state lives in
// `pe_`, indexed by PE; element p is read and written only by code running on PE p's task (start()
// and the handlers, whose Context has ctx.pe() == p). The engine never runs one PE on two threads
// at once, so no locks or atomics are needed; different PEs run concurrently, so a PE never
// touches another PE's element — it sends that PE a packet instead. setup(), verify() and
// summary() run single-threaded, before and after the run.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/app.hpp"

namespace rica::examples {

class TreeReduce : public App {
 public:
  /// `rounds` >= 1 reductions, one after the other (usage_error otherwise).
  explicit TreeReduce(std::uint32_t rounds = 1);

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  /// The binomial tree over PE addresses (pure functions, also used by the tests).
  static node_t parent(node_t pe) noexcept { return pe & (pe - 1); }
  static std::vector<node_t> children(node_t pe, node_t pes);
  /// PE `pe`'s value in round `round` for run seed `seed`.
  static std::uint64_t value(std::uint64_t seed, node_t pe, std::uint32_t round) noexcept;

  std::uint32_t rounds() const noexcept { return rounds_; }
  /// After a run: the total PE `pe` received in round `round`.
  std::uint64_t total(node_t pe, std::uint32_t round) const { return pe_[pe].totals[round]; }

 private:
  /// One PE's state: touched only on that PE's task (see the header comment).
  struct PeState {
    std::vector<node_t> children;      ///< fixed at setup
    JoinCounter join;                  ///< need = children.size(): fires on the last partial sum
    std::uint32_t round = 0;           ///< round in progress (== rounds_ once done)
    std::uint64_t partial = 0;         ///< own value + children's partial sums so far
    std::vector<std::uint64_t> totals; ///< [round]: the total this PE received
    std::uint64_t stray = 0;           ///< packets of an unexpected round (a bug if > 0)
  };

  void begin_round(Context& ctx, PeState& s);             // own value; leaves send up at once
  void on_partial(Context& ctx, const Packet& p);         // handler "up"
  void on_total(Context& ctx, const Packet& p);           // handler "down"
  void finish_round(Context& ctx, PeState& s, std::uint64_t total);

  std::uint32_t rounds_;
  std::uint64_t seed_ = 0;
  std::uint64_t max_sends_ = 0;
  handler_t up_ = 0, down_ = 0;
  std::vector<PeState> pe_;
};

}  // namespace rica::examples
