#include "rica/topology/dce.hpp"
#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rica {

DceTopology::DceTopology(unsigned n, unsigned delta, unsigned ring, DceWiring wiring, std::string name)
    : bits_(n), delta_(delta), ring_(ring), wiring_(wiring), name_(std::move(name)) {
  detail::check_range(name_, "n", n, 1, 24);
  detail::check_range(name_, "S", ring, n, 64);
  detail::check_range(name_, "delta", delta, 0, ring - 1);
  detail::check_node_count(name_, std::uint64_t{ring} << n);
  div_ = detail::FastDiv(ring);
  if (wiring == DceWiring::parallel && delta != 1 && ring > n)
    throw usage_error(fmt::format("{}: parameter 'wiring' = parallel needs delta = 1 (got delta = {})", name_, delta));

  // Buffer classes = 1 + the most dateline crossings of any route (interpretation note 4:
  // computed, not assumed). Rows XOR a constant preserve routing, so a route is fixed by its start
  // column x, the row difference d and the destination column. Phase 1 fixes the bits of d (the
  // column advances by delta on a cross, by 1 otherwise); phase 2 walks the ring, at worst S-1
  // columns further. Classes follow the absolute (unwrapped) column: class = floor(pos / S).
  unsigned worst = 0;
  const std::uint32_t rows = std::uint32_t{1} << n;
  for (unsigned x = 0; x < ring; ++x) {
    for (std::uint32_t d = 0; d < rows; ++d) {
      std::uint64_t pos = x;
      std::uint32_t rem = d;
      while (rem) {
        const unsigned col = static_cast<unsigned>(pos % ring);
        const unsigned b = col % n;
        if (crosses_at(col) && ((rem >> b) & 1u)) {
          rem ^= 1u << b;
          pos += delta;
        } else {
          pos += 1;
        }
      }
      const std::uint64_t last = pos + ring - 1;  // destination column just behind the end column
      worst = std::max(worst, static_cast<unsigned>(last / ring));
    }
  }
  classes_ = static_cast<class_t>(worst + 1);
}

std::string DceTopology::label(node_t v) const { return fmt::format("({},{})", v % ring_, v / ring_); }

std::string DceTopology::spec() const {
  std::string s = fmt::format("{}:n={}", name_, bits_);
  if (name_ == "dce") s += fmt::format(",delta={}", delta_);
  if (ring_ != bits_) s += fmt::format(",S={}", ring_);
  if (wiring_ == DceWiring::parallel && ring_ != bits_) s += ",wiring=parallel";
  return s;
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {


DceWiring wiring(const SpecArgs& a) {
  return a.choice("wiring", {"flip", "parallel"}) == 0 ? DceWiring::flip_mod : DceWiring::parallel;
}
Topology make_dce(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, a.uint("delta"), a.has("S") ? a.uint("S") : n, wiring(a), "dce");
}
Topology make_cbanyan(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, 1, a.has("S") ? a.uint("S") : n, wiring(a), "cbanyan");
}
Topology make_ccc(const SpecArgs& a) {
  const unsigned n = a.uint("n");
  return DceTopology(n, 0, a.has("S") ? a.uint("S") : n, DceWiring::flip_mod, "ccc");
}

}  // namespace

std::vector<TopologyEntry> DceTopology::registry_entries() {
  // Locals, not namespace-scope constants: a registration from another file may ask for the
  // entries during static initialisation, before this file's constants would exist.
  const ParamDoc p_n_dce{"n", "1..24", "", "address bits: 2^n rows"};
  const ParamDoc p_ring{"S", "n..64", "n", "ring length (columns); S > n adds stages (e.g. 8x128 = n=7,S=8)"};
  const ParamDoc p_wiring{"wiring", "flip|parallel", "flip",
                          "columns x >= n: cross link flips bit x mod n (flip), or is a 2nd parallel link"};
  return {
      {"cbanyan", "circular Banyan = DCE(n, 1, flip); 3 spiral buffer classes", "cbanyan:n=7,S=8",
       {p_n_dce, p_ring, p_wiring}, "n", make_cbanyan, nullptr, Drawing::ring},
      {"ccc", "cube-connected cycles, unidirectional rings = DCE(n, 0, flip)", "ccc:n=3", {p_n_dce, p_ring}, "n",
       make_ccc, nullptr, Drawing::ring},
      {"dce", "Directed Cycles Ensemble DCE(n, delta, flip)", "dce:n=4,delta=2",
       {p_n_dce, {"delta", "0..S-1", "1", "column step of the cross link"}, p_ring, p_wiring}, "n", make_dce, nullptr,
       Drawing::ring},
  };
}

// ---- Partition rule (rica/partition_layout.hpp) ------------------------------------------------

std::optional<PartitionLayout> DceTopology::partition_layout(const Topology& t, const PartitionRequest& r) const {
  using namespace partition_rules;
  refuse_cuts(t, r, "high row bits");
  const unsigned n = bits(), S = ring();
  for (const DimCut& c : r.dims) {
    if (c.dim == 0) refuse(t, "dimension 0 is the ring (column); rings are never cut: cut dimension 1 (rows)");
    if (c.dim != 1) refuse(t, fmt::format("--dims: DCE has dimensions 0 (column) and 1 (row), not {}", c.dim));
  }
  check_dims_unique(t, r.dims);
  const bool all_bits = !r.dims.empty() && r.dims[0].bits != 0;
  const std::uint64_t k = bits_parts(t, r, all_bits ? r.dims[0].bits : 0, all_bits);
  if (!is_pow2(k) || k > (std::uint64_t{1} << n))
    refuse(t, fmt::format("--parts {} is not a valid DCE partition count: partitions are 2^k whole rings, K = {}", k,
                          pow2_list(n)));
  const unsigned bits = log2_exact(k);
  PartitionLayout L = box_layout(Shape{S, node_t{1} << n}, {{0, S}, even_bounds(node_t{1} << n, static_cast<std::uint32_t>(k))},
                        "dce-rows");
  // Row XOR commutes with links and routes, except the parallel wiring's spread of packets over
  // two links by destination parity, which depends on the row when S is odd.
  const Link probe = S > n ? out_link(n, 1) : Link{};
  const bool parallel_wiring = probe.present() && probe.peer < S;
  if (!(parallel_wiring && S % 2 == 1))
    L.sym = XorSymmetry{S, std::vector<node_t>(L.parts, (node_t{1} << (n - bits)) - 1)};
  return L;
}

}  // namespace rica
