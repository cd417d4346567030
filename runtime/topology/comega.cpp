#include "rica/topology/comega.hpp"
#include "rica/registry.hpp"

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


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_comega(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return CircularOmegaTopology(n, a.has("S") ? a.uint("S") : n);
}

}  // namespace

std::vector<TopologyEntry> CircularOmegaTopology::registry_entries() {
  return {
      {"comega", "circular Omega (EM-4): Omega stages wrapped into rings; tag routing, 3 spiral classes",
       "comega:n=7,S=8",
       {{"n", "2..24", "", "address bits: 2^n switch rows"},
        {"S", "n..64", "n", "stages (columns); the shuffle wiring repeats, so S > n needs no choice"}},
       "n", make_comega, nullptr, Drawing::ring},
  };
}

}  // namespace rica
