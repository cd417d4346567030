#pragma once
// Space partitioning (docs/topologies.md): cut a machine into K partitions by its topology's
// rule and verify, by following the topology's own route() hop by hop for every ordered pair of
// PEs inside each partition, whether each partition is *closed* (its internal traffic never uses
// a node or link outside it, so partitions cannot interfere) or *open*.
//
// Rules (docs/partitions.md): DCE / c-Banyan / CCC by high row bits (2^k whole rings); MDCE
// ((B,C,P), cb2, cccb) by high bits of any dimensions >= 1; mesh / torus / k-ary n-cube by
// sub-rectangles; hypercube by subcubes; fat tree by subtrees; anything else by a search over
// grid blocks, PE-id ranges and PE-id bit windows that keeps the first candidate verified closed
// (the least open one when none is). Closedness is always verified, never assumed.
//
// The result (PartitionPlan) is a plain value: PE sets in partition-local order, the
// global <-> local maps, and for each partition the routers and links its internal routes use
// (for freeze / drain and for the isolation check of the time-sharing runtime). Functions here
// are thread-safe (they share nothing); they run the verification on the oneTBB arena of the
// caller. Results do not depend on the number of threads.

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rica/topology.hpp"

namespace rica {

// Partition defaults (kept beside their only user; rica/defaults.hpp style).
namespace defaults::partition {
/// Routes (source-destination pairs, summed over partitions) up to which `automatic` verifies
/// every pair when no symmetry applies; above it, it samples destinations.
inline constexpr std::uint64_t all_pairs_limit = 1ULL << 27;
/// Destinations per partition a sampled verification routes to (from every source).
inline constexpr unsigned sample_destinations = 64;
/// Seed of the destination sample.
inline constexpr std::uint64_t seed = 1;
/// Offending hops kept as examples per open partition.
inline constexpr unsigned max_examples = 8;
/// Largest nodes x ports a plan may have (the per-link owner table is 4 bytes per slot).
inline constexpr std::uint64_t max_link_slots = 1ULL << 26;
}  // namespace defaults::partition

/// Cut shape() dimension `dim` into 2^bits pieces by its high bits (grid rules: 2^bits near-equal
/// blocks). bits == 0: the dimension is cut, how finely follows from the partition count.
struct DimCut {
  unsigned dim = 0;
  unsigned bits = 0;
  friend bool operator==(const DimCut&, const DimCut&) = default;
};

/// Explicit cut points along one shape() dimension (grid rules: mesh, torus, and the grid
/// candidate of the generic search): pieces [0, at[0]), [at[0], at[1]), ..., [at.back(), size).
struct AxisCut {
  unsigned dim = 0;
  std::vector<std::uint32_t> at;
};

/// How many ordered pairs a verification routes.
enum class PairCheck : std::uint8_t {
  automatic,  ///< exact-symmetry where the rule has one, else all pairs up to all_pairs_limit, else sample
  all,        ///< every ordered pair of every partition (may be slow for huge partitions)
  sample,     ///< every source to a seeded sample of destinations per partition
};

struct VerifyOptions {
  PairCheck pairs = PairCheck::automatic;
  std::uint64_t all_pairs_limit = defaults::partition::all_pairs_limit;
  unsigned sample_destinations = defaults::partition::sample_destinations;
  std::uint64_t seed = defaults::partition::seed;
  unsigned max_examples = defaults::partition::max_examples;
};

struct PartitionRequest {
  /// K, the number of partitions; 0 = implied by `dims` (all with bits) or `cuts`.
  std::uint32_t parts = 0;
  /// Dimensions to cut (`--dims 2:1,1:1`); empty = the rule's default choice.
  std::vector<DimCut> dims;
  /// Explicit cut points (grid rules only; `--cut 0=5`); excludes `dims`.
  std::vector<AxisCut> cuts;
  VerifyOptions verify;
};

/// One hop by which an internal route of an open partition leaves it: the route src -> dst
/// steps from node `from` (inside) through out-port `port` to node `to`, which is a PE of
/// another partition (or of none) or a switch that another partition's routes also use.
struct OutsideHop {
  node_t src = no_node, dst = no_node;
  node_t from = no_node;
  port_t port = 0;
  node_t to = no_node;
  friend bool operator==(const OutsideHop&, const OutsideHop&) = default;
};

/// Link id as the engines number links: node * ports() + out-port.
using link_id = std::uint64_t;

struct Partition {
  /// Global PE ids in partition-local order (ascending): local PE i is global PE pes[i].
  std::vector<node_t> pes;
  /// Local coordinate ranges, first fastest, consistent with the local order (local id =
  /// c0 + r0 * (c1 + ...)); {pes.size()} when the partition has no natural coordinates.
  Shape shape;
  /// Compact description of the PE set, e.g. "(0..7,0..31)" (a coordinate box of the topology's
  /// shape), "1x0xxxxx" (fixed id bits, most significant first) or "ids 0..255".
  std::string description;

