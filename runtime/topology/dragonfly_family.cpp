// The dragonfly's registry entry (a file of its own beside dragonfly.cpp and
// routing_dragonfly.cpp).
#include "rica/topology/dragonfly.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "family_util.hpp"
#include "rica/engine.hpp"
#include "rica/routing/dragonfly.hpp"

namespace rica {

// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

using detail::certified;
using detail::explicit_classes;

Topology make_dragonfly(const SpecArgs& a) {
  const unsigned h = a.uint("h");
  const unsigned p = a.has("p") ? a.uint("p") : h, ra = a.has("a") ? a.uint("a") : 2 * h;
  const auto arr = a.choice("arrangement", {"absolute", "relative"}) == 1 ? DragonflyArrangement::relative
                                                                           : DragonflyArrangement::absolute;
  return certified(DragonflyTopology(ra, p, h, arr, explicit_classes(a, "dragonfly")), a, "dragonfly");
}

}  // namespace

std::vector<TopologyEntry> DragonflyTopology::registry_entries() {
  return {
      {"dragonfly", "dragonfly (Kim et al. 2008): a*h+1 groups of a routers, p terminals (PEs) and h global links "
                    "per router; minimal local-global-local routing, 2 classes",
       "dragonfly:h=4",
       {{"h", "1..1024", "", "global links per router"},
        {"p", "1..1024", "h", "terminals (PEs) per router"},
        {"a", "1..1024", "2h", "routers per group (g = a*h + 1 groups, one global link between every two)"},
        {"arrangement", "absolute|relative", "absolute",
         "global links: absolute = consecutive (group G's link l to group l, or l+1 from G on); relative = "
         "palmtree (to group G+l+1 mod g)"},
        {"classes", "1..2", "2 (1 if a = 1)",
         "buffer classes; given, the channel dependency check runs (pes x nodes <= 2^24) and refuses too few"}},
       "h", make_dragonfly},
  };
}

// ---- Routing check (rica/topology/family.hpp) ---------------------------------------------------

void DragonflyTopology::check_routing(Routing r, const std::string& option) const {
  // The non-minimal routings with a short `classes=K`: refused with the cycle.
  const unsigned need = r == Routing::par ? DragonflyPar::derived : DragonflyValiant::derived;
  if ((r == Routing::valiant || r == Routing::ugal_l || r == Routing::ugal_g || r == Routing::par) &&
      given_classes() != 0 && given_classes() < need) {
    const std::string what = fmt::format("{} {}: dragonfly classes={}", option, to_string(r), given_classes());
    certify_dragonfly(*this, r, what);
    throw usage_error(fmt::format("{}: below the {} classes the routing needs", what, need));
  }
}
}  // namespace rica
