#pragma once
// LinkBuffer: the one link-buffer type of rica. One per (input port, buffer class) of every
// router: a bounded single-producer single-consumer queue (boost::lockfree::spsc_queue) whose
// capacity is counted in words, for virtual cut-through (a packet moves only when it fits whole).
//
// Threading contract: exactly one producer (the upstream router's task) calls the producer-side
// functions and exactly one consumer (this router's task) the consumer-side ones; a PE never runs
// on two threads at once, so each side is single-threaded. The word accounting is split: the
// producer keeps `Credit` (words it pushed, and a cached copy of words the consumer popped) in its
// own PE state; the consumer publishes words popped here, in its own cache line, so the producer
// reads it only when its cached bound says the packet may not fit (after Taskflow's wsq.hpp: a
// stale bound is safe because the consumer only ever frees space).

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstdint>
#include <memory>

#include "rica/packet.hpp"

namespace rica {

class LinkBuffer {
 public:
  /// Producer-side accounting, owned by the upstream PE (one per out-port and class).
  struct Credit {
    std::uint32_t pushed = 0;        ///< words pushed, ever (wraps; differences are exact)
    std::uint32_t popped_seen = 0;   ///< last observed consumer popped_ (never ahead of it)
  };

  /// capacity_words >= the longest packet; queue slots = capacity_words / min_words (+ slack).
  LinkBuffer(unsigned capacity_words, unsigned min_packet_words)
      : q_(capacity_words / (min_packet_words ? min_packet_words : 1) + 1), capacity_(capacity_words) {}
  LinkBuffer(const LinkBuffer&) = delete;
  LinkBuffer& operator=(const LinkBuffer&) = delete;

  // ---- producer side ----
  /// True when `words` fit now. May refresh the cached consumer count (one acquire load).
  bool fits(Credit& c, unsigned words) noexcept {
    if (capacity_ - (c.pushed - c.popped_seen) >= words) return true;
    c.popped_seen = consumer_.popped.load(std::memory_order_acquire);
    return capacity_ - (c.pushed - c.popped_seen) >= words;
  }
  /// Cycle engine: room by the credit as last refreshed (no read of the consumer's count, so the
  /// answer does not depend on how far the consumer got in this cycle).
  bool fits_cached(const Credit& c, unsigned words) const noexcept { return fits_cached(c, capacity_, words); }
  /// The same, for a caller that knows the capacity (every buffer of a machine has the same):
  /// decides without touching the consumer's buffer object at all.
  static bool fits_cached(const Credit& c, unsigned capacity_words, unsigned words) noexcept {
    return capacity_words - (c.pushed - c.popped_seen) >= words;
  }
  /// Cycle engine, between cycles: credits freed in the last cycle become visible.
  void refresh(Credit& c) const noexcept { c.popped_seen = consumer_.popped.load(std::memory_order_acquire); }
  /// Precondition: fits(c, p.words).
  void push(Credit& c, const Packet& p) noexcept {
    c.pushed += p.words;
    q_.push(p);
  }
  /// The producer found no room: ask the consumer for a wake-up. Returns true if room appeared
  /// meanwhile (then the caller retries instead of sleeping). Dekker-style with pop_and_check().
  bool wait_for_room(Credit& c, unsigned words) noexcept {
    consumer_.waiting.store(1, std::memory_order_seq_cst);
    c.popped_seen = consumer_.popped.load(std::memory_order_seq_cst);
    if (capacity_ - (c.pushed - c.popped_seen) >= words) {
      consumer_.waiting.store(0, std::memory_order_relaxed);
      return true;
    }
    return false;
  }

  // ---- consumer side ----
  bool empty() const noexcept { return q_.read_available() == 0; }
  const Packet& front() const noexcept { return q_.front(); }
  Packet& front() noexcept { return q_.front(); }
  /// Pops the front packet; returns true when the producer asked to be woken (it then must be).
  /// No fence here (it would cost as much as the hop): in the rare race where the producer
  /// registers between this store and load, the wake-up comes with the next pop, or — if this
  /// pop emptied the buffer — from the engine's quiescence re-check, which never loses a packet.
  bool pop_and_check() noexcept {
    const unsigned w = q_.front().words;
    q_.pop();
    popped_local_ += w;
    consumer_.popped.store(popped_local_, std::memory_order_release);
    if (consumer_.waiting.load(std::memory_order_acquire) == 0) return false;
    return consumer_.waiting.exchange(0, std::memory_order_acq_rel) != 0;
  }
  /// Packets queued (consumer side, or any thread once the machine is quiescent).
  std::size_t size() const noexcept { return q_.read_available(); }
  unsigned capacity_words() const noexcept { return capacity_; }
  /// Words currently held (exact when quiescent).
  unsigned words_held(const Credit& c) const noexcept { return c.pushed - consumer_.popped.load(std::memory_order_acquire); }

 private:
  boost::lockfree::spsc_queue<Packet> q_;
  std::uint32_t capacity_;
  std::uint32_t popped_local_ = 0;  // consumer-only copy of consumer_.popped
  /// Written by the consumer on every pop, read by the producer rarely: its own cache line.
  struct alignas(64) ConsumerSide {
    std::atomic<std::uint32_t> popped{0};
    std::atomic<std::uint32_t> waiting{0};  ///< set by the producer, cleared by the consumer
  } consumer_;
};

}  // namespace rica
