#pragma once
// The packet: a small fixed-size value moved hop by hop through link buffers. No allocation per
// packet or per hop; 56 bytes.

#include <cstdint>

#include "rica/core.hpp"

namespace rica {

/// Index of a registered active-message handler (see Machine::add_handler).
using handler_t = std::uint16_t;

/// A job number that names no job (Packet::job is a job's number, rica/os.hpp; a node running
/// nothing has no_job).
inline constexpr std::uint8_t no_job = 0xff;

struct Packet {
  node_t src = 0;               ///< source PE
  node_t dst = 0;               ///< destination PE
  std::uint32_t seq = 0;        ///< per-source sequence number: (src, seq) names the packet
  handler_t handler = 0;        ///< handler run on arrival at dst
  std::uint8_t words = 1;       ///< length in words; counts against buffer capacity
  std::uint8_t job = 0;         ///< the job the packet belongs to (rica/os.hpp; 0 in a plain run)
  std::uint16_t hops = 0;       ///< links traversed so far
  class_t cls = 0;              ///< buffer class of the buffer the packet sits in (0 at injection)
  /// Cycle engine: the cycle its head reached the node holding it (the first cycle it may leave).
  std::uint32_t ready = 0;
  /// Cycle engine: the cycle its tail reached that node (it may be delivered from then on).
  /// Store-and-forward: tail == ready. Invariant: tail >= ready.
  std::uint32_t tail = 0;
  /// Time from generation to entering the network (leaving the source queue), ns or cycles,
  /// saturating at 2^32 - 1: network latency = latency - queued.
  std::uint32_t queued = 0;
  std::uint64_t inject_ns = 0;  ///< generation time: ns (async engine) or cycle (cycle engine)
  std::uint64_t payload[2] = {0, 0};
};
static_assert(sizeof(Packet) == 56, "Packet should stay 56 bytes");

}  // namespace rica
