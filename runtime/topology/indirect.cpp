#include "rica/topology/indirect.hpp"

#include <fmt/format.h>

namespace rica {

namespace {
constexpr unsigned max_indirect_n = 22;  // 2^22 PEs + 22 * 2^21 switches = 48M nodes <= max_nodes
}  // namespace

OmegaTopology::OmegaTopology(unsigned n) : n_(n) {
  detail::check_range("omega", "n", n, 1, max_indirect_n);
  detail::check_node_count("omega", nodes());
}

std::string OmegaTopology::label(node_t v) const {
  if (v < pes()) return fmt::format("pe{}", v);
  return fmt::format("s{}.{}", stage(v), index(v));
}

std::string OmegaTopology::spec() const { return fmt::format("omega:n={}", n_); }

FatTreeTopology::FatTreeTopology(unsigned n) : n_(n) {
  detail::check_range("fattree", "n", n, 1, max_indirect_n);
  detail::check_node_count("fattree", nodes());
}

std::string FatTreeTopology::label(node_t v) const {
  if (v < pes()) return fmt::format("pe{}", v);
  return fmt::format("L{}.{}", level(v), index(v));
}

std::string FatTreeTopology::spec() const { return fmt::format("fattree:n={}", n_); }

}  // namespace rica
