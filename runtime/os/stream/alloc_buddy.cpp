// Buddy allocation by recursive halving (rica/os_stream.hpp): level L cuts the machine into 2^L
// partitions by its topology's rule (rica partition), kept only while every partition is verified
// closed and nests in one partition of level L - 1. A job takes the smallest available block that
// holds it (its first k PEs in the block's local order; the rest is internal fragmentation),
// preferring blocks whose parent is already split, so free space stays whole: a block is free
// again, and its parent whole again, as soon as nothing under it is held (coalescing).
#include <fmt/format.h>

#include <algorithm>

#include "rica/partition.hpp"
#include "rica/assert.hpp"
#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Buddy final : public Allocator {
 public:
  explicit Buddy(const Topology& t) {
    Level top;
    top.pes.emplace_back(t.pes());
    for (node_t v = 0; v < t.pes(); ++v) top.pes[0][v] = v;
    top.parent = {0};
    levels_.push_back(std::move(top));
    std::vector<std::uint32_t> block_of(t.pes(), 0);  // PE -> block of the last level
    for (unsigned L = 1; L < 24; ++L) {
      const std::size_t parts = std::size_t{1} << L;
      if (parts > t.pes()) break;
      PartitionPlan plan;
      try {
        PartitionRequest req;
        req.parts = static_cast<std::uint32_t>(parts);
        plan = partition(t, req);
      } catch (const usage_error&) {
        break;  // the rule cuts no further
      }
      if (plan.parts.size() != parts || !plan.all_closed()) break;
      Level lv;
      bool nested = true;
      for (const Partition& p : plan.parts) {
        const std::uint32_t up = block_of[p.pes.front()];
        for (node_t v : p.pes) nested = nested && block_of[v] == up;
        lv.pes.push_back(p.pes);
        lv.parent.push_back(up);
      }
      if (!nested) break;
      for (std::uint32_t b = 0; b < lv.pes.size(); ++b)
        for (node_t v : lv.pes[b]) block_of[v] = b;
      levels_.push_back(std::move(lv));
    }
    if (levels_.size() < 2)
      throw usage_error(fmt::format("--alloc buddy: {} has no closed halving (rica partition {} --parts 2 finds "
                                    "none); use first-fit, best-fit or random",
                                    t.spec(), t.spec()));
    for (Level& lv : levels_) lv.taken.assign(lv.pes.size(), 0), lv.below.assign(lv.pes.size(), 0);
  }

  std::optional<std::vector<node_t>> allocate(node_t k) override {
    // The deepest level with a block that holds k; among its available blocks, one whose parent
    // is split (below > 0) first, then the lowest.
    for (std::size_t L = levels_.size(); L-- > 0;) {
      Level& lv = levels_[L];
      std::uint32_t pick = ~0u;
      bool fits_here = false;
      for (std::uint32_t b = 0; b < lv.pes.size(); ++b) {
        if (lv.pes[b].size() < k) continue;
        fits_here = true;
        if (!available(L, b)) continue;
        if (pick == ~0u || (L > 0 && levels_[L - 1].below[lv.parent[b]] > 0 &&
                            levels_[L - 1].below[lv.parent[pick]] == 0))
          pick = b;
      }
      if (!fits_here) continue;  // blocks too small here: a coarser level
      if (pick == ~0u) return std::nullopt;  // the smallest fitting blocks are all busy: no room
      take(L, pick, +1);
      held_ += static_cast<node_t>(lv.pes[pick].size());
      return std::vector<node_t>(lv.pes[pick].begin(), lv.pes[pick].begin() + k);
    }
    return std::nullopt;
  }

  void release(const std::vector<node_t>& pes) override {
    for (std::size_t L = levels_.size(); L-- > 0;) {
      Level& lv = levels_[L];
      for (std::uint32_t b = 0; b < lv.pes.size(); ++b)
        if (lv.taken[b] && lv.pes[b].front() == pes.front()) {
          take(L, b, -1);
          held_ -= static_cast<node_t>(lv.pes[b].size());
          return;
        }
    }
    RICA_ASSERT(false, "buddy: release of a placement it did not make");
  }
  node_t held() const override { return held_; }
  node_t largest_free() const override {
    for (std::size_t L = 0; L < levels_.size(); ++L)
      for (std::uint32_t b = 0; b < levels_[L].pes.size(); ++b)
        if (available(L, b)) return static_cast<node_t>(levels_[L].pes[b].size());
    return 0;
  }
  bool closed() const override { return true; }
  std::unique_ptr<Allocator> clone() const override { return std::make_unique<Buddy>(*this); }

 private:
  struct Level {
    std::vector<std::vector<node_t>> pes;  ///< [block]: its PEs in local order
    std::vector<std::uint32_t> parent;     ///< [block]: the block of the level above holding it
    std::vector<std::uint8_t> taken;       ///< [block]: a job holds exactly this block
    std::vector<std::uint32_t> below;      ///< [block]: placements held in it or under it
  };
  /// No placement under block b and none above it.
  bool available(std::size_t L, std::uint32_t b) const {
    if (levels_[L].below[b]) return false;
    for (std::size_t l = L; l > 0; --l) {
      b = levels_[l].parent[b];
      if (levels_[l - 1].taken[b]) return false;
    }
    return true;
  }
  void take(std::size_t L, std::uint32_t b, int d) {
    levels_[L].taken[b] = d > 0;
    for (std::size_t l = L;; --l) {
      levels_[l].below[b] += d;
      if (l == 0) break;
      b = levels_[l].parent[b];
    }
  }
  std::vector<Level> levels_;  ///< [0]: the whole machine
  node_t held_ = 0;
};

}  // namespace

std::unique_ptr<Allocator> make_buddy_allocator(const Topology& t, std::uint64_t) { return std::make_unique<Buddy>(t); }

}  // namespace rica::detail
