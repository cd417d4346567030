#include "rica/topology/indirect.hpp"
#include "rica/registry.hpp"

#include <fmt/format.h>

namespace rica {

namespace {
constexpr unsigned max_indirect_n = 22;  // 2^22 PEs + 22 * 2^21 switches = 48M nodes <= max_nodes
}  // namespace

OmegaTopology::OmegaTopology(unsigned n) : n_(n) {
  detail::check_range("omega", "n", n, 1, max_indirect_n);
  pes_ = node_t{1} << n;
  detail::check_node_count("omega", std::uint64_t{pes_} + std::uint64_t{n} * (pes_ / 2));
  nodes_ = pes_ + n * (pes_ / 2);
  ports_ = 2;
  classes_ = 1;
}

std::string OmegaTopology::label(node_t v) const {
  if (v < pes()) return fmt::format("pe{}", v);
  return fmt::format("s{}.{}", stage(v), index(v));
}

std::string OmegaTopology::spec() const { return fmt::format("omega:n={}", n_); }

FatTreeTopology::FatTreeTopology(unsigned n) : n_(n) {
  detail::check_range("fattree", "n", n, 1, max_indirect_n);
  pes_ = node_t{1} << n;
  detail::check_node_count("fattree", std::uint64_t{pes_} + std::uint64_t{n} * (pes_ / 2));
  nodes_ = pes_ + n * (pes_ / 2);
  ports_ = 4;
  classes_ = 1;
}

std::string FatTreeTopology::label(node_t v) const {
  if (v < pes()) return fmt::format("pe{}", v);
  return fmt::format("L{}.{}", level(v), index(v));
}

std::string FatTreeTopology::spec() const { return fmt::format("fattree:n={}", n_); }


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_omega(const SpecArgs& a) { return OmegaTopology(a.uint("n")); }

}  // namespace

std::vector<TopologyEntry> OmegaTopology::registry_entries() {
  return {
      {"omega", "Omega multistage network (router-only switches)", "omega:10",
       {{"n", "1..22", "", "stages: 2^n PEs"}}, "n", make_omega, nullptr, Drawing::stages},
  };
}

}  // namespace rica
