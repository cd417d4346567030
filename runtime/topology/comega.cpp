#include "rica/topology/comega.hpp"

#include <fmt/format.h>

namespace rica {

CircularOmegaTopology::CircularOmegaTopology(unsigned n, unsigned ring) : bits_(n), ring_(ring) {
  detail::check_range("comega", "n", n, 2, 24);
  detail::check_range("comega", "S", ring, n, 64);
  detail::check_node_count("comega", std::uint64_t{ring} << n);
  div_ = detail::FastDiv(ring);
  symmetric_ = ring % n == 0;
}

std::string CircularOmegaTopology::label(node_t v) const { return fmt::format("({},{})", v % ring_, v / ring_); }

std::string CircularOmegaTopology::spec() const {
  return ring_ == bits_ ? fmt::format("comega:n={}", bits_) : fmt::format("comega:n={},S={}", bits_, ring_);
}

}  // namespace rica