  /// No internal route touches a node outside the partition's own territory (its PEs, and the
  /// switches no other partition's routes use).
  bool closed = false;
  /// Closed, and no other partition's route touches any of its nodes.
  bool isolated = false;

  /// Every node the internal routes use: the PEs, plus the switches (indirect networks) and the
  /// outside nodes (open partitions) they pass. Sorted. Routers to freeze / drain.
  std::vector<node_t> nodes;
  /// Every link the internal routes use (link_id), sorted. For a sampled verification these are
  /// the links of the sampled routes only.
  std::vector<link_id> links;

  std::uint64_t pairs = 0;          ///< ordered pairs of distinct PEs: n (n - 1)
  std::uint64_t pairs_routed = 0;   ///< pairs actually routed (fewer under symmetry or sampling)
  std::uint64_t pairs_covered = 0;  ///< pairs the verification answers for (pairs, unless sampled)
  std::uint64_t leaving_pairs = 0;  ///< covered pairs whose route touches an outside node
  std::vector<node_t> outside_nodes;  ///< nodes outside the territory the routes touch, sorted
  std::vector<OutsideHop> examples;   ///< up to max_examples offending hops (distinct from/port)
};

struct PartitionPlan {
  static constexpr std::uint32_t none = std::numeric_limits<std::uint32_t>::max();        ///< no partition
  static constexpr std::uint32_t shared = std::numeric_limits<std::uint32_t>::max() - 1;  ///< several

  std::string spec;
  node_t pes = 0, nodes = 0;
  port_t ports = 0;
  bool direct = true;
  /// How the PEs were cut: "dce-rows", "mdce-dims", "hypercube-subcubes", "mesh-blocks",
  /// "torus-blocks", "fattree-subtrees", "explicit" (verify_partitions), or "search:<candidate>".
  std::string rule;
  /// How closure was verified: "exact-symmetry", "exact-all-pairs" or "sampled".
  std::string method;
  std::uint64_t seed = 0;  ///< sampled: seed of the destination sample
  /// The generic search: every candidate examined, "<name>: closed" or "<name>: open (...)".
  std::vector<std::string> search;

  std::vector<Partition> parts;
  /// Per PE: its partition (none if in no partition) and its local index there.
  std::vector<std::uint32_t> part_of;
  std::vector<node_t> local_of;
  /// Per node: the partition whose internal routes (or PE set) use it; none or shared.
  std::vector<std::uint32_t> node_owner;
  /// Per link_id: the partition whose internal routes use it; none or shared.
  std::vector<std::uint32_t> link_owner;
  double seconds = 0;

  [[nodiscard]] bool all_closed() const noexcept;
  [[nodiscard]] std::size_t closed_count() const noexcept;
  /// Global PE of local PE `local` of partition `p` (preconditions: p, local in range).
  [[nodiscard]] node_t global_pe(std::uint32_t p, node_t local) const { return parts[p].pes[local]; }
  [[nodiscard]] link_id link(node_t v, port_t port) const noexcept { return link_id{v} * ports + port; }
};

/// Cuts `topology` into request.parts partitions by its rule and verifies each. Throws
/// usage_error (one line naming what is accepted) for an invalid K, dimension or cut, and
/// std::logic_error when the routing itself misbehaves (absent port, loop, class out of range).
[[nodiscard]] PartitionPlan partition(const Topology& topology, const PartitionRequest& request);

/// Verifies given PE sets (pairwise disjoint, each non-empty; they need not cover every PE), e.g.
/// partitions merged or re-split by the runtime. Partitions keep the given order; each one's PEs
/// are sorted into local order. Throws usage_error for a non-PE, a repeated PE or an empty set.
[[nodiscard]] PartitionPlan verify_partitions(const Topology& topology, const std::vector<std::vector<node_t>>& sets,
                                              const VerifyOptions& options = {});

/// "2:1,1" -> {{2,1},{1,0}} (`--dims`). Throws usage_error on malformed text.
[[nodiscard]] std::vector<DimCut> parse_dim_cuts(std::string_view text);
/// "0=3,5" -> {0, {3,5}} (`--cut`). Throws usage_error on malformed text.
[[nodiscard]] AxisCut parse_axis_cut(std::string_view text);

/// The plan as JSON: per partition its PEs (global ids), closed flag and verification figures;
/// with_routers adds each partition's nodes and links.
[[nodiscard]] nlohmann::json to_json(const PartitionPlan& plan, const Topology& topology, bool with_routers = false);

}  // namespace rica
