// Destination functions of the synthetic traffic patterns (traffic.hpp). Pure: no engine needed.
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "traffic.hpp"

#include "rica/assert.hpp"
#include "rica/partition.hpp"

namespace rica::traffic {
namespace {

/// usage_error "traffic '<pattern>' needs <req>; '<spec>' has N PEs[ (shape AxB)]".
[[noreturn]] void need(const char* pattern, const std::string& req, const PeSpace& s, bool with_shape = false) {
  const std::string where = s.spec.empty() ? std::string("the network") : fmt::format("'{}'", s.spec);
  throw usage_error(fmt::format("traffic '{}' needs {}; {} has {} PEs{}", pattern, req, where, s.pes,
                                with_shape ? fmt::format(" (shape {})", shape_text(s.shape)) : std::string()));
}

void need_two(const char* pattern, const PeSpace& s) {
  if (s.pes < 2) need(pattern, "at least 2 PEs", s);
}

bool power_of_two(node_t n) { return n >= 2 && (n & (n - 1)) == 0; }

unsigned log2_pow2(const char* pattern, const PeSpace& s) {
  if (!power_of_two(s.pes)) need(pattern, "a power-of-two PE count", s);
  return static_cast<unsigned>(std::countr_zero(s.pes));
}

/// Uniform over [0, n) without `skip` (n >= 2).
node_t uniform_except(node_t n, node_t skip, Rng& rng) {
  const auto v = static_cast<node_t>(rng.below(n - 1));
  return v >= skip ? v + 1 : v;
}

}  // namespace

PeSpace PeSpace::of(const Topology& t) {
  PeSpace s;
  s.pes = t.pes();
  s.shape = t.shape();
  s.spec = t.spec();
  // The topology contract says the shape's product is pes(); fall back to one coordinate if not.
  if (s.shape.empty() || shape_size(s.shape) != s.pes) s.shape = {s.pes};
  return s;
}

PeSpace PeSpace::of_shape(Shape sh, std::string spec) {
  if (sh.empty()) throw usage_error("traffic: empty PE shape");
  for (auto k : sh)
    if (k == 0) throw usage_error(fmt::format("traffic: PE shape {} has a zero range", shape_text(sh)));
  const std::uint64_t n = shape_size(sh);
  detail::check_node_count("traffic", n);
  PeSpace s;
  s.pes = static_cast<node_t>(n);
  s.shape = std::move(sh);
  s.spec = std::move(spec);
  return s;
}

// ---- Random patterns ------------------------------------------------------------------------------

Uniform::Uniform(const PeSpace& s) : n(s.pes) { need_two(name, s); }

node_t Uniform::operator()(node_t src, Rng& rng) const { return uniform_except(n, src, rng); }

Quarter::Quarter(const PeSpace& s) : part(s.pes / 4) {
  if (s.pes % 4 != 0 || s.pes < 8) need(name, "a PE count divisible by 4 and at least 8 (four partitions of >= 2)", s);
}

node_t Quarter::operator()(node_t src, Rng& rng) const {
  const node_t base = src - src % part;
  return base + uniform_except(part, src - base, rng);
}

Partitioned::Partitioned(const PeSpace& s, std::uint32_t parts_) : parts(parts_) {
  if (s.spec.empty())
    throw usage_error("traffic 'partition': needs a topology (its partition rule cuts the PEs), not a bare PE shape");
  if (parts < 2)
    throw usage_error(fmt::format("traffic 'partition': parameter 'parts' = {} is out of range; at least 2 partitions",
                                  parts));
  const Topology topo = TopologyRegistry::parse(s.spec);
  PartitionRequest request;
  request.parts = parts;
  const PartitionPlan plan = [&] {
    try {
      return partition(topo, request);
    } catch (const usage_error& e) {  // name the pattern's parameter, not `rica partition`'s option
      throw usage_error(fmt::format("traffic 'partition': parameter 'parts' = {}: {}", parts, e.what()));
    }
  }();
  rule = plan.rule;
  auto m = std::make_shared<std::vector<node_t>>();
  auto sl = std::make_shared<std::vector<Slot>>(s.pes);
  std::vector<std::uint8_t> seen(s.pes, 0);
  m->reserve(s.pes);
  for (const Partition& part : plan.parts) {
    if (part.pes.size() < 2)
      throw usage_error(fmt::format("traffic 'partition': {} cut into {} partitions leaves a partition of {} PE; "
                                    "each needs at least 2 (fewer parts)", s.spec, parts, part.pes.size()));
    const auto begin = static_cast<std::uint32_t>(m->size());
    for (std::size_t i = 0; i < part.pes.size(); ++i) {
      const node_t pe = part.pes[i];
      RICA_ASSERT(pe < s.pes && !seen[pe], "a partition plan lists each PE once");
      seen[pe] = 1;
      (*sl)[pe] = {begin, static_cast<std::uint32_t>(part.pes.size()), static_cast<std::uint32_t>(i)};
      m->push_back(pe);
    }
  }
  if (m->size() != s.pes)
    throw usage_error(fmt::format("traffic 'partition': the {} partitions of {} leave {} of its {} PEs out; every PE "
                                  "must be in one", parts, s.spec, s.pes - m->size(), s.pes));
  members = std::move(m);
  slots = std::move(sl);
}

node_t Partitioned::operator()(node_t src, Rng& rng) const {
  const Slot& sl = (*slots)[src];
  return (*members)[sl.begin + uniform_except(sl.count, sl.local, rng)];
}

Hotspot::Hotspot(const PeSpace& s, double fraction_, node_t hot_) : n(s.pes), hot(hot_), fraction(fraction_) {
  need_two(name, s);
  if (!(fraction >= 0.0 && fraction <= 1.0))
    throw usage_error(fmt::format("traffic 'hotspot': parameter 'fraction' = {} is out of range [0, 1]", fraction));
  detail::check_range("traffic 'hotspot'", "hot", hot, 0, std::int64_t{s.pes} - 1);
}

node_t Hotspot::operator()(node_t src, Rng& rng) const {
  if (rng.uniform() < fraction && src != hot) return hot;
  return uniform_except(n, src, rng);
}

Localized::Localized(const PeSpace& s) : shape(s.shape) {
  need_two(name, s);
  mean.reserve(shape.size());
  for (auto k : shape) mean.push_back((static_cast<double>(k) - 1.0) / 2.0);
}

node_t Localized::operator()(node_t src, Rng& rng) const {
  // N >= 2 guarantees some range k >= 2 (mean >= 0.5), so a non-zero offset has probability > 0.
  for (;;) {
    node_t rem = src;
    std::uint64_t dst = 0, stride = 1;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const node_t k = shape[i];
      node_t c = rem % k;
      rem /= k;
      if (k > 1) {
        const double x = -mean[i] * std::log1p(-rng.uniform());  // Exp(mean): 1 - u in (0, 1]
        // Round to nearest, wrap modulo k (fmod of an integral double is exact; no overflow).
        const auto d = static_cast<node_t>(std::fmod(std::floor(x + 0.5), static_cast<double>(k)));
        const bool negative = (rng() >> 63) != 0;
        if (d != 0) c = negative ? (c + (k - d)) % k : (c + d) % k;
      }
      dst += c * stride;
      stride *= k;
    }
    if (dst != src) return static_cast<node_t>(dst);
  }
}

