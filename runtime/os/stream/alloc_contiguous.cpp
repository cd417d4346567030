// Contiguous allocators (rica/os_stream.hpp): a job gets a run of consecutive PE ids — on a mesh
// or torus, whole rows in order, as the machine numbers its PEs first dimension fastest.
// first-fit takes the lowest run that fits; best-fit the shortest free run that fits (ties: the
// lowest). Free PEs are a bitmap; runs are found by one scan (allocation is not on a hot path).
#include <algorithm>

#include "rica/assert.hpp"
#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Contiguous final : public Allocator {
 public:
  Contiguous(node_t pes, bool best) : used_(pes, 0), best_(best) {}

  std::optional<std::vector<node_t>> allocate(node_t k) override {
    node_t pick = no_node, pick_len = 0;
    for_each_run([&](node_t at, node_t len) {
      if (len < k) return;
      if (pick == no_node || (best_ && len < pick_len)) pick = at, pick_len = len;
    });
    if (pick == no_node) return std::nullopt;
    std::vector<node_t> pes(k);
    for (node_t i = 0; i < k; ++i) pes[i] = pick + i, used_[pick + i] = 1;
    held_ += k;
    return pes;
  }
  void release(const std::vector<node_t>& pes) override {
    for (node_t v : pes) {
      RICA_ASSERT(used_[v], "release of a PE that is free");
      used_[v] = 0;
    }
    held_ -= static_cast<node_t>(pes.size());
  }
  node_t held() const override { return held_; }
  node_t largest_free() const override {
    node_t best = 0;
    const_cast<Contiguous*>(this)->for_each_run([&](node_t, node_t len) { best = std::max(best, len); });
    return best;
  }
  bool closed() const override { return true; }
  std::unique_ptr<Allocator> clone() const override { return std::make_unique<Contiguous>(*this); }

 private:
  template <class F>
  void for_each_run(F&& f) const {
    const node_t n = static_cast<node_t>(used_.size());
    for (node_t v = 0; v < n;) {
      if (used_[v]) {
        ++v;
        continue;
      }
      node_t e = v;
      while (e < n && !used_[e]) ++e;
      f(v, e - v);
      v = e;
    }
  }
  std::vector<std::uint8_t> used_;  ///< [PE]
  node_t held_ = 0;
  bool best_;
};

}  // namespace

std::unique_ptr<Allocator> make_first_fit_allocator(const Topology& t, std::uint64_t) {
  return std::make_unique<Contiguous>(t.pes(), false);
}
std::unique_ptr<Allocator> make_best_fit_allocator(const Topology& t, std::uint64_t) {
  return std::make_unique<Contiguous>(t.pes(), true);
}

}  // namespace rica::detail
