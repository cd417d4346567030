// Bisection width: the fewest links whose removal separates the PEs into two halves.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rica/topology.hpp"

namespace rica {

/// B: the fewest links (counted as `TopologyMetrics::links` counts them: a bidirectional pair
/// once, a one-way link once) that join two sets of PEs of floor(N/2) and ceil(N/2) PEs; router
/// nodes without a PE (indirect networks) may go to either side.
struct Bisection {
  std::uint64_t width = 0;  ///< 0 when not computed (method says why)
  bool exact = false;   ///< true: a closed form that is the minimum; false: an upper bound (a cut found)
  std::string method;   ///< how it was obtained, printed beside the value
};

/// Exact for the families with a known closed form (the hypercube; meshes and tori whose sides
/// are all equal and even: N/k for the mesh, 2N/k for the torus, the cut across one dimension);
/// otherwise the smallest balanced cut that METIS (recursive bisection; PEs weighted 1, switches
/// 0), balanced exactly by moving the cheapest PEs, and the cut across the longest even dimension
/// of a mesh or torus find: an upper bound. METIS runs up to 2^19 nodes; beyond, only the
/// closed forms and the cut across a dimension are given (else width 0, `method` says why).
[[nodiscard]] Bisection bisection_width(const Topology& t, std::uint64_t seed = 1);

/// The links a given side assignment cuts (side[v] in {0, 1} for every node): tests and tools.
[[nodiscard]] std::uint64_t cut_links(const Topology& t, const std::vector<std::uint8_t>& side);

}  // namespace rica
