#include "rica/topology/mdce.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace rica {

MdceTopology::MdceTopology(unsigned b, unsigned c, unsigned p, unsigned n, std::string name, unsigned ring,
                           unsigned xbits, MdceFreed freed)
    : b_(b), c_(c), par_(p), n_(n), dims_(b + c), ring_(ring ? ring : n), xbits_(xbits ? xbits : n), freed_(freed),
      nodes_(0), name_(std::move(name)) {
  detail::check_range(name_, "B", b, 0, 8);
  detail::check_range(name_, "C", c, 0, 8);
  detail::check_range(name_, "P", p, 1, 8);
  if (dims_ == 0) throw usage_error(name_ + ": parameters 'B' + 'C' must be at least 1 (got B = 0, C = 0)");
  detail::check_range(name_, "n", n, 1, 24);
  detail::check_range(name_, "S", ring_, n, max_ring);
  detail::check_range(name_, "X", xbits_, 1, n);
  const std::uint64_t bits = xbits_ + std::uint64_t{dims_ - 1} * n;
  if (bits > 26)
    throw usage_error(fmt::format("{}: X + (B + C - 1) * n = {} address bits is more than 26 (too many nodes)", name_,
                                  bits));
  detail::check_node_count(name_, std::uint64_t{ring_} << bits);
  if (freed == MdceFreed::parallel && xbits_ == n)
    throw usage_error(fmt::format("{}: parameter 'freed' = parallel needs X < n (no cluster link is freed)", name_));
  if (freed == MdceFreed::parallel && delta(0) == 0)
    throw usage_error(fmt::format(
        "{}: parameter 'freed' = parallel needs a c-Banyan-type cluster dimension (C = 0): a CCC-type cluster link "
        "stays in its column, so its freed in-port is not where a parallel link would arrive",
        name_));
  nodes_ = static_cast<node_t>(std::uint64_t{ring_} << bits);
  div_ = detail::FastDiv(ring_);
  for (unsigned x = 0; x < ring_; ++x) colbit_[x] = static_cast<std::uint8_t>(x % n);

  // Buffer classes = 1 + the most wraps any route makes (interpretation note 4: computed). Each
  // visit to a column handles every CCC-type bit of its position (x0 mod n) and one c-Banyan-
  // type bit, and the column advances by one per visit either way, so the end of the address
  // phase is latest when every address bit differs; the walk to the destination column adds at
  // most S-1. Classes follow the unwrapped column: class = floor(pos / S).
  unsigned worst = 0;
  for (unsigned x = 0; x < ring_; ++x) {
    std::vector<unsigned> cb(n, 0);  // c-Banyan-type bits still to fix, per bit position
    std::vector<bool> ccc(n, false);
    for (unsigned j = 0; j < n; ++j) {
      cb[j] = b_ - (j >= xbits_ && delta(0) ? 1u : 0u);
      ccc[j] = c_ > (j >= xbits_ && !delta(0) ? 1u : 0u);
    }
    std::uint64_t pos = x;
    auto pending = [&] {
      return std::any_of(cb.begin(), cb.end(), [](unsigned k) { return k > 0; }) ||
             std::any_of(ccc.begin(), ccc.end(), [](bool k) { return k; });
    };
    while (pending()) {
      const unsigned j = colbit_[pos % ring_];
      ccc[j] = false;  // CCC-type crosses stay in the column
      if (cb[j] > 0) {
        --cb[j];  // a c-Banyan-type cross moves on
        ++pos;
      } else if (pending()) {
        ++pos;  // parallel
      }
    }
    worst = std::max(worst, static_cast<unsigned>((pos + ring_ - 1) / ring_));
  }
  classes_ = static_cast<class_t>(worst + 1);
}

std::string MdceTopology::label(node_t v) const {
  std::string s = fmt::format("({}", v % ring_);
  node_t hi = v / ring_;
  for (unsigned i = 0; i < dims_; ++i) {
    const unsigned w = i == 0 ? xbits_ : n_;
    s += fmt::format(",{}", hi & ((node_t{1} << w) - 1));
    hi >>= w;
  }
  return s + ")";
}

std::string MdceTopology::spec() const {
  std::string s = name_ == "mdce" ? (par_ == 1 ? fmt::format("mdce:B={},C={},n={}", b_, c_, n_)
                                               : fmt::format("mdce:B={},C={},P={},n={}", b_, c_, par_, n_))
                                  : fmt::format("{}:n={}", name_, n_);
  if (ring_ != n_) s += fmt::format(",S={}", ring_);
  if (xbits_ != n_) s += fmt::format(",X={}", xbits_);
  if (freed_ == MdceFreed::parallel) s += ",freed=parallel";
  return s;
}

Shape MdceTopology::shape() const {
  Shape s{ring_};
  for (unsigned i = 0; i < dims_; ++i) s.push_back(node_t{1} << (i == 0 ? xbits_ : n_));
  return s;
}

}  // namespace rica
