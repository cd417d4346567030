#include "rica/core.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cctype>
#include <cmath>

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

std::uint64_t parse_uint(const std::string& text, const std::string& what, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  const bool digits = !text.empty() && text.front() >= '0' && text.front() <= '9';
  if (!digits || ec != std::errc() || p != end || v < lo || v > hi) {
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    throw usage_error(fmt::format("{}: '{}' is not an integer in [{}, {}]", what, shown, lo, hi));
  }
  return v;
}

double parse_real(const std::string& text, const std::string& what, double lo, double hi, bool lo_open) {
  double v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v, std::chars_format::general);
  const bool start_ok = !text.empty() && (std::isdigit(static_cast<unsigned char>(text.front())) ||
                                          text.front() == '.' || text.front() == '-');
  if (!start_ok || ec != std::errc() || p != end || !std::isfinite(v) || v > hi || (lo_open ? v <= lo : v < lo)) {
    const std::string shown = text.size() > 40 ? text.substr(0, 40) + "..." : text;
    throw usage_error(fmt::format("{}: '{}' is not a number in {}{}, {}]", what, shown, lo_open ? "(" : "[", lo, hi));
  }
  return v;
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
void check_ports_and_classes(const std::string& what, std::uint64_t ports, std::uint64_t classes) {
  if (ports > max_ports)
    throw usage_error(fmt::format("{}: {} ports per node is more than the supported maximum of {}", what, ports,
                                  max_ports));
  if (classes > max_buffer_classes)
    throw usage_error(fmt::format("{}: {} buffer classes is more than the supported maximum of {} (nested "
                                  "composites multiply their children's classes)", what, classes, max_buffer_classes));
}
}  // namespace detail
}  // namespace rica
