#pragma once
// Static measures of a topology (docs/topologies.md, the eight-neighbour paper's ten
// measures) plus routed figures, computed exactly by decomposition for meshes and Cartesian
// products (distances add over the factors), else from one source per orbit of a routing-
// preserving symmetry when the topology declares one, else from all sources, else from a
// seeded sample of sources (with an error bound).

#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "rica/defaults.hpp"
#include "rica/topology.hpp"

namespace rica {

struct MetricsOptions {
  std::uint64_t exact_work_limit = defaults::metrics::exact_work_limit;
  unsigned sample_sources = defaults::metrics::sample_sources;
  std::uint64_t seed = defaults::metrics::seed;
  std::uint64_t flow_work_limit = defaults::metrics::flow_work_limit;
  bool force_all_pairs = false;  ///< ignore symmetry and products (tests compare both ways)
  bool decompose = true;  ///< meshes and Cartesian products: combine the factors' exact figures
};

struct TopologyMetrics {
  std::string spec;
  node_t pes = 0, nodes = 0;
  bool direct = true;
  std::string distance_unit;  ///< "links" (direct) or "switches" (indirect: switches traversed)

  std::uint64_t links = 0;          ///< L: physical links; a bidirectional pair of arcs counts once
  double degree = 0;                ///< G: mean links per router node (PEs, or switches if indirect)
  unsigned degree_in = 0, degree_out = 0;  ///< the largest in- and out-degree of a router node
  unsigned degree_max = 0;          ///< nominal degree: the largest link count of a router node
  unsigned diameter = 0;            ///< D: largest shortest distance between distinct PEs
  double mean_distance = 0;         ///< d: over ordered pairs of distinct PEs
  double mean_distance_incl_self = 0;  ///< over all N^2 ordered pairs, self = 0 (MDCE paper)
  unsigned routed_diameter = 0;     ///< by the topology's own routing
  double routed_mean_distance = 0;
  double routed_mean_distance_incl_self = 0;
  double normalized_distance = 0;   ///< s = d * G
  double traffic_density = 0;       ///< t = d * N / L
  double avg_relay = 0;             ///< r: routes between other PEs through a router node, mean
  double max_relay = 0;             ///< R: the largest relay count
  unsigned fault_tolerance = 0;     ///< F: edge connectivity among PEs
  std::string fault_tolerance_method;
  double cost = 0;                  ///< C = D * nominal degree (degree_max; de Bruijn paper Table 1)
  double cost_mean_degree = 0;      ///< D * G (mean degree; eight-neighbour paper eq. (34))
  unsigned buffer_classes = 0;      ///< declared by the routing
  unsigned classes_used = 0;        ///< 1 + the largest class the examined routes used

  std::string method;               ///< "exact-symmetry", "exact-all-pairs", "exact-product" or "sampled"
  std::string method_detail;        ///< exact-product: how the factors were computed
  unsigned sources = 0;             ///< sources examined
  std::uint64_t seed = 0;           ///< sampled: the seed of the sample
  double mean_distance_error = 0;   ///< sampled: 3-sigma bound of mean_distance (0 if exact)
  double routed_mean_distance_error = 0;
  double seconds = 0;
};

/// Computes every measure. Throws std::logic_error when the routing misbehaves (a route that
/// uses an absent link, loops, or uses a class >= buffer_classes()), usage_error when the PEs
/// are not strongly connected.
[[nodiscard]] TopologyMetrics compute_metrics(const Topology& t, const MetricsOptions& opt = {});

[[nodiscard]] nlohmann::json to_json(const TopologyMetrics& m);

/// Edge connectivity among PEs, and how it was obtained.
struct FaultTolerance {
  unsigned value = 0;
  std::string method;
};
[[nodiscard]] FaultTolerance edge_connectivity(const Topology& t, const MetricsOptions& opt = {});

}  // namespace rica