// ---- Deterministic patterns ------------------------------------------------------------------------

Transpose::Transpose(const PeSpace& s) {
  need_two(name, s);
  if (s.shape.size() == 2 && s.shape[0] == s.shape[1]) {
    side = s.shape[0];
    return;
  }
  if (power_of_two(s.pes) && std::countr_zero(s.pes) % 2 == 0) {
    half = static_cast<unsigned>(std::countr_zero(s.pes)) / 2;
    return;
  }
  need(name, "a square 2D shape (AxA) or 2^(2k) PEs", s, true);
}

node_t Transpose::apply(node_t src) const {
  if (side) return (src % side) * side + src / side;
  const node_t low = src & ((node_t{1} << half) - 1);
  return (low << half) | (src >> half);
}

BitComplement::BitComplement(const PeSpace& s) : mask(s.pes - 1) { (void)log2_pow2(name, s); }

BitReverse::BitReverse(const PeSpace& s) : bits(log2_pow2(name, s)) {}

node_t BitReverse::apply(node_t src) const {
  node_t r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((src >> i) & 1u) << (bits - 1 - i);
  return r;
}

Shuffle::Shuffle(const PeSpace& s) : bits(log2_pow2(name, s)) {}

node_t Shuffle::apply(node_t src) const { return detail::rotl(src, bits); }

