#include "rica/topology/comega.hpp"

#include <fmt/format.h>

#include <numeric>

namespace rica {

CircularOmegaTopology::CircularOmegaTopology(unsigned n, unsigned ring) : bits_(n), ring_(ring) {
  detail::check_range("comega", "n", n, 2, 24);
  detail::check_range("comega", "S", ring, n, 64);
  detail::check_node_count("comega", std::uint64_t{ring} << n);
  div_ = detail::FastDiv(ring);
  period_ = std::gcd(ring, n);
  spread_ = 0;
  for (unsigned i = 0; i < n; i += period_) spread_ |= node_t{1} << i;
}

std::string CircularOmegaTopology::label(node_t v) const { return fmt::format("({},{})", v % ring_, v / ring_); }

std::string CircularOmegaTopology::spec() const {
  return ring_ == bits_ ? fmt::format("comega:n={}", bits_) : fmt::format("comega:n={},S={}", bits_, ring_);
}

}  // namespace rica
