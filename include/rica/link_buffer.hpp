#pragma once
// LinkBuffer: the one link-buffer type of rica. One per (input port, buffer class) of every
// router: a bounded single-producer single-consumer queue (boost::lockfree::spsc_queue) whose
// capacity is counted in words, for virtual cut-through (a packet moves only when it fits whole).
//
// Storage. The queue carries slot indices; the packets themselves sit in slots of one pool per
// machine (PacketPool). Each thread takes and returns slots through its own SlotCache, last in
// first out: a hop frees the slot of the packet it forwards and at once takes it again for the
// copy it pushes, so the bytes a packet occupies stay in the moving thread's cache, and the memory
// a run touches follows the packets in flight, not the buffers' capacity (a lightly loaded
// 512K-PE torus holds a few packets per PE, not the 8 x 16 its buffers could).
//
// Threading contract: exactly one producer (the upstream router's task) calls the producer-side
// functions and exactly one consumer (this router's task) the consumer-side ones; a PE never runs
// on two threads at once, so each side is single-threaded. The word accounting is split: the
// producer keeps `Credit` (words it pushed, and a cached copy of words the consumer popped) in its
// own PE state; the consumer publishes words popped here, on the cache line of the queue's read
// index (which the producer reads on every push anyway), so the producer refreshes its cached
// count only when it says no (after Taskflow's wsq.hpp: a stale count is safe because the
// consumer only ever frees space). A slot passes producer -> consumer with the index push
// (release) and back to a cache at the pop; a SlotCache is used by one thread at a time.

#include <atomic>
#include <boost/lockfree/spsc_queue.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "rica/assert.hpp"
#include "rica/packet.hpp"


namespace rica {

using slot_t = std::uint32_t;

/// One packet slot: a cache line of its own, so two threads writing neighbouring slots (slots
/// migrate between threads' caches) never share a line.
struct alignas(64) PacketSlot {
  Packet packet;
};

/// The packet slots of a machine: one anonymous mapping, made resident as slots are first used.
/// Slots travel between threads in batches (a mutex-guarded list, taken once per kBatch hops at
/// most), never one by one. Capacity: every slot every buffer could hold at once, so a take never
/// fails while the buffers' credits are respected. Not movable.
class PacketPool {
 public:
  static constexpr std::uint32_t kBatch = 64;
  /// Throws std::bad_alloc when the mapping fails or `slots` exceeds 2^32 - 1.
  explicit PacketPool(std::uint64_t slots);
  ~PacketPool();
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  Packet& operator[](slot_t k) const noexcept { return base_[k].packet; }
  /// The slots, for a buffer that indexes them itself.
  PacketSlot* slots() const noexcept { return base_; }
  std::uint64_t capacity() const noexcept { return capacity_; }
  /// Slots ever handed out (an upper bound of the slots the run touched).
  std::uint64_t touched() const noexcept { return fresh_.load(std::memory_order_relaxed); }

  /// A batch of free slots into `out` (appended; up to kBatch). Any thread.
  void refill(std::vector<slot_t>& out);
  /// Gives back the last kBatch slots of `from`. Any thread.
  void give_back(std::vector<slot_t>& from);

 private:
  PacketSlot* base_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::size_t bytes_ = 0;
  std::atomic<std::uint64_t> fresh_{0};  ///< slots below this were handed out at least once
  std::mutex mutex_;
  std::vector<slot_t> free_;  ///< returned slots, guarded by mutex_
};

/// One thread's free slots (last in, first out). Single-threaded; move it between threads only
/// with a happens-before edge (a task hand-off, a join).
/// Destroying a cache drops its slots (they are the pool's memory; flush() first to reuse them).
class SlotCache {
 public:
  SlotCache() = default;
  explicit SlotCache(PacketPool& pool) : pool_(&pool) { free_.reserve(4 * PacketPool::kBatch); }

  /// Precondition: nothing taken from a previous pool is still cached.
  void attach(PacketPool& pool) {
    pool_ = &pool;
    free_.clear();
    free_.reserve(4 * PacketPool::kBatch);
  }
  slot_t take() {
    if (free_.empty()) pool_->refill(free_);
    const slot_t k = free_.back();
    free_.pop_back();
    return k;
  }
  void give(slot_t k) {
    free_.push_back(k);
    if (free_.size() >= 3 * PacketPool::kBatch) pool_->give_back(free_);
  }
  /// Returns every slot to the pool.
  void flush() {
    while (pool_ && !free_.empty()) pool_->give_back(free_);
  }

 private:
  PacketPool* pool_ = nullptr;
  std::vector<slot_t> free_;
};

class alignas(64) LinkBuffer {
 public:
  /// Producer-side accounting, owned by the upstream PE (one per out-port and class).
  struct Credit {
    std::uint32_t pushed = 0;        ///< words pushed, ever (wraps; differences are exact)
    std::uint32_t popped_seen = 0;   ///< last observed consumer popped_ (never ahead of it)
  };

