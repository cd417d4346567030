#pragma once
// An MPI program's communication as rica replays it (docs/replay.md): per MPI_COMM_WORLD rank, the
// sequence of its point-to-point operations, waits and collectives in program order, each with the
// compute gap before it (recorded ns), read from an OTF2 archive (read_otf2) and checked by a
// static matching pass (match) that pairs every receive with its send.
//
// Matching follows MPI: a receive matches a send of the same communicator from its source with its
// tag; wildcards (MPI_ANY_SOURCE / MPI_ANY_TAG) are resolved as recorded (the trace names the
// source and tag the receive actually got); messages between one pair on one communicator and tag
// are non-overtaking, so the k-th send of a (source, destination, communicator, tag) channel in the
// sender's program order matches the k-th receive of that channel in the receiver's posting order.
//
// Immutable after match(); safe to read from any thread.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace rica::replay {

enum class OpKind : std::uint8_t {
  send,  ///< a send is started: blocking (Send/Ssend/Bsend/Rsend) or not (Isend...)
  recv,  ///< a receive is posted: blocking (Recv) or not (Irecv)
  wait,  ///< a blocking wait for the non-blocking operation `ref` (Wait/Test families)
  coll,  ///< a collective call (expanded into point-to-point operations before a run)
};

/// The send modes of MPI: standard follows the eager threshold; synchronous always waits for the
/// receiver (rendezvous); buffered and ready never do (eager).
enum class SendMode : std::uint8_t { standard, synchronous, buffered, ready };

/// The collective operations (OTF2_CollectiveOp numbering for those rica covers).
enum class Coll : std::uint8_t {
  barrier, bcast, gather, gatherv, scatter, scatterv, allgather, allgatherv, alltoall, alltoallv,
  alltoallw, allreduce, reduce, reduce_scatter, other
};
const char* coll_name(Coll c) noexcept;

struct Op {
  OpKind kind = OpKind::send;
  SendMode mode = SendMode::standard;
  bool blocking = false;   ///< send / recv: the call waits for its own completion
  Coll coll = Coll::other;
  std::uint32_t peer = 0;  ///< send: destination, recv: source (MPI_COMM_WORLD ranks)
  std::uint32_t comm = 0;  ///< the communicator's index in Trace::comms
  std::uint32_t tag = 0;
  std::uint32_t root = 0;  ///< coll: the root (an MPI_COMM_WORLD rank)
  std::uint64_t bytes = 0; ///< send: the message; recv: the matched send's (after match); coll: sizeSent
  std::uint64_t bytes2 = 0;  ///< coll: sizeReceived
  std::uint64_t gap_ns = 0;  ///< recorded compute before this operation
  std::uint32_t ref = 0;     ///< wait: the operation waited for; send / recv: the matching op on the peer
  std::uint32_t call = 0;    ///< the MPI call it came from (index into Trace::calls)
  std::uint64_t event = 0;   ///< its event's position in the rank's event stream (for messages)
};

struct Comm {
  std::string name;
  std::vector<std::uint32_t> members;  ///< communicator rank -> MPI_COMM_WORLD rank
};

struct Trace {
  std::string path;  ///< the anchor file read
  std::uint32_t ranks = 0;
  std::vector<std::vector<Op>> ops;  ///< per rank, program order
  std::vector<Comm> comms;
  std::vector<std::string> calls;    ///< MPI call names ("MPI_Send", ...) referenced by Op::call
  std::uint64_t wall_ns = 0;         ///< the recorded run's length (clock properties: trace length)
  std::string creator;               ///< the archive's creator ("rica record", "Score-P ...")
  std::uint64_t events = 0;          ///< event records read
  /// Collectives by kind over all ranks (each rank's call counted once: calls / comm size = operations).
  std::map<std::string, std::uint64_t> collective_calls;
  std::vector<std::string> warnings; ///< what was read but not modelled (one line each)
  /// After expand_collectives: the algorithm used per collective kind (the last one built).
  std::map<std::string, std::string> collective_algorithms;
  bool matched = false;
};

/// Op::comm of a collective's own messages (expand_collectives): the communicator's index with
/// this bit set, the call's sequence number on it as the tag.
inline constexpr std::uint32_t collective_comm = 0x80000000u;

/// Limits on what a trace may hold (a hostile archive must not exhaust memory).
inline constexpr std::uint32_t max_ranks = 1u << 20;
inline constexpr std::uint64_t max_ops = std::uint64_t{1} << 28;

/// Reads an OTF2 archive: `path` is its anchor file (NAME.otf2) or a directory holding exactly
/// one. Throws usage_error (one line naming the path, the rank and event where it applies) when
/// the path is missing, not an OTF2 archive, truncated or inconsistent (a peer outside its
/// communicator, an unknown communicator, a completion of an unknown request).
[[nodiscard]] Trace read_otf2(const std::string& path);

/// The static matching pass: pairs sends and receives (Op::ref both ways, a receive's bytes set
/// to its send's). Throws usage_error naming the rank, event and call of the first receive no send
/// matches (or send no receive matches). Collectives are not touched.
void match(Trace& t);

/// Replaces every collective call by its rank's operations in the collective's schedule
/// (rica/collectives.hpp): `choice` "kind=algorithm,..." (usage_error naming an unknown kind or
/// algorithm), MPICH's default rule for the other kinds. Throws usage_error naming the ranks and
/// events when the members of a communicator disagree on a call. Run before match().
void expand_collectives(Trace& t, const std::string& choice);

/// "rank R event E (MPI_Recv from 3, tag 7, comm MPI_COMM_WORLD)": an op as messages name it.
[[nodiscard]] std::string describe(const Trace& t, std::uint32_t rank, std::uint32_t op);

}  // namespace rica::replay
