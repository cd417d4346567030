#pragma once
// A machine spread over MPI ranks (runtime/machine/driver_mpi.cpp; docs/distributed.md). Not API.
//
// Ownership: each node belongs to one rank (`owner`); a rank steps only its own nodes and writes
// only their state: their input buffers' consumer side, their credits, source queues, counters.
// Memory: a rank allocates its own nodes' state only (Machine::allocate, runtime/machine/sparse.hpp): the
// tables keep the global node numbering, but only the entries of its nodes and the ghost entries
// of its cut links (the input buffers of a remote node it pushes into, the credit of a remote
// producer feeding its node) are ever written, so only they become resident.
//
// The cycle engine's exchange, between cycles, one batch per destination rank per cycle:
//  - a packet a node pushes into another rank's node lands in the pusher's copy of that buffer
//    (the hop kernel is unchanged); ship() takes it out and batches it for the owner, which
//    pushes it into its own copy, in the same order (a buffer has one producer), before the next
//    cycle starts — where the one-process engine has it too;
//  - a credit a node frees for another rank's node is batched the same way and applied by the
//    owner before the next cycle (the engine's credits are one cycle late everywhere).
// The lookahead is therefore one cycle: the engine's credit return takes one cycle, so no window
// longer than that is safe without changing the results (docs/distributed.md).
// Every decision of the driver's loop (end, stall, livelock) uses the sums over all ranks, so
// every rank leaves the loop at the same cycle; after the run gather() brings every node's
// figures (counters, link counts, non-empty buffers, traces, application results) and every
// rank's statistics to rank 0, which computes the run's figures as one process does.
//
// Threading: every function runs on the main thread, between cycles or after the run.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "rica/engine.hpp"

namespace rica::detail {

/// Adds the time (both MPI drivers: Ranks::mpi_wait_s) from its construction to its destruction to `into` (seconds).
struct WaitTimer {
  double& into;
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  explicit WaitTimer(double& s) : into(s) {}
  WaitTimer(const WaitTimer&) = delete;
  WaitTimer& operator=(const WaitTimer&) = delete;
  ~WaitTimer() { into += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

class Machine;
struct Ranks;
std::unique_ptr<Ranks> make_ranks(const Machine& m);

struct Ranks {
  unsigned rank = 0, size = 1;
  std::vector<std::uint16_t> owner;  ///< per node: the rank that steps it
  std::uint64_t links = 0, cut_links = 0;  ///< links between distinct nodes; those between ranks
  std::uint64_t cross_hops = 0;            ///< hops into another rank's node (this rank's; summed at the end)
  std::uint64_t batches = 0;               ///< async engine: batches sent, summed over the ranks by its driver
  std::vector<std::uint64_t> peak_rss_kb;  ///< rank 0 after gather(): each rank's peak RSS (kB) then
  /// Time this rank spent in the loop's MPI calls: the cycle driver's exchange and checks (waiting
  /// for the others included); the async driver's bridge rounds (its sends, receives, the batches'
  /// packing and applying, the waves), a thread of its own beside the workers.
  double mpi_wait_s = 0;
  std::vector<double> mpi_wait_share;      ///< rank 0 after gather(): each rank's mpi_wait_s / its run time
  std::string split;                       ///< "blocks" or the partition rule
  int abort_cycle = -1;                    ///< test hook: this rank aborts at that cycle (RICA_TEST_ABORT_RANK)

  bool mine(node_t v) const noexcept { return owner[v] == rank; }

  /// Global sums of the driver's per-cycle counters.
  struct Sums {
    std::uint64_t progress = 0, delivered = 0, any = 0;
    /// The minimum over ranks of the first cycle anything can happen there (the cycle driver's
    /// idle-time skip); in the result only.
    std::uint64_t idle_until = ~std::uint64_t{0};
    std::uint64_t shipped = 0;  ///< in the result: packets and credits exchanged in this call
  };
  /// Packets pushed this cycle into buffer `in` of node v (another rank's): out of this rank's
  /// copy, into v's owner's batch.
  void ship(Machine& m, node_t v, std::uint32_t in);
  /// A credit of `words` freed for credit slot ci (another rank's node's): into its owner's batch.
  void ship_credit(Machine& m, std::uint32_t ci, std::uint32_t words);
  /// The exchange of one cycle: sends the batches, applies those received (credits; packets
  /// pushed into this rank's buffers, each (node, input) appended to `arrived`), returns the
  /// sums of `local` over all ranks. Collective.
  Sums exchange(Machine& m, const Sums& local, std::vector<std::pair<node_t, std::uint32_t>>& arrived);
  /// Logical or over all ranks. Collective.
  bool any(bool local);
  /// After the run: every rank's per-node figures into rank 0's st tables and the sums, stuck
  /// buffers, statistics, traces, application results and exactly-once record into rank 0's
  /// Machine, for collect() and analyse_stuck(). Collective.
  void gather(Machine& m, RunStats& st);
  /// Rank 0's verdict (deadlock, conservation, application, report; an error message) to every
  /// rank, so that all end alike. Collective.
  void share_outcome(RunStats& st, std::string& error);

 private:
  friend std::unique_ptr<Ranks> make_ranks(const Machine& m);
  struct PacketMsg {
    node_t v;
    std::uint32_t in;
    Packet p;
  };
  std::vector<std::vector<PacketMsg>> out_packets_;                             // [destination rank]
  struct CreditMsg {
    std::uint32_t ci, words;
  };
  std::vector<std::vector<CreditMsg>> out_credits_;  // [destination rank]
};

/// The ranks of this run for machine m (cfg.rank_split: blocks of the node numbering, or a
/// partition from rica::partition), or nullptr with one process. Collective when it returns one.
std::unique_ptr<Ranks> make_ranks(const Machine& m);

}  // namespace rica::detail
