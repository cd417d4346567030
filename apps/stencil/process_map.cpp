// The logical process grid and rank -> PE mappings of the application kernels (process_map.hpp).
#include "process_map.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <charconv>
#include <numeric>
#include <stdexcept>

#include "rica/app.hpp"
#include "rica/defaults.hpp"

namespace rica::kernels {

MapKind parse_map(const std::string& text, const std::string& what) {
  if (text == "identity") return MapKind::identity;
  if (text == "embed") return MapKind::embed;
  if (text == "random") return MapKind::random;
  throw usage_error(fmt::format("{}: map '{}' is not one of: identity, embed, random", what, text));
}

const char* map_name(MapKind k) noexcept {
  switch (k) {
    case MapKind::identity: return "identity";
    case MapKind::embed: return "embed";
    case MapKind::random: return "random";
  }
  return "?";
}

ProcessGrid square_grid(node_t n) {
  std::uint32_t py = 1;
  for (std::uint32_t d = 1; std::uint64_t{d} * d <= n; ++d)
    if (n % d == 0) py = d;
  return {n / py, py};
}

ProcessGrid parse_grid(const std::string& text, const std::string& what) {
  const auto x = text.find('x');
  auto num = [&](std::string_view s) {
    std::uint32_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v == 0)
      throw usage_error(fmt::format("{}: '{}' is not a grid PXxPY of positive sides, e.g. 32x32", what, text));
    return v;
  };
  if (x == std::string::npos)
    throw usage_error(fmt::format("{}: '{}' is not a grid PXxPY of positive sides, e.g. 32x32", what, text));
  const std::string_view t(text);
  return {num(t.substr(0, x)), num(t.substr(x + 1))};
}

ProcessGrid resolve_grid(ProcessGrid grid, node_t pes, const std::string& what) {
  if (grid.px == 0 && grid.py == 0) return square_grid(pes);
  if (grid.size() != pes)
    throw usage_error(fmt::format("{}: process grid {}x{} has {} ranks but the topology has {} PEs; px * py must "
                                  "equal the PE count", what, grid.px, grid.py, grid.size(), pes));
  return grid;
}

namespace {

bool pow2(std::uint64_t v) noexcept { return v != 0 && std::has_single_bit(v); }
unsigned log2u(std::uint64_t v) noexcept { return static_cast<unsigned>(std::countr_zero(v)); }

/// Fills `to_pe` with an embedding of the kernel's pattern in `t`; returns its name.
std::string embed(std::vector<node_t>& to_pe, ProcessGrid g, Pattern pattern, const Topology& t) {
  const node_t n = t.pes();
  if (pattern == Pattern::hypercube) return "identity (natural: rank bits are the partner bits)";
  if (pattern == Pattern::all_to_all) return "identity (all-to-all: nothing to embed)";
  // Node = column + ring * address, one link per flipped address bit (the hypercube: ring 1;
  // DCE / MDCE: the ring length): rica/topology/family.hpp, BitAddressing.
  const std::optional<BitAddressing> bits = t.bit_addressing();
  const std::uint32_t ring = bits ? bits->columns : 0;
  if (ring && g.px % ring == 0 && pow2(g.px / ring) && pow2(g.py) &&
      (ring == 1 || std::uint64_t{g.px / ring} * g.py * ring == n)) {
    // Consecutive Gray codes differ in one bit. A grid row runs along px / ring consecutive rings;
    // the ring addresses are Gray-coded per grid coordinate, so grid neighbours (wrap included) are
    // one address bit, one link, apart.
    const unsigned a = log2u(g.px / ring);
    for (node_t r = 0; r < n; ++r) {
      const std::uint32_t x = r % g.px, y = r / g.px;
      to_pe[r] = x % ring + ring * (gray(x / ring) | (gray(y) << a));
    }
    return std::string(bits->name);
  }
  const Shape s = t.shape();
  if (s.size() == 2 && std::uint64_t{s[0]} * s[1] == n) {
    if (s[0] == g.px && s[1] == g.py) return "identity (the topology's own grid)";
    if (s[0] == g.py && s[1] == g.px) {
      for (node_t r = 0; r < n; ++r) to_pe[r] = r / g.px + g.py * (r % g.px);
      return "transpose";
    }
    return fmt::format("identity (no embedding of a {}x{} grid in {})", g.px, g.py, t.spec());
  }
  return fmt::format("identity (no embedding known for {})", t.spec());
}

}  // namespace

ProcessMap::ProcessMap(MapKind kind, ProcessGrid grid, Pattern pattern, const Topology& topology, node_t pes,
                       std::uint64_t seed)
    : kind_(kind) {
  const node_t n = pes;
  if (grid.size() != n)
    throw usage_error(fmt::format("map: process grid {}x{} does not match the {} PEs", grid.px, grid.py, n));
  to_pe_.resize(n);
  std::iota(to_pe_.begin(), to_pe_.end(), node_t{0});
  switch (kind) {
    case MapKind::identity:
      resolved_ = "identity";
      break;
    case MapKind::random: {
      Rng rng(seed ^ 0x6d61702d72616e64ULL);  // its own stream: independent of the PEs' streams
      for (node_t i = n; i > 1; --i) std::swap(to_pe_[i - 1], to_pe_[rng.below(i)]);
      resolved_ = "random";
      break;
    }
    case MapKind::embed:
      resolved_ = n == topology.pes() ? embed(to_pe_, grid, pattern, topology)
                                      : "identity (a job's PEs: no embedding in a part of the machine)";
      break;
  }
  to_rank_.assign(n, no_node);
  for (node_t r = 0; r < n; ++r) {
    if (to_pe_[r] >= n || to_rank_[to_pe_[r]] != no_node)
      throw std::logic_error(fmt::format("map '{}' is not a bijection on {}", resolved_, topology.spec()));
    to_rank_[to_pe_[r]] = r;
  }
}

void check_memory(const std::string& what, double bytes) {
  const double limit = static_cast<double>(defaults::apps::memory_limit);
  if (bytes > limit)
    throw usage_error(fmt::format("{} needs about {:.2f} GiB of kernel state, above the limit of {:.2f} GiB "
                                  "(defaults::apps::memory_limit); make it smaller",
                                  what, bytes / 0x1p30, limit / 0x1p30));
}

}  // namespace rica::kernels
