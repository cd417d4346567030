#pragma once
// The collectives as registered applications (docs/collectives.md): one executor of collective
// schedules (rica/collectives.hpp) as an active-message program, shared by every collective; the
// families (allreduce.cpp, bcast.cpp, ...) register themselves with register_collective().
//
// The program. Rank r (on PE map.pe(r)) performs its schedule's ops in order, `iterations` times
// back to back (no barrier between iterations, as a loop of MPI calls):
//   send      the message's data (its blocks' current values, 64-bit words) is written into the
//             receiver's inbox slot for that message, then ceil(bytes / packet bytes) packets (at
//             least one) of the machine's mean packet length are sent; the rank goes on at once.
//   receive   waits until all the message's packets have arrived, then combines (op) or copies
//             the slot's blocks into its own and frees the slot.
// Packets name the receiver's slot (w0 = slot | packet index << 32) and carry the message's
// checksum (w1), checked on arrival against the slot. Matching is MPI's: the k-th message from
// a to b is the k-th receive at b from a (resolved once, in setup). Real data: rank r's
// contribution to element e of block b in iteration i is coll::contribution(seed_i, r, b, e);
// verify() checks every rank's final blocks of every iteration against the serial reference.
//
// Reported (summary()): messages (logical, per iteration; = coll::message_count), packets,
// cycles (completion of the last rank, cycle engine), model_cycles (the alpha-beta prediction
// on the schedule's dependence graph with this machine's costs, model_message_cost()) and their
// ratio.
//
// Ownership and threading: per-rank state (RankState) is touched only on its PE's task. An inbox
// slot [receiver][k] is written by exactly one sender, before the first packet of its message
// leaves, and read and freed by the receiver only after that message's last packet arrived (the
// packet hand-off orders the two); the outer vectors are sized in setup() and never resized.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app_registry.hpp"
#include "process_map.hpp"
#include "rica/app.hpp"
#include "rica/collectives.hpp"

namespace rica::collectives {

struct CollectiveConfig {
  coll::Spec spec;                 ///< kind, algorithm, bytes, root, segment (p is set in setup)
  bool automatic = false;          ///< algorithm chosen by MPICH's rule in setup (p known then)
  coll::ReduceOp op = coll::ReduceOp::sum;
  std::uint32_t iterations = 1;
  kernels::MapKind map = kernels::MapKind::identity;
};

/// What one message costs on this machine (the model's alpha and beta): its packets follow the
/// deterministic route from PE a to PE b; the first arrives after the zero-load time of that path
/// (rica::ZeroLoadTiming: link cycles per hop, cut-through or store-and-forward, router pipeline),
/// each further packet one bottleneck-link time later; the ports are busy packets x that time.
/// `link_len` is the cycles a link leaving each node takes per packet (the machine's rule).
coll::MessageCost model_message_cost(const Topology& t, const MachineParams& mp, const std::vector<unsigned>& link_len,
                                     node_t a, node_t b, std::uint64_t bytes);
/// The machine's link cycles per packet of the links leaving each node (EngineConfig's rule:
/// link_cycles, or one per word, or the node's in-degree + out-degree).
std::vector<unsigned> link_lengths(const Topology& t, const MachineParams& mp);
/// Packets of a message of `bytes` bytes with packets of `packet_words` 64-bit words: at least 1.
inline std::uint64_t packets_for(std::uint64_t bytes, unsigned packet_words) {
  const std::uint64_t pb = std::uint64_t{packet_words} * 8;
  return bytes == 0 ? 1 : (bytes + pb - 1) / pb;
}

class CollectiveApp : public App {
 public:
  explicit CollectiveApp(CollectiveConfig c);

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

  const coll::Schedule& schedule() const { return *sched_; }
  /// After a run (cycle engine): the cycle the last rank finished; the model's prediction.
  std::uint64_t cycles() const noexcept;
  double model_cycles() const noexcept { return model_; }
  std::uint64_t messages_sent() const noexcept;

 private:
  struct Slot {
    std::vector<std::uint64_t> data;
    std::uint64_t sum = 0;
  };
  /// One rank's state: touched only on its PE's task (see the header comment).
  struct RankState {
    std::uint32_t iter = 0, pc = 0;
    std::vector<std::uint32_t> got;           ///< [iter * ops + op]: packets arrived
    std::vector<std::vector<std::uint64_t>> data;  ///< [local block]: its elements
    std::vector<char> held;                   ///< [local block]
    std::vector<std::uint64_t> checks;        ///< [iter]: checksum of the final blocks
    std::uint64_t sends = 0, bad = 0, finish = 0;
    bool done = false;
  };

  void begin_iteration(RankState& s, node_t r);
  void advance(Context& ctx, node_t r);
  void on_packet(Context& ctx, const Packet& p);
  std::uint32_t local(node_t r, std::uint32_t block) const;  // local index of a block at rank r
  std::uint64_t final_check(const RankState& s, node_t r) const;
  std::uint64_t reference_check(node_t r, std::uint32_t iter) const;
  std::uint64_t iteration_seed(std::uint32_t iter) const noexcept;

  CollectiveConfig cfg_;
  std::shared_ptr<const coll::Schedule> sched_;
  kernels::ProcessMap map_;
  MachineParams mp_;
  std::uint64_t seed_ = 0, max_sends_ = 0;
  double model_ = 0;
  handler_t handler_ = 0;
  unsigned words_ = 3;
  std::vector<std::vector<std::uint32_t>> blocks_of_;  ///< [rank]: sorted block ids it touches
  std::vector<std::vector<std::uint32_t>> match_;      ///< [rank][op]: send -> the receiver's op index
  std::vector<std::vector<Slot>> inbox_;                ///< [rank][iter * ops + op]
  std::vector<RankState> ranks_;
};

/// The registry parameters of a collective kind (algorithm, bytes, op, iterations, root, map,
/// segment as they apply) and its factory: registers `app_name` (usage_error as register_app).
void register_collective(coll::Kind kind, std::string app_name, std::string summary, std::string example);
/// Called by the application registry: references every family file, so that a static link
/// keeps their self-registrations.
void collectives_linked();
/// Builds the application of `kind` from registry arguments (usage_error naming the parameter).
std::unique_ptr<App> make_collective(coll::Kind kind, const SpecArgs& a, const Topology& t);

}  // namespace rica::collectives
