#include "rica/topology/dce.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rica {

DceTopology::DceTopology(unsigned n, unsigned delta, unsigned ring, DceWiring wiring, std::string name)
    : bits_(n), delta_(delta), ring_(ring), wiring_(wiring), name_(std::move(name)) {
  detail::check_range(name_, "n", n, 1, 24);
  detail::check_range(name_, "S", ring, n, 64);
  detail::check_range(name_, "delta", delta, 0, ring - 1);
  detail::check_node_count(name_, std::uint64_t{ring} << n);
  div_ = detail::FastDiv(ring);
  if (wiring == DceWiring::parallel && delta != 1 && ring > n)
    throw usage_error(fmt::format("{}: parameter 'wiring' = parallel needs delta = 1 (got delta = {})", name_, delta));

  // Buffer classes = 1 + the most dateline crossings of any route (interpretation note 4:
  // computed, not assumed). Rows XOR a constant preserve routing, so a route is fixed by its start
  // column x, the row difference d and the destination column. Phase 1 fixes the bits of d (the
  // column advances by delta on a cross, by 1 otherwise); phase 2 walks the ring, at worst S-1
  // columns further. Classes follow the absolute (unwrapped) column: class = floor(pos / S).
  unsigned worst = 0;
  const std::uint32_t rows = std::uint32_t{1} << n;
  for (unsigned x = 0; x < ring; ++x) {
    for (std::uint32_t d = 0; d < rows; ++d) {
      std::uint64_t pos = x;
      std::uint32_t rem = d;
      while (rem) {
        const unsigned col = static_cast<unsigned>(pos % ring);
        const unsigned b = col % n;
        if (crosses_at(col) && ((rem >> b) & 1u)) {
          rem ^= 1u << b;
          pos += delta;
        } else {
          pos += 1;
        }
      }
      const std::uint64_t last = pos + ring - 1;  // destination column just behind the end column
      worst = std::max(worst, static_cast<unsigned>(last / ring));
    }
  }
  classes_ = static_cast<class_t>(worst + 1);
}

std::string DceTopology::label(node_t v) const { return fmt::format("({},{})", v % ring_, v / ring_); }

std::string DceTopology::spec() const {
  std::string s = fmt::format("{}:n={}", name_, bits_);
  if (name_ == "dce") s += fmt::format(",delta={}", delta_);
  if (ring_ != bits_) s += fmt::format(",S={}", ring_);
  if (wiring_ == DceWiring::parallel && ring_ != bits_) s += ",wiring=parallel";
  return s;
}

}  // namespace rica
