// The binary fat tree's registry entry and partition rule (its wiring and routing: indirect.hpp,
// indirect.cpp).
#include "rica/topology/indirect.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"

namespace rica {

// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_fattree(const SpecArgs& a) { return FatTreeTopology(a.uint("n")); }

}  // namespace

std::vector<TopologyEntry> FatTreeTopology::registry_entries() {
  return {
      {"fattree", "binary fat tree (2-ary n-tree, router-only switches)", "fattree:10",
       {{"n", "1..22", "", "levels: 2^n PEs"}}, "n", make_fattree, nullptr, Drawing::levels},
  };
}

// ---- Partition rule (rica/partition_layout.hpp) ------------------------------------------------

std::optional<PartitionLayout> FatTreeTopology::partition_layout(const Topology& t, const PartitionRequest& r) const {
  using namespace partition_rules;
  refuse_cuts(t, r, "subtrees");
  const node_t N = t.pes();
  for (const DimCut& c : r.dims)
    if (c.dim != 0) refuse(t, "--dims: a fat tree has one dimension (0, the PE address)");
  const bool all_bits = !r.dims.empty() && r.dims[0].bits != 0;
  const std::uint64_t k = bits_parts(t, r, all_bits ? r.dims[0].bits : 0, all_bits);
  if (!is_pow2(k) || k > N)
    refuse(t, fmt::format("--parts {} is not a valid fat-tree partition count: subtrees, K = {}", k,
                          pow2_list(log2_exact(N))));
  return box_layout(Shape{N}, {even_bounds(N, static_cast<std::uint32_t>(k))}, "fattree-subtrees");
}

}  // namespace rica
