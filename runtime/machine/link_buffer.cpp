// PacketPool and LinkBufferSet: the packet slots and buffers of a machine (rica/link_buffer.hpp).
#include "rica/link_buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <utility>

#include "sparse.hpp"

namespace rica {

static_assert(sizeof(LinkBuffer) == 128, "a LinkBuffer is two cache lines: the producer's and the consumer's");

PacketPool::PacketPool(std::uint64_t slots) : capacity_(slots) {
  if (slots == 0) return;
  if (slots > 0xffffffffULL) throw std::bad_alloc();  // slot_t is 32-bit
  // Anonymous and not reserved against swap: a page becomes resident when a slot in it is first
  // written, so untouched capacity costs address space only.
  bytes_ = static_cast<std::size_t>(slots) * sizeof(PacketSlot);
  void* m = ::mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) throw std::bad_alloc();
  base_ = static_cast<PacketSlot*>(m);
}

PacketPool::~PacketPool() {
  if (base_) ::munmap(base_, bytes_);
}

void PacketPool::refill(std::vector<slot_t>& out) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!free_.empty()) {  // most recently returned first: warm slots before cold ones
      const std::size_t n = std::min<std::size_t>(kBatch, free_.size());
      out.insert(out.end(), free_.end() - static_cast<std::ptrdiff_t>(n), free_.end());
      free_.resize(free_.size() - n);
      return;
    }
  }
  // Never-used slots, handed out in batches (a take never fails while credits are respected:
  // the capacity is every slot all buffers could hold at once).
  const std::uint64_t first = fresh_.fetch_add(kBatch, std::memory_order_relaxed);
  if (first >= capacity_) {  // a broken invariant (a push without room), never an input error
    std::fprintf(stderr, "rica: packet pool exhausted (%llu slots) although every credit was respected\n",
                 static_cast<unsigned long long>(capacity_));
    std::abort();
  }
  const std::uint64_t last = std::min<std::uint64_t>(first + kBatch, capacity_);
  for (std::uint64_t k = last; k > first; --k) out.push_back(static_cast<slot_t>(k - 1));
}

void PacketPool::give_back(std::vector<slot_t>& from) {
  const std::size_t n = std::min<std::size_t>(kBatch, from.size());
  std::lock_guard<std::mutex> lock(mutex_);
  free_.insert(free_.end(), from.end() - static_cast<std::ptrdiff_t>(n), from.end());
  from.resize(from.size() - n);
}

// Slots beyond what the buffers can hold: those parked in threads' caches (at most 3 batches a
// thread, plus one being taken). Address space only, so generous: 340 threads.
static constexpr std::uint64_t kCacheSlack = 1024 * PacketPool::kBatch;

double LinkBufferSet::fixed_bytes(std::size_t n, unsigned capacity_words, unsigned min_packet_words) {
  // Object and its index ring (one slot more, malloc's header and rounding).
  const double ring = (LinkBuffer::slots_for(capacity_words, min_packet_words) + 1) * 4.0 + 16;
  return static_cast<double>(n) * (sizeof(LinkBuffer) + std::max(32.0, ring));
}

double LinkBufferSet::pool_bytes(std::size_t n, unsigned capacity_words, unsigned min_packet_words) {
  return (static_cast<double>(n) * LinkBuffer::slots_for(capacity_words, min_packet_words) + kCacheSlack) *
         sizeof(PacketSlot);
}

LinkBufferSet::LinkBufferSet(std::size_t n, unsigned capacity_words, unsigned min_packet_words)
    : n_(n), pool_(static_cast<std::uint64_t>(n) * LinkBuffer::slots_for(capacity_words, min_packet_words) +
                   kCacheSlack) {
  if (n_ == 0) return;
  buffers_ = static_cast<LinkBuffer*>(::operator new(n_ * sizeof(LinkBuffer), std::align_val_t{alignof(LinkBuffer)}));
  build(capacity_words, min_packet_words);
}

namespace {
std::size_t kept_buffers(std::size_t n, std::size_t per_node, const std::vector<std::uint8_t>& kept) {
  std::size_t k = 0;
  for (std::size_t g = 0; g < kept.size() && g * per_node < n; ++g) k += kept[g] ? per_node : 0;
  return k;
}
}  // namespace

LinkBufferSet::LinkBufferSet(std::size_t n, unsigned capacity_words, unsigned min_packet_words, std::size_t per_node,
                             std::vector<std::uint8_t> kept)
    : n_(n),
      per_node_(per_node ? per_node : 1),
      kept_(std::move(kept)),
      pool_(static_cast<std::uint64_t>(kept_buffers(n, per_node_, kept_)) *
                LinkBuffer::slots_for(capacity_words, min_packet_words) +
            kCacheSlack) {
  if (kept_.size() * per_node_ < n_) kept_.resize((n_ + per_node_ - 1) / per_node_, 0);
  if (n_ == 0) return;
  // Page-aligned and zero until written: the groups not kept are never touched (sparse.hpp).
  buffers_ = static_cast<LinkBuffer*>(detail::lazy_zeroed(n_ * sizeof(LinkBuffer)));
  build(capacity_words, min_packet_words);
}

void LinkBufferSet::build(unsigned capacity_words, unsigned min_packet_words) {
  std::size_t built = 0;
  try {
    for (; built < n_; ++built)
      if (kept(built)) new (&buffers_[built]) LinkBuffer(pool_, capacity_words, min_packet_words);
  } catch (...) {
    release(built);
    buffers_ = nullptr;
    throw;
  }
}

void LinkBufferSet::release(std::size_t built) noexcept {
  for (std::size_t i = 0; i < built; ++i)
    if (kept(i)) buffers_[i].~LinkBuffer();
  if (kept_.empty())
    ::operator delete(buffers_, std::align_val_t{alignof(LinkBuffer)});
  else
    detail::lazy_free(buffers_, n_ * sizeof(LinkBuffer));
}

LinkBufferSet::~LinkBufferSet() {
  if (buffers_) release(n_);
}

}  // namespace rica
