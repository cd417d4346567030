#pragma once
// The routings by name: the one list (all_routings) that routing_by_name (rica/engine.hpp), the
// accepted names and help of every --routing option, and Python's docstrings are generated from,
// so a new routing is listed everywhere once it is added here.

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "rica/engine.hpp"

namespace rica {

/// Every routing, in the enum's order (Routing, rica/engine.hpp).
inline constexpr std::array<Routing, 6> all_routings{Routing::deterministic, Routing::adaptive, Routing::valiant,
                                                     Routing::ugal_l,        Routing::ugal_g,   Routing::par};
static_assert(static_cast<std::size_t>(all_routings.back()) + 1 == all_routings.size(),
              "a new Routing goes at the end of the enum and of all_routings");

/// Every routing's name joined by `sep` ("deterministic|adaptive|valiant|ugal-l|ugal-g|par").
std::string routing_choices(std::string_view sep = "|");
/// --routing's help: every routing, the non-minimal ones with the topologies that offer them
/// (adaptive_routing_docs, rica/routing.hpp).
std::string routing_help();

}  // namespace rica
