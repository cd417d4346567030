#include "rica/topology/hyperx.hpp"

#include <fmt/format.h>

namespace rica {

HyperXTopology::HyperXTopology(const Shape& dims, unsigned terminals) : t_(terminals) {
  if (dims.empty() || dims.size() > max_dims)
    throw usage_error(fmt::format("hyperx: shape must have 1 to {} dimensions (got {})", max_dims, dims.size()));
  detail::check_range("hyperx", "T", terminals, 1, 4096);
  std::uint64_t r = 1, ports = terminals;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    detail::check_range("hyperx", fmt::format("shape[{}]", i), dims[i], 2, 4096);
    r *= dims[i];
    ports += dims[i] - 1;
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
    base = static_cast<port_t>(base + dims[i] - 1);
  }
  routers_ = stride;
  pes_ = routers_ * t_;
  div_t_ = detail::FastDiv(t_);
  ports_ = base;
}

std::string HyperXTopology::label(node_t v) const {
  const node_t r = v < pes_ ? v / t_ : v - pes_;
  std::string s = v < pes_ ? "t(" : "r(";
  for (unsigned i = 0; i < ndims_; ++i) s += fmt::format("{}{}", i ? "," : "", coord(r, i));
  return v < pes_ ? s + fmt::format(").{}", v % t_) : s + ")";
}

std::string HyperXTopology::spec() const {
  return fmt::format("hyperx:{},T={}", shape_text(Shape(s_.begin(), s_.begin() + ndims_)), t_);
}

}  // namespace rica
