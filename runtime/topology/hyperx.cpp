#include "rica/topology/hyperx.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

namespace rica {

HyperXTopology::HyperXTopology(const Shape& dims, unsigned terminals, unsigned links) : t_(terminals), k_(links) {
  if (dims.empty() || dims.size() > max_dims)
    throw usage_error(fmt::format("hyperx: shape must have 1 to {} dimensions (got {})", max_dims, dims.size()));
  detail::check_range("hyperx", "T", terminals, 1, 4096);
  detail::check_range("hyperx", "K", links, 1, max_links);
  std::uint64_t r = 1, ports = terminals;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    detail::check_range("hyperx", fmt::format("shape[{}]", i), dims[i], 2, 4096);
    r *= dims[i];
    ports += std::uint64_t{dims[i] - 1} * links;
    detail::check_node_count("hyperx", r * (std::uint64_t{terminals} + 1));
  }
  detail::check_ports_and_classes("hyperx", ports, 1);
  ndims_ = static_cast<unsigned>(dims.size());
  node_t stride = 1;
  port_t base = static_cast<port_t>(terminals);
  for (unsigned i = 0; i < ndims_; ++i) {
    s_[i] = dims[i];
    stride_[i] = stride;
    div_s_[i] = detail::FastDiv(dims[i]);
    div_stride_[i] = detail::FastDiv(stride);
    base_[i] = base;
    stride *= dims[i];
    base = static_cast<port_t>(base + (dims[i] - 1) * links);
  }
  routers_ = stride;
  pes_ = routers_ * t_;
  div_t_ = detail::FastDiv(t_);
  div_k_ = detail::FastDiv(k_);
  ports_ = base;
}

std::string HyperXTopology::label(node_t v) const {
  const node_t r = v < pes_ ? v / t_ : v - pes_;
  std::string s = v < pes_ ? "t(" : "r(";
  for (unsigned i = 0; i < ndims_; ++i) s += fmt::format("{}{}", i ? "," : "", coord(r, i));
  return v < pes_ ? s + fmt::format(").{}", v % t_) : s + ")";
}

std::string HyperXTopology::spec() const {
  return fmt::format("hyperx:{},T={}{}", shape_text(Shape(s_.begin(), s_.begin() + ndims_)), t_,
                     k_ > 1 ? fmt::format(",K={}", k_) : "");
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_hyperx(const SpecArgs& a) {
  const Shape s = a.shape("shape");
  return HyperXTopology(s, a.has("T") ? a.uint("T") : (s.empty() ? 1 : s[0]), a.has("K") ? a.uint("K") : 1);
}

}  // namespace

std::vector<TopologyEntry> HyperXTopology::registry_entries() {
  return {
      {"hyperx", "HyperX / flattened butterfly: S1 x ... x SL routers, fully connected in each dimension by K "
                 "parallel links per pair, T terminals (PEs) each; dimension order (a pure choice among the K "
                 "links), 1 class",
       "hyperx:8x8,T=8",
       {{"shape", "S1xS2[x...], each 2..4096", "", "routers per dimension, first fastest"},
        {"T", "1..4096", "S1", "terminals (PEs) per router (T = S1: a flattened butterfly)"},
        {"K", fmt::format("1..{}", max_links), "1", "parallel links between two routers of a dimension"}},
       "shape", make_hyperx},
  };
}

}  // namespace rica
