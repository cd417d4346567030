#pragma once
// Exchange: rounds of point-to-point messages between the ranks of a kernel (apps/hpc; docs/apps.md),
// the transport under fft, cg, matmul and bfs. Rank r is the (job-local) PE r.
//
//   words     a message is a sequence of 64-bit words carried two per packet (payload[0], [1]), so
//             a message of W words is ceil(W / 2) packets: data is real and travels in the packets.
//   order     a sender sends each message's packets in word order; the packets' per-source sequence
//             numbers (Packet::seq) then restore that order at the receiver, which sorts a round's
//             packets by (source, seq) and never relies on delivery order.
//   rounds    every packet belongs to a round, the receiver's unit of completion. Round k travels
//             under handler slot k % slots; a rank enters round k with expect(k, packets): when that
//             many packets of the slot have arrived the round is ready and the kernel take()s them.
//             Packets of a later round may arrive before the rank enters it (they wait in its slot);
//             the kernel guarantees no sender runs `slots` or more rounds ahead of a receiver (a
//             global step, or a ring of at most `slots` ranks in between). A packet that would
//             overfill a round is counted as stray and fails verification, never silently mixed in.
//   self      a message to the rank itself is appended to its own slot without a packet.
//
// Threading: slot state of rank r is touched only on PE r's task (send/expect/take on r's Context,
// the handlers of packets delivered to r). rank_of_ (machine PE -> rank) is written by each PE in
// bind() before its first send, and read only for sources of delivered packets, whose bind()
// happens-before the packet's delivery (the packet was sent after it).

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "rica/app.hpp"

namespace rica::hpc {

class Exchange {
 public:
  /// Called on rank ctx.pe()'s task when the round it expects becomes ready (from the handler of
  /// the packet that completed it). Not called for a round already ready in expect().
  using Ready = std::function<void(Context&)>;

  /// Single-threaded, in App::setup(): `slots` handlers (1..4096) on `m`, one rank per PE.
  void setup(Machine& m, unsigned slots, Ready on_ready);
  /// On rank ctx.pe()'s task, before its first send (App::start()).
  void bind(Context& ctx);

  /// Sends `words` to rank `dst` in round `round` (ceil(size / 2) packets; none when empty).
  void send(Context& ctx, node_t dst, std::uint64_t round, std::span<const std::uint64_t> words);
  /// Rank ctx.pe() enters `round` expecting `packets` packets in it (its messages' packets summed);
  /// true when they are all here (then take() at once), else false and Ready follows.
  bool expect(Context& ctx, std::uint64_t round, std::uint64_t packets);

  /// One received message: its source rank and words (2 per packet; the last may be padding).
  struct Message {
    node_t src = 0;
    std::vector<std::uint64_t> words;
  };
  /// The ready round's messages in ascending source rank, and the slot freed for round + slots.
  std::vector<Message> take(Context& ctx);

  unsigned slots() const noexcept { return slots_; }
  /// After the run: packets sent by every rank, and packets that overfilled a round.
  std::uint64_t packets_sent() const;
  std::uint64_t stray() const;
  /// After the run: logical messages (sends of a non-empty message to another rank), all ranks.
  std::uint64_t messages() const;

 private:
  struct In {
    node_t src;
    std::uint32_t seq;
    std::uint64_t w0, w1;
  };
  struct Slot {
    std::vector<In> in;
    std::uint64_t expected = ~std::uint64_t{0};  ///< set by expect(); ~0 = not entered yet
  };
  struct Pe {
    std::vector<Slot> slot;
    std::uint64_t round = 0;         ///< the round entered last
    std::uint32_t self_seq = 0;      ///< sequence numbers of messages to itself
    std::uint64_t sent = 0, messages = 0, stray = 0;
  };
  void on_packet(Context& ctx, const Packet& p, unsigned slot);

  unsigned slots_ = 1;
  std::vector<handler_t> handler_;
  Ready ready_;
  std::vector<Pe> pe_;
  std::vector<node_t> rank_of_;  ///< machine PE -> rank (see the threading note)
};

/// Doubles as payload words (bit-cast) and back.
std::vector<std::uint64_t> to_words(std::span<const double> v);
void from_words(std::span<const std::uint64_t> w, std::span<double> out);

}  // namespace rica::hpc
