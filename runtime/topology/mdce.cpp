#include "rica/topology/mdce.hpp"
#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace rica {

MdceTopology::MdceTopology(unsigned b, unsigned c, unsigned p, unsigned n, std::string name, unsigned ring,
                           unsigned xbits, MdceFreed freed)
    : b_(b), c_(c), par_(p), n_(n), dims_(b + c), ring_(ring ? ring : n), xbits_(xbits ? xbits : n), freed_(freed),
      nodes_(0), name_(std::move(name)) {
  detail::check_range(name_, "B", b, 0, 8);
  detail::check_range(name_, "C", c, 0, 8);
  detail::check_range(name_, "P", p, 1, 8);
  if (dims_ == 0) throw usage_error(name_ + ": parameters 'B' + 'C' must be at least 1 (got B = 0, C = 0)");
  detail::check_range(name_, "n", n, 1, 24);
  detail::check_range(name_, "S", ring_, n, max_ring);
  detail::check_range(name_, "X", xbits_, 1, n);
  const std::uint64_t bits = xbits_ + std::uint64_t{dims_ - 1} * n;
  if (bits > 26)
    throw usage_error(fmt::format("{}: X + (B + C - 1) * n = {} address bits is more than 26 (too many nodes)", name_,
                                  bits));
  detail::check_node_count(name_, std::uint64_t{ring_} << bits);
  if (freed == MdceFreed::parallel && xbits_ == n)
    throw usage_error(fmt::format("{}: parameter 'freed' = parallel needs X < n (no cluster link is freed)", name_));
  if (freed == MdceFreed::parallel && delta(0) == 0)
    throw usage_error(fmt::format(
        "{}: parameter 'freed' = parallel needs a c-Banyan-type cluster dimension (C = 0): a CCC-type cluster link "
        "stays in its column, so its freed in-port is not where a parallel link would arrive",
        name_));
  nodes_ = static_cast<node_t>(std::uint64_t{ring_} << bits);
  div_ = detail::FastDiv(ring_);
  for (unsigned x = 0; x < ring_; ++x) colbit_[x] = static_cast<std::uint8_t>(x % n);

  // Buffer classes = 1 + the most wraps any route makes (interpretation note 4: computed). Each
  // visit to a column handles every CCC-type bit of its position (x0 mod n) and one c-Banyan-
  // type bit, and the column advances by one per visit either way, so the end of the address
  // phase is latest when every address bit differs; the walk to the destination column adds at
  // most S-1. Classes follow the unwrapped column: class = floor(pos / S).
  unsigned worst = 0;
  for (unsigned x = 0; x < ring_; ++x) {
    std::vector<unsigned> cb(n, 0);  // c-Banyan-type bits still to fix, per bit position
    std::vector<bool> ccc(n, false);
    for (unsigned j = 0; j < n; ++j) {
      cb[j] = b_ - (j >= xbits_ && delta(0) ? 1u : 0u);
      ccc[j] = c_ > (j >= xbits_ && !delta(0) ? 1u : 0u);
    }
    std::uint64_t pos = x;
    auto pending = [&] {
      return std::any_of(cb.begin(), cb.end(), [](unsigned k) { return k > 0; }) ||
             std::any_of(ccc.begin(), ccc.end(), [](bool k) { return k; });
    };
    while (pending()) {
      const unsigned j = colbit_[pos % ring_];
      ccc[j] = false;  // CCC-type crosses stay in the column
      if (cb[j] > 0) {
        --cb[j];  // a c-Banyan-type cross moves on
        ++pos;
      } else if (pending()) {
        ++pos;  // parallel
      }
    }
    worst = std::max(worst, static_cast<unsigned>((pos + ring_ - 1) / ring_));
  }
  classes_ = static_cast<class_t>(worst + 1);
}

std::string MdceTopology::label(node_t v) const {
  std::string s = fmt::format("({}", v % ring_);
  node_t hi = v / ring_;
  for (unsigned i = 0; i < dims_; ++i) {
    const unsigned w = i == 0 ? xbits_ : n_;
    s += fmt::format(",{}", hi & ((node_t{1} << w) - 1));
    hi >>= w;
  }
  return s + ")";
}

std::string MdceTopology::spec() const {
  std::string s = name_ == "mdce" ? (par_ == 1 ? fmt::format("mdce:B={},C={},n={}", b_, c_, n_)
                                               : fmt::format("mdce:B={},C={},P={},n={}", b_, c_, par_, n_))
                                  : fmt::format("{}:n={}", name_, n_);
  if (ring_ != n_) s += fmt::format(",S={}", ring_);
  if (xbits_ != n_) s += fmt::format(",X={}", xbits_);
  if (freed_ == MdceFreed::parallel) s += ",freed=parallel";
  return s;
}