  /// capacity_words >= the longest packet; the index ring holds capacity / shortest packet.
  LinkBuffer(const PacketPool& pool, unsigned capacity_words, unsigned min_packet_words)
      : q_(slots_for(capacity_words, min_packet_words)), pool_(pool.slots()), capacity_(capacity_words) {}
  LinkBuffer(const LinkBuffer&) = delete;
  LinkBuffer& operator=(const LinkBuffer&) = delete;
  /// Packets a buffer of capacity_words can hold at once (its index ring; at least 1).
  static std::uint32_t slots_for(unsigned capacity_words, unsigned min_packet_words) noexcept {
    const unsigned s = capacity_words / (min_packet_words ? min_packet_words : 1);
    return s ? s : 1;
  }

  // ---- producer side ----
  /// True when `words` fit now. May refresh the cached consumer count (one acquire load).
  bool fits(Credit& c, unsigned words) noexcept { return fits(c, capacity_, words); }
  /// The same, for a caller that knows the capacity (every buffer of a machine has the same): the
  /// buffer itself is read only when the cached count says no.
  bool fits(Credit& c, unsigned capacity_words, unsigned words) noexcept {
    RICA_ASSERT(capacity_words == capacity_, "fits() with another buffer's capacity");
    if (capacity_words - (c.pushed - c.popped_seen) >= words) return true;
    c.popped_seen = popped_.load(std::memory_order_acquire);
    return capacity_words - (c.pushed - c.popped_seen) >= words;
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
  void refresh(Credit& c) const noexcept { c.popped_seen = popped_.load(std::memory_order_acquire); }
  /// Precondition: fits(c, p.words). The packet goes into a slot from the producer's cache.
  void push(Credit& c, const Packet& p, SlotCache& cache) {
    push(c, p, cache, [](Packet&) noexcept {});
  }
  /// The same, with edit(copy) applied to the slot's copy before it is published (the hop kernel
  /// stamps the copy in place: one copy of the packet per hop). edit must keep `words`.
  template <class Edit>
  void push(Credit& c, const Packet& p, SlotCache& cache, Edit&& edit) {
    const slot_t k = cache.take();
    Packet& copy = pool_[k].packet;
    copy = p;
    edit(copy);
    RICA_ASSERT(copy.words == p.words, "push: the edit changed the packet's length");
    c.pushed += p.words;
    const bool ok = q_.push(k);  // release: publishes the slot's contents
    RICA_ASSERT(ok, "index ring full although the credit said the packet fits");
    (void)ok;
  }
  /// The producer found no room: ask the consumer for a wake-up. Returns true if room appeared
  /// meanwhile (then the caller retries instead of sleeping). Dekker-style with pop_and_check().
  bool wait_for_room(Credit& c, unsigned words) noexcept {
    waiting_.store(1, std::memory_order_seq_cst);
    c.popped_seen = popped_.load(std::memory_order_seq_cst);
    if (capacity_ - (c.pushed - c.popped_seen) >= words) {
      waiting_.store(0, std::memory_order_relaxed);
      return true;
    }
    return false;
  }

  // ---- consumer side ----
  bool empty() const noexcept { return q_.read_available() == 0; }
  /// Consumer side. Precondition: !empty().
  const Packet& front() const noexcept {
    RICA_ASSERT(!empty(), "front() of an empty link buffer");
    return pool_[q_.front()].packet;
  }
  Packet& front() noexcept {
    RICA_ASSERT(!empty(), "front() of an empty link buffer");
    return pool_[q_.front()].packet;
  }
  /// Consumer side, hints only (no effect on state): start fetching the front entry of the index
  /// ring, then (once that is cached) the front packet's slot. Nothing when empty.
  void prefetch_front_index() const noexcept {
    if (!empty()) __builtin_prefetch(&q_.front());
  }
  void prefetch_front() const noexcept {
    if (!empty()) __builtin_prefetch(&pool_[q_.front()]);
  }
  /// Pops the front packet, its slot going to the consumer's cache; returns true when the
  /// producer asked to be woken (it then must be).
  /// No fence here (it would cost as much as the hop): in the rare race where the producer
  /// registers between this store and load, the wake-up comes with the next pop, or — if this
  /// pop emptied the buffer — from the engine's quiescence re-check, which never loses a packet.
  bool pop_and_check(SlotCache& cache) { return pop(cache).wake; }
  /// What a pop found: the producer asked to be woken (it then must be); the buffer is now empty
  /// (as the consumer sees it: a packet pushed since may not show yet).
  struct Popped {
    bool wake, now_empty;
  };
  /// pop_and_check(), also saying whether the buffer is now empty (the engines' work masks), from
  /// the one emptiness test the pop makes anyway.
  Popped pop(SlotCache& cache) {
    RICA_ASSERT(!empty(), "pop of an empty link buffer");
    const slot_t k = q_.front();
    const unsigned w = pool_[k].packet.words;
    q_.pop();
    cache.give(k);
    // The next packet is the consumer's next read of this buffer: start fetching its slot now.
    const bool now_empty = empty();
    if (!now_empty) __builtin_prefetch(&pool_[q_.front()]);
    popped_.store(popped_.load(std::memory_order_relaxed) + w, std::memory_order_release);
    if (waiting_.load(std::memory_order_acquire) == 0) return {false, now_empty};
    return {waiting_.exchange(0, std::memory_order_acq_rel) != 0, now_empty};
  }
  // ---- the MPI bridge (runtime/machine/driver_mpi_async.cpp): this rank's copy of a buffer another rank
  // owns is the link's outbox; its consumer is the bridge thread, and words leave the producer's
  // credit view only when the remote consumer frees them, so a cut link still holds one buffer ----
  /// Consumer side: takes the front packet out (its slot to `cache`) without crediting its words.
  Packet take_uncredited(SlotCache& cache) {
    RICA_ASSERT(!empty(), "take from an empty link buffer");
    const slot_t k = q_.front();
    const Packet p = pool_[k].packet;
    q_.pop();
    cache.give(k);
    return p;
  }
  /// Consumer side: `words` freed by the remote consumer become room for the producer. Returns
  /// true when the producer asked to be woken (it then must be). Fenced (Dekker with
  /// wait_for_room): the bridge is off the hop path, so it never loses a wake-up.
  bool credit(unsigned words) noexcept {
    popped_.store(popped_.load(std::memory_order_relaxed) + words, std::memory_order_seq_cst);
    if (waiting_.load(std::memory_order_seq_cst) == 0) return false;
    return waiting_.exchange(0, std::memory_order_acq_rel) != 0;
  }
  /// Words the consumer popped, ever (wraps; differences are exact). Any thread.
  std::uint32_t popped_words() const noexcept { return popped_.load(std::memory_order_acquire); }
  /// Packets queued (consumer side, or any thread once the machine is quiescent).
  std::size_t size() const noexcept { return q_.read_available(); }
  unsigned capacity_words() const noexcept { return capacity_; }
  /// Words currently held (exact when quiescent).
  unsigned words_held(const Credit& c) const noexcept { return c.pushed - popped_.load(std::memory_order_acquire); }

 private:
  // boost lays out the producer's write index on a line of its own, then the consumer's read
  // index; what the consumer writes (popped_, waiting_) and the constants follow on that line.
  boost::lockfree::spsc_queue<slot_t> q_;
  std::atomic<std::uint32_t> popped_{0};   ///< words popped, ever: consumer-written
  std::atomic<std::uint32_t> waiting_{0};  ///< set by the producer, cleared by the consumer
  PacketSlot* pool_;
  std::uint32_t capacity_;
};

/// Every link buffer of a machine and their packet pool. Built and destroyed by one thread.
class LinkBufferSet {
 public:
  /// n buffers of capacity_words each; packets are at least min_packet_words long. Throws
  /// std::bad_alloc when the storage cannot be had.
  LinkBufferSet(std::size_t n, unsigned capacity_words, unsigned min_packet_words);
  /// The same n buffers, groups of `per_node` (a node's inputs), of which only the groups g with
  /// kept[g] != 0 are built (a machine over MPI ranks: a rank's own nodes and the ghost inputs
  /// its cut links push into). The storage of the others is mapped but never touched, and must
  /// never be accessed; the packet pool holds room for the built buffers only.
  LinkBufferSet(std::size_t n, unsigned capacity_words, unsigned min_packet_words, std::size_t per_node,
                std::vector<std::uint8_t> kept);
  ~LinkBufferSet();
  LinkBufferSet(const LinkBufferSet&) = delete;
  LinkBufferSet& operator=(const LinkBufferSet&) = delete;

