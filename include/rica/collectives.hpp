#pragma once
// Collective communication schedules: the algorithms MPI libraries use (Thakur, Rabenseifner &
// Gropp 2005; MPICH's src/mpi/coll), as pure data. build() turns (kind, algorithm, p ranks, bytes,
// root) into, for every rank, the ordered list of point-to-point operations it performs: send or
// receive, the peer, the bytes, which data blocks, and whether a received block is combined with
// the local one (a reduction) or copied over it. Nothing here depends on a machine: the same
// schedule is run serially on real data (simulate()), as active messages on an emulated network
// (the collective applications, apps/collectives), and expanded from a recorded MPI program
// (replay). docs/collectives.md describes every algorithm, its message count and its cost.
//
// Semantics of a schedule (what simulate() checks and every executor must honour):
//   - Data is a set of blocks (Schedule::block_bytes). Each rank starts holding the blocks of
//     Schedule::initial[rank] (its own contribution of each) and must end holding at least
//     Schedule::final_blocks[rank], each equal to the reference (reduced over all ranks' contributions
//     for reducing kinds, the owner's contribution for the others).
//   - A rank performs its ops in order. A send is eager and non-blocking: it carries the current
//     value of its blocks at the moment it is issued. A receive blocks until its message is there.
//   - Messages from rank a to rank b match receives at b from a in the order they were sent
//     (MPI's non-overtaking rule); a receive lists exactly the blocks, in the same order, of the
//     send it matches.
//   - Receive with combine: local = op(local, received) element-wise (the local block must be
//     held); without: local = received.
//   - Zero-byte messages exist (barriers, empty chunks that MPICH still sends): they are messages.
//
// Thread-safety: every function is pure (no shared state); Schedules are plain values.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace rica::coll {

/// The collective operations (MPI's names in lower case, '_' for '-').
enum class Kind : std::uint8_t { allreduce, bcast, reduce, gather, scatter, allgather, alltoall, reduce_scatter, barrier };

/// The algorithms. Each kind accepts the subset listed by algorithms(kind).
enum class Algorithm : std::uint8_t {
  ring,                    ///< allreduce, allgather, reduce-scatter
  recursive_doubling,      ///< allreduce, allgather
  rabenseifner,            ///< allreduce: recursive-halving reduce-scatter + recursive-doubling allgather
  binomial,                ///< allreduce (reduce + bcast), bcast, reduce, gather, scatter
  scatter_allgather,       ///< bcast (van de Geijn): binomial scatter + recursive-doubling allgather (ring if p is not a power of two)
  scatter_ring_allgather,  ///< bcast: binomial scatter + ring allgather (MPICH's choice for long messages)
  pipeline,                ///< bcast: a chain root -> root+1 -> ..., the message cut into segments
  bruck,                   ///< allgather, alltoall
  pairwise,                ///< alltoall, reduce-scatter (MPICH's long-message reduce-scatter)
  linear,                  ///< alltoall (MPICH's "scattered": every send posted at once)
  recursive_halving,       ///< reduce-scatter
  dissemination,           ///< barrier
  tree,                    ///< barrier: binomial gather of tokens to rank 0, binomial bcast back
};

std::string_view name(Kind k) noexcept;
std::string_view name(Algorithm a) noexcept;
/// Every kind, in the enum's order; every algorithm name.
const std::vector<Kind>& kinds();
/// The algorithms a kind accepts, in the order of the list above.
const std::vector<Algorithm>& algorithms(Kind k);
bool accepts(Kind k, Algorithm a);
/// By name ("reduce-scatter", "recursive-doubling"; '_' accepted for '-'). Throws
/// rica::usage_error "unknown collective 'x'; did you mean ...? valid: ..." otherwise.
Kind parse_kind(std::string_view text);
/// Throws usage_error naming the kind's accepted algorithms when `text` is not one of them.
Algorithm parse_algorithm(Kind k, std::string_view text);

/// What to build. `bytes` means, per kind (as MPI's count x type size):
///   allreduce, reduce, bcast: the whole vector;  gather, scatter, allgather: each rank's block;
///   alltoall: the block each rank sends each rank;  reduce-scatter: each rank's result block;
///   barrier: ignored (0).
/// v-variants: `counts` (optional) gives per-rank block bytes instead of `bytes`: p entries for
/// gather(v), scatter(v), allgather(v), reduce-scatter (recvcounts); p*p entries, row-major
/// [src * p + dst], for alltoall(v). Zero entries are allowed.
struct Spec {
  Kind kind = Kind::allreduce;
  Algorithm algorithm = Algorithm::recursive_doubling;
  std::uint32_t p = 2;        ///< ranks, >= 1
  std::uint64_t bytes = 8;    ///< see above; >= 1 unless `counts` is given or kind is barrier
  std::uint32_t root = 0;     ///< bcast, reduce, gather, scatter
  std::vector<std::uint64_t> counts;
  std::uint64_t segment = 8192;  ///< pipeline bcast: segment bytes (>= 1)
};

/// One point-to-point operation of a rank.
struct Op {
  enum class Type : std::uint8_t { send, recv };
  Type type = Type::send;
  bool combine = false;            ///< recv: reduce into the local blocks (else copy over them)
  std::uint32_t peer = 0;          ///< the other rank
  std::uint32_t step = 0;          ///< the algorithm's round (0-based, global over its phases)
  std::uint64_t bytes = 0;         ///< sum of block_bytes over `blocks`
  std::vector<std::uint32_t> blocks;  ///< block ids carried, in message order
};

