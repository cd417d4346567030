#include "rica/topology/mdce.hpp"

#include <fmt/format.h>

namespace rica {

MdceTopology::MdceTopology(unsigned b, unsigned c, unsigned p, unsigned n, std::string name)
    : b_(b), c_(c), par_(p), n_(n), dims_(b + c), nodes_(0), name_(std::move(name)) {
  detail::check_range(name_, "B", b, 0, 8);
  detail::check_range(name_, "C", c, 0, 8);
  detail::check_range(name_, "P", p, 1, 8);
  if (dims_ == 0) throw usage_error(name_ + ": parameters 'B' + 'C' must be at least 1 (got B = 0, C = 0)");
  detail::check_range(name_, "n", n, 1, 24);
  if (std::uint64_t{dims_} * n > 26)
    throw usage_error(fmt::format("{}: (B + C) * n = {} address bits is more than 26 (too many nodes)", name_,
                                  std::uint64_t{dims_} * n));
  detail::check_node_count(name_, std::uint64_t{n} << (dims_ * n));
  nodes_ = static_cast<node_t>(std::uint64_t{n} << (dims_ * n));
  div_ = detail::FastDiv(n);
}

std::string MdceTopology::label(node_t v) const {
  std::string s = fmt::format("({}", v % n_);
  node_t hi = v / n_;
  for (unsigned i = 0; i < dims_; ++i, hi >>= n_) s += fmt::format(",{}", hi & ((node_t{1} << n_) - 1));
  return s + ")";
}

std::string MdceTopology::spec() const {
  if (name_ == "mdce") {
    return par_ == 1 ? fmt::format("mdce:B={},C={},n={}", b_, c_, n_)
                     : fmt::format("mdce:B={},C={},P={},n={}", b_, c_, par_, n_);
  }
  return fmt::format("{}:n={}", name_, n_);
}

Shape MdceTopology::shape() const {
  Shape s{n_};
  for (unsigned i = 0; i < dims_; ++i) s.push_back(node_t{1} << n_);
  return s;
}

}  // namespace rica
