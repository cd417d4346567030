#pragma once
// A family's own partition rule (the `partition_layout` trait, rica/topology/family.hpp): which
// PE goes to which partition, and the building blocks the built-in rules share. rica::partition()
// verifies whatever layout a rule returns, so a rule decides the cut only, never the verdict.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rica/partition.hpp"

namespace rica {

/// XOR symmetry usable for exact verification from a few destinations: node = address * columns
/// + column; XOR of the address with any c inside a partition's free mask maps the topology, its
/// routes (ports included) and the partition onto themselves.
struct XorSymmetry {
  node_t columns = 1;
  std::vector<node_t> free_mask;  // per partition
};

/// The PEs' partitions, as a rule proposes them.
struct PartitionLayout {
  std::string rule;  ///< the plan's `rule`, e.g. "dce-rows"
  std::uint32_t parts = 0;
  std::vector<std::uint32_t> part_of;  ///< per PE; PartitionPlan::none allowed
  std::vector<Shape> shapes;           ///< per partition (empty -> {size})
  std::vector<std::string> descriptions;
  std::optional<XorSymmetry> sym;
};

/// Shared pieces of the rules. Every refusal is a usage_error "partition <spec>: <what>".
namespace partition_rules {

[[noreturn]] void refuse(const Topology& t, const std::string& what);
bool is_pow2(std::uint64_t x);
unsigned log2_exact(std::uint64_t x);
/// "1, 2, 4, ..., 2^max" for messages.
std::string pow2_list(unsigned max_bits);
/// Boundaries {0, ..., k} of m near-equal pieces of [0, k) (aligned halves for powers of two).
std::vector<std::uint32_t> even_bounds(std::uint32_t k, std::uint32_t m);
/// Partitions = the boxes of a grid over `shape` (size == PEs); bounds[i] = cut points of dim i
/// including 0 and shape[i]. Box index is mixed radix, dimension 0 fastest.
PartitionLayout box_layout(const Shape& shape, const std::vector<std::vector<std::uint32_t>>& bounds, std::string rule);
/// Partitions = the PEs whose id bits in `mask` take each value (n-bit ids).
PartitionLayout bits_layout(unsigned n, node_t mask, std::string rule, bool cube_shape);
/// K from the request and the bits of `dims` (bit-cut rules): checks they agree.
std::uint64_t bits_parts(const Topology& t, const PartitionRequest& r, unsigned given_bits, bool all_have_bits);
void check_dims_unique(const Topology& t, const std::vector<DimCut>& dims);
/// Refuses --cut for a rule that cuts by `rule` instead.
void refuse_cuts(const Topology& t, const PartitionRequest& r, const char* rule);
/// Per-dimension bits for a bit-cut rule (dims without bits share the rest round robin).
std::vector<unsigned> assign_bits(const Topology& t, const std::vector<DimCut>& dims, unsigned total_bits,
                                  const std::vector<unsigned>& capacity);
/// Blocks of a grid over `shape` from --cut, or --dims / K (mesh, torus, the search's grid).
PartitionLayout grid_layout(const Topology& t, const Shape& shape, const PartitionRequest& r, std::string rule);

}  // namespace partition_rules
}  // namespace rica