struct Schedule {
  Spec spec;
  bool reduces = false;                          ///< blocks are reduced (allreduce, reduce, reduce-scatter)
  std::vector<std::uint64_t> block_bytes;        ///< the block space
  std::vector<std::vector<Op>> ranks;            ///< [rank]: ops in program order
  std::vector<std::vector<std::uint32_t>> initial;       ///< [rank]: blocks held at the start
  std::vector<std::vector<std::uint32_t>> final_blocks;  ///< [rank]: blocks that must be right at the end
  std::uint32_t steps = 0;                       ///< rounds (max step + 1)

  std::uint64_t messages() const noexcept;       ///< sends in all
  std::uint64_t bytes_sent() const noexcept;     ///< bytes over all messages
  /// Data elements of a block: 64-bit words, ceil(bytes / 8) (simulate() and the applications).
  std::uint64_t elements(std::uint32_t block) const noexcept { return (block_bytes[block] + 7) / 8; }
};

/// Builds the schedule. Throws usage_error naming the field (p, bytes, root, counts, segment,
/// algorithm) when the spec is impossible.
Schedule build(const Spec& spec);

/// The algorithm's closed-form message count (docs/collectives.md gives each), computed from
/// the formula, not from a schedule: with k = floor(log2 p), pof2 = 2^k, rem = p - pof2,
/// ceil_lg = ceil(log2 p). Tests check build(spec).messages() against it.
std::uint64_t message_count(const Spec& spec);

/// MPICH's default choice (MPIR_*_intra_auto with the default CVARs, MPICH 3.x/4.x), restricted
/// to the algorithms above; `bytes` as in Spec. docs/collectives.md lists the rules; rule_text()
/// gives the rule of one kind in one line.
Algorithm choose(Kind k, std::uint32_t p, std::uint64_t bytes);
std::string_view rule_text(Kind k) noexcept;

// ---- Data: the serial reference and a serial run of a schedule ---------------------------------

/// The reduction operators (MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR on
/// unsigned 64-bit integers: exact, associative and commutative, so any order gives one answer).
enum class ReduceOp : std::uint8_t { sum, prod, max, min, band, bor, bxor };
std::string_view name(ReduceOp o) noexcept;
ReduceOp parse_op(std::string_view text);  ///< usage_error naming the accepted ones
std::uint64_t apply(ReduceOp o, std::uint64_t a, std::uint64_t b) noexcept;

/// Rank `rank`'s contribution to element `index` of block `block` (seeded, deterministic).
std::uint64_t contribution(std::uint64_t seed, std::uint32_t rank, std::uint32_t block, std::uint64_t index) noexcept;
/// The right final value of element `index` of `block` (for reducing schedules, op over every
/// rank's contribution; otherwise the contribution of the block's owner, the one rank whose
/// initial set holds it).
std::uint64_t reference(const Schedule& s, ReduceOp op, std::uint64_t seed, std::uint32_t block, std::uint64_t index);

/// Runs the schedule serially on real data under the semantics above and checks everything:
/// matching (peer, blocks, bytes), no receive left waiting (deadlock), no message left unreceived,
/// no block sent or combined that is not held, no rank's contribution reduced twice into a block,
/// and the final blocks equal to the reference. Returns "" when right, else what went wrong
/// (naming the rank and op).
std::string simulate(const Schedule& s, ReduceOp op = ReduceOp::sum, std::uint64_t seed = 1);

// ---- The cost model ---------------------------------------------------------------------------

/// What one message costs, from the machine's parameters (the applications compute it from the
/// router and link cycles, packet size and hop distance): the sender's port is busy `occupancy`
/// (the beta term: injecting the message), the last byte arrives `latency` after the send starts
/// (alpha + hops + beta), the receiver's port is busy `occupancy` taking it in.
struct MessageCost {
  double occupancy = 0;
  double latency = 0;
};
using CostFn = std::function<MessageCost(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes)>;

/// The Hockney/Thakur alpha-beta(-gamma) time of a schedule, evaluated on its dependence graph
/// (so it equals the textbook closed forms when every message costs alike): each rank has a
/// clock and one send and one receive port (full duplex, single-port). A send starts when the
/// rank and its send port are free and does not block the rank; a receive completes when the
/// message's last byte is in and the receive port has taken it, plus gamma x bytes when it
/// combines. The result is the latest rank clock. `reply_delay`: the time from a receive's
/// completion to the start of a send that follows it in the rank's program (an executor that
/// sends from the handler of the last packet: the cycle engine injects it one cycle later, 1).
double model_time(const Schedule& s, const CostFn& cost, double gamma_per_byte = 0, double reply_delay = 0);

/// The plain Hockney cost: every message alpha + beta x bytes, occupying the port beta x bytes.
inline CostFn hockney(double alpha, double beta_per_byte) {
  return [alpha, beta_per_byte](std::uint32_t, std::uint32_t, std::uint64_t b) {
    return MessageCost{beta_per_byte * static_cast<double>(b), alpha + beta_per_byte * static_cast<double>(b)};
  };
}

}  // namespace rica::coll
