#include "rica/core.hpp"

#include <fmt/format.h>

namespace rica {

std::uint64_t shape_size(const Shape& shape) {
  std::uint64_t n = 1;
  for (auto r : shape) n *= r;
  return n;
}

Coords to_coords(const Shape& shape, node_t id) {
  Coords c(shape.size());
  for (std::size_t i = 0; i < shape.size(); ++i) {
    c[i] = id % shape[i];
    id /= shape[i];
  }
  return c;
}

node_t from_coords(const Shape& shape, const Coords& c) {
  std::uint64_t id = 0;
  for (std::size_t i = shape.size(); i-- > 0;) id = id * shape[i] + c[i];
  return static_cast<node_t>(id);
}

std::string shape_text(const Shape& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(shape[i]);
  }
  return s;
}

namespace detail {
void check_range(const std::string& what, const std::string& name, std::int64_t v, std::int64_t lo,
                 std::int64_t hi) {
  if (v < lo || v > hi)
    throw usage_error(fmt::format("{}: parameter '{}' = {} is out of range [{}, {}]", what, name, v, lo, hi));
}
void check_node_count(const std::string& what, std::uint64_t nodes) {
  if (nodes > max_nodes)
    throw usage_error(fmt::format("{}: {} nodes is more than the supported maximum of {}", what, nodes,
                                  max_nodes));
}
}  // namespace detail
}  // namespace rica
