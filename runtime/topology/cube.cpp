#include "rica/topology/cube.hpp"
#include "rica/partition_layout.hpp"
#include "rica/registry.hpp"

#include <bit>
#include <fmt/format.h>

namespace rica {

CubeTopology::CubeTopology(const Shape& dims, bool wrap) : wrap_(wrap) {
  const char* what = wrap ? "torus" : "mesh";
  if (dims.empty() || dims.size() > max_dims)
    throw usage_error(fmt::format("{}: shape must have 1 to {} dimensions (got {})", what, max_dims, dims.size()));
  std::uint64_t n = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    detail::check_range(what, fmt::format("shape[{}]", i), dims[i], 2, 1 << 24);
    n *= dims[i];
    detail::check_node_count(what, n);
  }
  ndims_ = static_cast<unsigned>(dims.size());
  node_t stride = 1;
  symmetric_ = wrap;
  for (unsigned i = 0; i < ndims_; ++i) {
    k_[i] = dims[i];
    stride_[i] = stride;
    div_k_[i] = detail::FastDiv(k_[i]);
    div_stride_[i] = detail::FastDiv(stride);
    shift_[i] = static_cast<std::uint8_t>(std::countr_zero(stride));
    pow2_ = pow2_ && std::has_single_bit(k_[i]);
    stride *= dims[i];
    any_ring_ = any_ring_ || ring(i);
  }
  nodes_ = stride;
}

std::string CubeTopology::label(node_t v) const {
  std::string s = "(";
  for (unsigned i = 0; i < ndims_; ++i) s += fmt::format("{}{}", i ? "," : "", (v / stride_[i]) % k_[i]);
  return s + ")";
}

std::string CubeTopology::spec() const { return fmt::format("{}:{}", wrap_ ? "torus" : "mesh", shape_text(shape())); }

HypercubeTopology::HypercubeTopology(unsigned n) : n_(n) { detail::check_range("hypercube", "n", n, 1, 26); }

std::string HypercubeTopology::label(node_t v) const {
  std::string s(n_, '0');
  for (unsigned i = 0; i < n_; ++i) s[n_ - 1 - i] = static_cast<char>('0' + ((v >> i) & 1u));
  return s;
}

std::string HypercubeTopology::spec() const { return fmt::format("hypercube:n={}", n_); }


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_mesh(const SpecArgs& a) { return CubeTopology(a.shape("shape"), false); }
Topology make_torus(const SpecArgs& a) { return CubeTopology(a.shape("shape"), true); }
Topology make_kary(const SpecArgs& a) {
  const unsigned k = a.uint("k"), n = a.uint("n");
  detail::check_range("kary", "n", n, 1, CubeTopology::max_dims);
  return CubeTopology(Shape(n, k), true);
}

}  // namespace

std::vector<TopologyEntry> CubeTopology::registry_entries() {
  return {
      {"mesh", "mesh of any shape; dimension-order routing", "mesh:32x32",
       {{"shape", "AxB[xC...], each >= 2", "", "side per dimension, first fastest"}}, "shape", make_mesh, nullptr,
       Drawing::grid},
      {"torus", "torus / k-ary n-cube of any shape; dimension order, dateline classes", "torus:8x8x16",
       {{"shape", "AxB[xC...], each >= 2", "", "side per dimension, first fastest"}}, "shape", make_torus,
       nullptr, Drawing::grid},
      {"kary", "k-ary n-cube (= torus:kxkx...)", "kary:k=4,n=3",
       {{"k", "2..2^24", "", "ring size"}, {"n", "1..8", "", "dimensions"}}, "", make_kary, nullptr, Drawing::grid},
  };
}

// ---- Partition rule (rica/partition_layout.hpp) ------------------------------------------------

std::optional<PartitionLayout> CubeTopology::partition_layout(const Topology& t, const PartitionRequest& r) const {
  return partition_rules::grid_layout(t, t.shape(), r, wrap_ ? "torus-blocks" : "mesh-blocks");
}

}  // namespace rica