  LinkBuffer& operator[](std::size_t i) noexcept { return buffers_[i]; }
  const LinkBuffer& operator[](std::size_t i) const noexcept { return buffers_[i]; }
  LinkBuffer* data() noexcept { return buffers_; }
  std::size_t size() const noexcept { return n_; }
  PacketPool& pool() noexcept { return pool_; }
  /// Bytes n such buffers need up front (objects, index rings), packet slots excluded: those
  /// become resident as packets fill them, sizeof(Packet) each.
  static double fixed_bytes(std::size_t n, unsigned capacity_words, unsigned min_packet_words);
  /// Bytes of address space the packet pool maps (every packet n buffers could hold at once).
  static double pool_bytes(std::size_t n, unsigned capacity_words, unsigned min_packet_words);

 private:
  void build(unsigned capacity_words, unsigned min_packet_words);
  /// Destroys the first `built` buffers (those kept) and frees their storage.
  void release(std::size_t built) noexcept;
  bool kept(std::size_t i) const noexcept { return kept_.empty() || kept_[i / per_node_] != 0; }
  std::size_t n_ = 0;
  std::size_t per_node_ = 1;
  std::vector<std::uint8_t> kept_;  ///< per group: built; empty: every buffer (one process)
  PacketPool pool_;
  LinkBuffer* buffers_ = nullptr;
};

}  // namespace rica
