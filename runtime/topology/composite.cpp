#include <fmt/format.h>
#include "family_util.hpp"

#include <charconv>

#include "rica/topology.hpp"

namespace rica {
namespace {
void require_direct(const char* what, const char* role, const Topology& t) {
  if (!t.direct())
    throw usage_error(fmt::format("{}: the {} network '{}' has router-only nodes; only direct networks combine",
                                  what, role, t.spec()));
}
}  // namespace

ProductTopology::ProductTopology(const Topology& a, const Topology& b)
    : a_(std::make_shared<const Topology>(a)), b_(std::make_shared<const Topology>(b)) {
  require_direct("product", "first", a);
  require_direct("product", "second", b);
  n1_ = a.nodes();
  n2_ = b.nodes();
  detail::check_node_count("product", std::uint64_t{n1_} * n2_);
  p1_ = a.ports();
  p2_ = b.ports();
  c1_ = a.buffer_classes();
  c2_ = b.buffer_classes();
  detail::check_ports_and_classes("product", std::uint64_t{p1_} + p2_, std::uint64_t{c1_} + c2_);
  classes_ = static_cast<class_t>(c1_ + c2_);
  const std::uint32_t ka = a.orbit_count(), kb = b.orbit_count();
  k1_ = (ka && kb) ? ka : 0;
  k2_ = (ka && kb) ? kb : 0;
}

std::string ProductTopology::label(node_t v) const {
  return fmt::format("({};{})", a_->label(v % n1_), b_->label(v / n1_));
}
std::string ProductTopology::spec() const { return fmt::format("product:({})*({})", a_->spec(), b_->spec()); }
Shape ProductTopology::shape() const {
  Shape s = a_->shape();
  for (auto r : b_->shape()) s.push_back(r);
  return s;
}

HierTopology::HierTopology(const Topology& cluster, const Topology& global, node_t iface)
    : a_(std::make_shared<const Topology>(cluster)), b_(std::make_shared<const Topology>(global)) {
  require_direct("hier", "cluster", cluster);
  require_direct("hier", "global", global);
  n1_ = cluster.nodes();
  n2_ = global.nodes();
  detail::check_node_count("hier", std::uint64_t{n1_} * n2_);
  detail::check_range("hier", "iface", iface, 0, n1_ - 1);
  iface_ = iface;
  p1_ = cluster.ports();
  p2_ = global.ports();
  c1_ = cluster.buffer_classes();
  c2_ = global.buffer_classes();
  detail::check_ports_and_classes("hier", std::uint64_t{p1_} + p2_, 2 * std::uint64_t{c1_} + c2_);
  classes_ = static_cast<class_t>(2 * c1_ + c2_);
}

std::string HierTopology::label(node_t v) const { return fmt::format("c{}:{}", v / n1_, a_->label(v % n1_)); }
std::string HierTopology::spec() const {
  return fmt::format("hier:({})/({}){}", a_->spec(), b_->spec(), iface_ ? fmt::format("/iface={}", iface_) : "");
}

node_t Topology::parse_node(const std::string& text) const {
  node_t v = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec == std::errc() && p == end) {
    if (v >= nodes())
      throw usage_error(fmt::format("node {} does not exist: '{}' has nodes 0..{}", v, spec(), nodes() - 1));
    return v;
  }
  for (node_t u = 0; u < nodes(); ++u)
    if (label(u) == text) return u;
  throw usage_error(fmt::format("node {} is neither a node number nor a label of '{}' (labels look like '{}')",
                                quote_input(text), spec(), label(nodes() > 1 ? 1 : 0)));
}


// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

using detail::split_top;
using detail::strip_parens;

/// The size of "product:<a>*<b>" (sep '*', first_weight 1) or "hier:<c>/<g>" (sep '/', 2: the
/// cluster's classes count twice) from the parts' sizes, without building them.
TopologySize composite_size(const SpecArgs& a, const char* name, char sep, std::uint64_t first_weight) {
  const auto parts = split_top(a.raw(), sep, name);
  if (parts.size() >= 2 && !parts[0].empty() && !parts[1].empty()) {
    const TopologySize x = TopologyRegistry::size(strip_parens(parts[0]));
    const TopologySize y = TopologyRegistry::size(strip_parens(parts[1]));
    // Both parts direct (the constructors refuse others): nodes = PEs. The constructors' checks
    // of the counts, refused first as they would be.
    const double nodes = x.nodes * y.nodes;
    const std::uint64_t ports = std::uint64_t{x.ports} + y.ports;
    const std::uint64_t classes = first_weight * std::uint64_t{x.classes} + y.classes;
    detail::check_node_count(name, nodes > 0x1p63 ? ~std::uint64_t{0} : static_cast<std::uint64_t>(nodes));
    detail::check_ports_and_classes(name, ports, classes);
    return {nodes, nodes, static_cast<port_t>(ports), static_cast<class_t>(classes)};
  }
  return detail::size_of(TopologyRegistry::parse(std::string(name) + ":" + a.raw()));  // malformed: parse() says why
}
TopologySize size_product(const SpecArgs& a) { return composite_size(a, "product", '*', 1); }
TopologySize size_hier(const SpecArgs& a) { return composite_size(a, "hier", '/', 2); }
Topology make_product(const SpecArgs& a) {
  const auto parts = split_top(a.raw(), '*', "product");
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty())
    throw usage_error(fmt::format("product: expected 'product:<a>*<b>' with two topology specs (got '{}')", a.raw()));
  return ProductTopology(TopologyRegistry::parse(strip_parens(parts[0])),
                         TopologyRegistry::parse(strip_parens(parts[1])));
}

}  // namespace

std::vector<TopologyEntry> ProductTopology::registry_entries() {
  return {
      {"product", "Cartesian product of two direct topologies", "product:torus:4x4*debruijn:4",
       {{"<a>*<b>", "two topology specs", "", "parenthesise a spec that contains '*'"}}, "*", make_product, size_product},
  };
}

// ---- Registry entries (rica/registry.hpp): spec names, docs, factories ---------------------------

namespace {

Topology make_hier(const SpecArgs& a) {
  const auto parts = split_top(a.raw(), '/', "hier");
  if (parts.size() < 2 || parts.size() > 3 || parts[0].empty() || parts[1].empty())
    throw usage_error(
        fmt::format("hier: expected 'hier:<cluster>/<global>[/iface=K]' (got '{}')", a.raw()));
  node_t iface = 0;
  if (parts.size() == 3) {
    if (parts[2].rfind("iface=", 0) != 0)
      throw usage_error(fmt::format("hier: third part '{}' must be iface=K", parts[2]));
    SpecArgs ia("hier", "");
    ia.values.emplace_back("iface", parts[2].substr(6));
    iface = ia.uint("iface");
  }
  return HierTopology(TopologyRegistry::parse(strip_parens(parts[0])),
                      TopologyRegistry::parse(strip_parens(parts[1])), iface);
}

}  // namespace

std::vector<TopologyEntry> HierTopology::registry_entries() {
  return {
      {"hier", "two-level hierarchy: cluster network + inter-cluster network", "hier:mesh:4x4/debruijn:4",
       {{"<cluster>/<global>[/iface=K]", "two topology specs", "", "iface = the cluster's interface node (0)"}},
       "*", make_hier, size_hier},
  };
}

}  // namespace rica
