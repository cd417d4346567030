// Eight-neighbour mesh and torus (spec/topologies.md §5). out_link() and route() are inline in
// the header (per-hop path).
#include "rica/topology/neighbor8.hpp"

#include <fmt/format.h>

namespace rica {

namespace {
const char* kind(bool wrap) { return wrap ? "torus8" : "mesh8"; }
}  // namespace

Neighbor8Topology::Neighbor8Topology(unsigned n, bool wrap, Neighbor8Classes classes)
    : n_(n), sn_(0), wrap_(wrap), classes_(classes) {
  detail::check_range(kind(wrap), "n", n, wrap ? 3 : 2, 8192);
  detail::check_node_count(kind(wrap), std::uint64_t{n} * n);
  sn_ = static_cast<std::int32_t>(n);
  div_ = detail::FastDiv(n);
}

std::string Neighbor8Topology::label(node_t v) const { return fmt::format("({},{})", v % n_, v / n_); }

std::string Neighbor8Topology::spec() const {
  if (wrap_ && classes_ == Neighbor8Classes::distance) return fmt::format("{}:n={},classes=distance", kind(wrap_), n_);
  return fmt::format("{}:n={}", kind(wrap_), n_);
}

}  // namespace rica
