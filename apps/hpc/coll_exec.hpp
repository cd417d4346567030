#pragma once
// CollExec: a collective schedule of the collective library (rica/collectives.hpp) run inside a
// kernel's rounds (round_app.hpp) over its Exchange, on real data, one round per schedule step.
// The kernels take their allreduces and alltoalls from here.
//
//   round     entering step k, a member issues its sends of step k in op order (each carries the
//             current value of its blocks: the elements of the blocks, concatenated, two per packet;
//             a message without elements is one packet, as zero-byte messages are messages) and
//             expects the packets of its receives of step k; when they are all here it applies
//             them in op order, combining (combine(local, received), element-wise) or copying.
//   checks    valid for schedules where every message is received in the step it was sent
//             (matched a -> b in FIFO order) and no send of a step follows a receive of the same
//             step that writes one of its blocks (the executor issues a step's sends first); the
//             constructor checks both (std::logic_error otherwise: every schedule of the library's
//             allreduce and alltoall algorithms passes, tests/test_hpc_kernels.cpp).
//   replay    serial(): the same steps run serially over every member's blocks, so a kernel's
//             serial reference combines floating-point values in the order its run does.
//
// Threading: a CollExec is immutable after construction and read by every member's task; a
// member's blocks (Blocks) belong to that member's rank state (touched on its PE's task only).

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "exchange.hpp"
#include "rica/collectives.hpp"

namespace rica::hpc {

/// A member's data: block id -> its elements (64-bit words).
using Blocks = std::unordered_map<std::uint32_t, std::vector<std::uint64_t>>;
using Combine = std::function<std::uint64_t(std::uint64_t local, std::uint64_t received)>;

class CollExec {
 public:
  /// `members[i]` is the kernel rank of member i (the communicator); `spec.p` must equal its size.
  CollExec(const coll::Spec& spec, std::vector<node_t> members);

  const coll::Schedule& schedule() const noexcept { return sc_; }
  std::uint32_t steps() const noexcept { return sc_.steps; }
  std::uint64_t messages() const noexcept { return sc_.messages(); }
  /// Elements of a block.
  std::uint64_t elements(std::uint32_t block) const noexcept { return sc_.elements(block); }

  /// Member `me` enters step `step`: sends (through `ex` as round `round`), returns packets expected.
  std::uint64_t enter(Exchange& ex, Context& ctx, std::uint64_t round, std::uint32_t me, std::uint32_t step,
                      const Blocks& data) const;
  /// The step's messages (Exchange::take, ascending source rank) applied to `data`.
  void consume(std::uint32_t me, std::uint32_t step, const std::vector<Exchange::Message>& msgs, Blocks& data,
               const Combine& combine) const;
  /// A scalar reduction's data: `value` as element 0 of the member's first initial block with
  /// elements, every other element 0 (the reductions leave it where it started).
  Blocks scalar(std::uint32_t me, std::uint64_t value) const;
  /// The scalar's result in `data` after the schedule (member `me`'s final blocks).
  std::uint64_t scalar_result(const Blocks& data) const;
  /// The serial replay: every member's blocks after the whole schedule.
  void serial(std::vector<Blocks>& data, const Combine& combine) const;

 private:
  static std::uint64_t packets(std::uint64_t words) noexcept { return words ? (words + 1) / 2 : 1; }
  std::uint64_t words_of(const coll::Op& op) const;
  std::uint32_t scalar_block_ = 0;  ///< the lowest block id with elements
  coll::Schedule sc_;
  std::vector<node_t> members_;
  std::unordered_map<node_t, std::uint32_t> member_of_;  ///< kernel rank -> member
  /// [member][step]: indices into sc_.ranks[member] of that step's ops
  std::vector<std::vector<std::vector<std::uint32_t>>> by_step_;
};

/// A spec of `kind` with `algorithm` over p ranks, `bytes` as coll::Spec says.
inline coll::Spec spec_of(coll::Kind kind, coll::Algorithm algorithm, std::uint32_t p, std::uint64_t bytes) {
  coll::Spec s;
  s.kind = kind, s.algorithm = algorithm, s.p = p, s.bytes = bytes;
  return s;
}

/// A double as a word and back (the kernels' reductions of doubles).
inline std::uint64_t word_of(double d) noexcept { return std::bit_cast<std::uint64_t>(d); }
inline double double_of(std::uint64_t w) noexcept { return std::bit_cast<double>(w); }
/// Combine functions: IEEE double addition (commutative, so both partners of a pair get the same
/// bits) and exact 64-bit integer addition.
inline std::uint64_t add_doubles(std::uint64_t a, std::uint64_t b) noexcept { return word_of(double_of(a) + double_of(b)); }
inline std::uint64_t add_words(std::uint64_t a, std::uint64_t b) noexcept { return a + b; }

}  // namespace rica::hpc
