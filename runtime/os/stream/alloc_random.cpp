// Random (open) placement (rica/os_stream.hpp): a job gets any k free PEs, drawn uniformly from
// the allocator's seed. Its routes cross other jobs' PEs, so it only space-shares; the
// interference shows as foreign link packets.
#include <algorithm>

#include "stream_builtin.hpp"

namespace rica::detail {
namespace {

class Random final : public Allocator {
 public:
  Random(node_t pes, std::uint64_t seed) : rng_(seed) {
    free_.resize(pes);
    for (node_t v = 0; v < pes; ++v) free_[v] = v;
    total_ = pes;
  }
  std::optional<std::vector<node_t>> allocate(node_t k) override {
    if (k > free_.size()) return std::nullopt;
    std::vector<node_t> pes(k);
    for (node_t i = 0; i < k; ++i) {  // a partial Fisher-Yates draw from the free list
      const std::size_t r = rng_.below(free_.size());
      pes[i] = free_[r];
      free_[r] = free_.back();
      free_.pop_back();
    }
    return pes;
  }
  void release(const std::vector<node_t>& pes) override {
    free_.insert(free_.end(), pes.begin(), pes.end());
    std::sort(free_.begin(), free_.end());  // the draws depend on the free set only, not on history
  }
  node_t held() const override { return total_ - static_cast<node_t>(free_.size()); }
  node_t largest_free() const override { return static_cast<node_t>(free_.size()); }
  bool closed() const override { return false; }
  std::unique_ptr<Allocator> clone() const override { return std::make_unique<Random>(*this); }

 private:
  Rng rng_;
  std::vector<node_t> free_;
  node_t total_ = 0;
};

}  // namespace

std::unique_ptr<Allocator> make_random_allocator(const Topology& t, std::uint64_t seed) {
  return std::make_unique<Random>(t.pes(), seed);
}

}  // namespace rica::detail