Shape MdceTopology::shape() const {
  Shape s{ring_};
  for (unsigned i = 0; i < dims_; ++i) s.push_back(node_t{1} << (i == 0 ? xbits_ : n_));
  return s;
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {



/// MDCE with the RWC-1 §3.5 variants: ring length S, cluster bits X, freed cluster links.
Topology make_mdce_family(const SpecArgs& a, unsigned b, unsigned c, unsigned p, const char* name) {
  const unsigned n = a.uint("n");
  const unsigned S = a.has("S") ? a.uint("S") : n, X = a.has("X") ? a.uint("X") : n;
  detail::check_range(name, "S", S, n, MdceTopology::max_ring);
  detail::check_range(name, "X", X, 1, n);
  const auto freed =
      a.has("freed") && a.choice("freed", {"none", "parallel"}) == 1 ? MdceFreed::parallel : MdceFreed::none;
  return MdceTopology(b, c, p, n, name, S, X, freed);
}
Topology make_mdce(const SpecArgs& a) { return make_mdce_family(a, a.uint("B"), a.uint("C"), a.uint("P"), "mdce"); }
Topology make_cb2(const SpecArgs& a) { return make_mdce_family(a, 2, 0, 1, "cb2"); }
Topology make_cccb(const SpecArgs& a) { return make_mdce_family(a, 1, 1, 1, "cccb"); }
}  // namespace

std::vector<TopologyEntry> MdceTopology::registry_entries() {
  // Locals, not namespace-scope constants: a registration from another file may ask for the
  // entries during static initialisation, before this file's constants would exist.
  const ParamDoc p_n_mdce{"n", "1..24", "", "address bits: every dimension but the ring has 2^n values"};
  const ParamDoc p_ring_mdce{"S", "n..64", "n", "ring length (columns x0); S = 2n joins two c-Banyans end to end (RWC-1 §3.5)"};
  const ParamDoc p_x_mdce{"X", "1..n", "n", "cluster-address bits (dimension 1); X = n-1 halves the clusters"};
  const ParamDoc p_freed{"freed", "none|parallel", "none",
                         "X < n: the freed cluster links stay unused, or become parallel links (C = 0 only)"};
  return {
      {"mdce", "(B,C,P)-MDCE: product of DCEs sharing their rings", "mdce:B=1,C=1,P=1,n=4",
       {{"B", "0..8", "", "c-Banyan-type dimensions (delta 1)"},
        {"C", "0..8", "", "CCC-type dimensions (delta 0)"},
        {"P", "1..8", "1", "parallel (ring) link multiplicity"},
        p_n_mdce, p_ring_mdce, p_x_mdce, p_freed},
       "", make_mdce, nullptr, Drawing::ring},
      {"cccb", "cube-connected circular Banyans = (1,1,1)-MDCE (RWC-1)", "cccb:n=4",
       {p_n_mdce, p_ring_mdce, p_x_mdce}, "n", make_cccb, nullptr, Drawing::ring},
      {"cb2", "(CB)^2 = (2,0,1)-MDCE (RWC-1)", "cb2:n=4", {p_n_mdce, p_ring_mdce, p_x_mdce, p_freed}, "n", make_cb2,
       nullptr, Drawing::ring},
  };
}

// ---- Partition rule (rica/partition_layout.hpp) ------------------------------------------------

std::optional<PartitionLayout> MdceTopology::partition_layout(const Topology& t, const PartitionRequest& r) const {
  using namespace partition_rules;
  if (!basic()) return std::nullopt;  // S = n and X = n: the rows are the high bits
  refuse_cuts(t, r, "high bits of dimensions 1..r");
  const unsigned n = this->n(), dims = this->b() + this->c();
  std::vector<DimCut> cuts = r.dims;
  for (const DimCut& c : cuts) {
    if (c.dim == 0) refuse(t, "dimension 0 is the ring (x0); rings are never cut: cut dimensions 1.." + std::to_string(dims));
    if (c.dim > dims) refuse(t, fmt::format("--dims: dimension {} does not exist (MDCE dimensions 1..{})", c.dim, dims));
  }
  check_dims_unique(t, cuts);
  const bool all_bits = !cuts.empty() && std::all_of(cuts.begin(), cuts.end(), [](const DimCut& c) { return c.bits != 0; });
  unsigned given = 0;
  for (const DimCut& c : cuts) given += c.bits;
  const std::uint64_t k = bits_parts(t, r, given, all_bits);
  if (!is_pow2(k) || log2_exact(k) > n * dims)
    refuse(t, fmt::format("--parts {} is not a valid MDCE partition count: partitions fix high bits of dimensions "
                          "1..{}, K = {}",
                          k, dims, pow2_list(n * dims)));
  const unsigned total = log2_exact(k);
  if (cuts.empty())  // default: every dimension, highest first, round robin
    for (unsigned i = dims; i >= 1; --i) cuts.push_back({i, 0});
  const std::vector<unsigned> bits = assign_bits(t, cuts, total, std::vector<unsigned>(cuts.size(), n));
  const Shape shape = this->shape();
  std::vector<std::vector<std::uint32_t>> bounds(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) bounds[i] = {0, shape[i]};
  node_t fixed = 0;  // in the address id / n: dimension i occupies bits [(i-1) n, i n)
  for (std::size_t j = 0; j < cuts.size(); ++j) {
    bounds[cuts[j].dim] = even_bounds(shape[cuts[j].dim], std::uint32_t{1} << bits[j]);
    fixed |= ((node_t{1} << bits[j]) - 1) << (cuts[j].dim * n - bits[j]);
  }
  PartitionLayout L = box_layout(shape, bounds, "mdce-dims");
  const unsigned par = t.ports() - dims;  // parallel copies: the route picks copy dst mod P
  if (par == 1 || n % par == 0) {
    const node_t all = static_cast<node_t>((std::uint64_t{1} << (n * dims)) - 1);
    L.sym = XorSymmetry{n, std::vector<node_t>(L.parts, all & ~fixed)};
  }
  return L;
}

}  // namespace rica