Tornado::Tornado(const PeSpace& s) : shape(s.shape) {
  bool moves = false;
  for (auto k : shape) {
    shift.push_back((k + 1) / 2 - 1);
    moves = moves || shift.back() != 0;
  }
  if (!moves) need(name, "a coordinate of range >= 3 (else it maps every PE to itself)", s, true);
}

node_t Tornado::apply(node_t src) const {
  node_t rem = src;
  std::uint64_t dst = 0, stride = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const node_t k = shape[i];
    const node_t c = rem % k;
    rem /= k;
    dst += ((c + shift[i]) % k) * stride;
    stride *= k;
  }
  return static_cast<node_t>(dst);
}

Neighbor::Neighbor(const PeSpace& s) : k0(s.shape.at(0)), n(s.pes) {
  if (k0 < 2) need(name, "a first coordinate of range >= 2", s, true);
}

node_t Neighbor::apply(node_t src) const {
  const node_t c = src % k0;
  return src - c + (c + 1 == k0 ? 0 : c + 1);
}

RandPerm::RandPerm(const PeSpace& s, std::uint64_t seed) {
  need_two(name, s);
  std::vector<node_t> p(s.pes);
  std::iota(p.begin(), p.end(), node_t{0});
  // A stream of its own: distinct from the per-PE streams the engine seeds from the same seed.
  Rng g(seed ^ 0x72616e647065726dULL);  // "randperm"
  for (std::size_t i = p.size() - 1; i > 0; --i) std::swap(p[i], p[g.below(i + 1)]);  // Fisher-Yates
  perm = std::make_shared<const std::vector<node_t>>(std::move(p));
}

// ---- Variant helpers -----------------------------------------------------------------------------

node_t destination(const Pattern& p, node_t src, Rng& rng) {
  return std::visit([&](const auto& f) { return f(src, rng); }, p);
}

const char* pattern_name(const Pattern& p) {
  if (const auto* c = std::get_if<Custom>(&p)) return c->label.c_str();
  return std::visit([](const auto& f) -> const char* { return std::decay_t<decltype(f)>::name; }, p);
}

bool is_random(const Pattern& p) {
  return std::visit(
      [](const auto& f) {
        if constexpr (std::is_same_v<std::decay_t<decltype(f)>, Custom>) return f.random;
        else return std::decay_t<decltype(f)>::random;
      },
      p);
}

node_t Custom::operator()(node_t src, Rng& rng) const {
  const node_t d = fn(src, rng);
  if (d >= n)
    throw usage_error(fmt::format("traffic '{}': destination {} of PE {} is out of range 0..{}", label, d, src, n - 1));
  if (random && d == src)
    throw usage_error(fmt::format("traffic '{}': PE {} sent to itself (a pattern registered as random never may)",
                                  label, src));
  return d;
}

// ---- Mesh emulation layout -----------------------------------------------------------------------

MeshLayout::MeshLayout(const PeSpace& s, bool wrap_) : side(0), wrap(wrap_) {
  auto r = static_cast<node_t>(std::sqrt(static_cast<double>(s.pes)));
  while (std::uint64_t{r} * r > s.pes) --r;
  while (std::uint64_t{r + 1} * (r + 1) <= s.pes) ++r;
  if (std::uint64_t{r} * r != s.pes || r < 2)
    need(name, fmt::format("a square PE count of at least 4 (a {}sqrt(N) x sqrt(N) mesh)", wrap ? "wrapping " : ""), s);
  side = r;
}

MeshLayout::Neighbours MeshLayout::neighbours(node_t pe) const {
  const node_t x = pe % side, y = pe / side;
  Neighbours out;
  if (wrap) {
    const node_t xp = x + 1 == side ? 0 : x + 1, xm = x == 0 ? side - 1 : x - 1;
    const node_t yp = y + 1 == side ? 0 : y + 1, ym = y == 0 ? side - 1 : y - 1;
    out.pe = {y * side + xp, y * side + xm, yp * side + x, ym * side + x};
    out.count = 4;
    return out;
  }
  if (x + 1 < side) out.pe[out.count++] = pe + 1;
  if (x > 0) out.pe[out.count++] = pe - 1;
  if (y + 1 < side) out.pe[out.count++] = pe + side;
  if (y > 0) out.pe[out.count++] = pe - side;
  return out;
}

}  // namespace rica::traffic
