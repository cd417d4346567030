#include "rica/topology/dragonfly.hpp"

#include <fmt/format.h>

namespace rica {

DragonflyTopology::DragonflyTopology(unsigned a, unsigned p, unsigned h, DragonflyArrangement arrangement,
                                     unsigned classes)
    : a_(a), p_(p), h_(h), g_(0), routers_(0), pes_(0), arr_(arrangement), classes_(0) {
  detail::check_range("dragonfly", "h", h, 1, 1024);  // first: a and p default to 2h and h
  detail::check_range("dragonfly", "p", p, 1, 1024);
  detail::check_range("dragonfly", "a", a, 1, 1024);
  const std::uint64_t g = std::uint64_t{a} * h + 1;
  if (g < 2) throw usage_error("dragonfly: a * h must be at least 1");
  detail::check_node_count("dragonfly", g * a * (std::uint64_t{p} + 1));
  detail::check_ports_and_classes("dragonfly", std::uint64_t{p} + a - 1 + h, 2);
  g_ = static_cast<unsigned>(g);
  routers_ = static_cast<node_t>(g * a);
  pes_ = routers_ * p;
  div_a_ = detail::FastDiv(a);
  div_p_ = detail::FastDiv(p);
  div_h_ = detail::FastDiv(h);
  if (pes_ < 2)
    throw usage_error("dragonfly: at least 2 terminals are needed (a * p * (a * h + 1) >= 2)");
  const class_t derived = derived_classes();
  detail::check_range("dragonfly", "classes", classes == 0 ? derived : classes, 1, derived);
  classes_ = classes == 0 ? derived : static_cast<class_t>(classes);
  given_classes_ = classes;
}

std::string DragonflyTopology::label(node_t v) const {
  if (v < pes_) return fmt::format("t{}.{}.{}", v / p_ / a_, v / p_ % a_, v % p_);
  const node_t r = v - pes_;
  return fmt::format("r{}.{}", r / a_, r % a_);
}

std::string DragonflyTopology::spec() const {
  std::string s = fmt::format("dragonfly:h={},p={},a={}", h_, p_, a_);
  if (relative()) s += ",arrangement=relative";
  if (classes_ != derived_classes()) s += fmt::format(",classes={}", classes_);
  return s;
}

}  // namespace rica
