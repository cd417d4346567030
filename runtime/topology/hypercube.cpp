// The binary hypercube's registry entry and partition rule (its routing is inline in
// rica/topology/cube.hpp, its labels in cube.cpp).
#include "rica/topology/cube.hpp"

#include <fmt/format.h>

#include <optional>
#include <vector>

#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"

namespace rica {

// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_hypercube(const SpecArgs& a) { return HypercubeTopology(a.uint("n")); }

}  // namespace

std::vector<TopologyEntry> HypercubeTopology::registry_entries() {
  return {
      {"hypercube", "binary hypercube; dimension order (lowest bit first)", "hypercube:10",
       {{"n", "1..26", "", "dimension: 2^n nodes"}}, "n", make_hypercube},
  };
}

// ---- Partition rule (rica/partition_layout.hpp) ------------------------------------------------

std::optional<PartitionLayout> HypercubeTopology::partition_layout(const Topology& t, const PartitionRequest& r) const {
  using namespace partition_rules;
  refuse_cuts(t, r, "subcubes (fixed address bits)");
  const unsigned n = static_cast<unsigned>(t.ports());
  for (const DimCut& c : r.dims) {
    if (c.dim >= n) refuse(t, fmt::format("--dims: dimension {} does not exist (address bits 0..{})", c.dim, n - 1));
    if (c.bits > 1) refuse(t, fmt::format("--dims {}:{}: a hypercube dimension is one bit", c.dim, c.bits));
  }
  check_dims_unique(t, r.dims);
  const bool all_bits = !r.dims.empty();
  const std::uint64_t k = bits_parts(t, r, static_cast<unsigned>(r.dims.size()), all_bits);
  if (!is_pow2(k) || k > (std::uint64_t{1} << n))
    refuse(t, fmt::format("--parts {} is not a valid hypercube partition count: subcubes, K = {}", k, pow2_list(n)));
  node_t mask = 0;
  if (r.dims.empty()) {
    for (unsigned b = 0; b < log2_exact(k); ++b) mask |= node_t{1} << (n - 1 - b);
  } else {
    for (const DimCut& c : r.dims) mask |= node_t{1} << c.dim;
  }
  PartitionLayout L = bits_layout(n, mask, "hypercube-subcubes", true);
  const node_t all = static_cast<node_t>((std::uint64_t{1} << n) - 1);
  L.sym = XorSymmetry{1, std::vector<node_t>(L.parts, all & ~mask)};
  return L;
}

}  // namespace rica
