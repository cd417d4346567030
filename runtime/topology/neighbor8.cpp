// Eight-neighbour mesh and torus (docs/topologies.md). out_link() and route() are inline in
#include "rica/registry.hpp"
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


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_mesh8(const SpecArgs& a) { return Neighbor8Topology(a.uint("n"), false); }
Topology make_torus8(const SpecArgs& a) {
  const bool distance = a.has("classes") && a.choice("classes", {"wrap", "distance"}) == 1;
  return Neighbor8Topology(a.uint("n"), true, distance ? Neighbor8Classes::distance : Neighbor8Classes::wrap);
}

}  // namespace

std::vector<TopologyEntry> Neighbor8Topology::registry_entries() {
  return {
      {"mesh8", "eight-neighbour mesh, n x n; diagonal-then-straight routing", "mesh8:32",
       {{"n", "2..8192", "", "side"}}, "n", make_mesh8, nullptr, Drawing::grid},
      {"torus8", "eight-neighbour torus, n x n; diagonal-then-straight routing", "torus8:32",
       {{"n", "3..8192", "", "side"},
        {"classes", "wrap|distance", "wrap",
         "wrap = wrap-arounds crossed so far (3 classes); distance = D - remaining distance (n/2 classes)"}},
       "n", make_torus8, nullptr, Drawing::grid},
  };
}

}  // namespace rica
