// Space partitioning and closure verification. See include/rica/partition.hpp and
// docs/partitions.md.
#include "rica/partition.hpp"
#include "rica/partition_layout.hpp"

#include "rica/interrupt.hpp"
#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <iterator>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <utility>

#include "../machine/tsan.hpp"

namespace rica {
namespace {

constexpr std::uint32_t kNone = PartitionPlan::none;
constexpr std::uint32_t kShared = PartitionPlan::shared;

// ---- Layouts: which PE goes to which partition ------------------------------------------------

using Layout = PartitionLayout;

}  // namespace

namespace partition_rules {

bool is_pow2(std::uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }
unsigned log2_exact(std::uint64_t x) { return static_cast<unsigned>(std::countr_zero(x)); }

[[noreturn]] void refuse(const Topology& t, const std::string& what) {
  throw usage_error(fmt::format("partition {}: {}", t.spec(), what));
}

/// "1, 2, 4, ..., 2^max" for messages.
std::string pow2_list(unsigned max_bits) {
  std::string s;
  for (unsigned b = 0; b <= max_bits && b < 6; ++b) s += fmt::format("{}{}", b ? ", " : "", 1ULL << b);
  if (max_bits >= 6) s += fmt::format(", ..., {}", 1ULL << max_bits);
  return s;
}

/// Boundaries {0, ..., k} of m near-equal pieces of [0, k) (aligned halves for powers of two).
std::vector<std::uint32_t> even_bounds(std::uint32_t k, std::uint32_t m) {
  std::vector<std::uint32_t> b(m + 1);
  for (std::uint32_t j = 0; j <= m; ++j) b[j] = static_cast<std::uint32_t>(std::uint64_t{j} * k / m);
  return b;
}

std::string range_text(std::uint32_t lo, std::uint32_t hi) {  // [lo, hi)
  return hi - lo == 1 ? std::to_string(lo) : fmt::format("{}..{}", lo, hi - 1);
}

/// Partitions = the boxes of a grid over `shape` (size == PEs); bounds[i] = cut points of dim i
/// including 0 and shape[i]. Box index is mixed radix, dimension 0 fastest, which is also the
/// order of the boxes' smallest PE ids.
Layout box_layout(const Shape& shape, const std::vector<std::vector<std::uint32_t>>& bounds, std::string rule) {
  Layout L;
  L.rule = std::move(rule);
  const std::size_t d = shape.size();
  std::vector<std::vector<std::uint32_t>> block_of(d);  // coordinate -> piece index
  std::vector<std::uint32_t> pieces(d), radix(d);
  std::uint32_t total = 1;
  for (std::size_t i = 0; i < d; ++i) {
    pieces[i] = static_cast<std::uint32_t>(bounds[i].size() - 1);
    block_of[i].resize(shape[i]);
    for (std::uint32_t j = 0; j < pieces[i]; ++j)
      for (std::uint32_t c = bounds[i][j]; c < bounds[i][j + 1]; ++c) block_of[i][c] = j;
    radix[i] = total;
    total *= pieces[i];
  }
  L.parts = total;
  const auto n = static_cast<node_t>(shape_size(shape));
  L.part_of.resize(n);
  std::vector<std::uint32_t> c(d, 0);
  for (node_t v = 0; v < n; ++v) {
    std::uint32_t p = 0;
    for (std::size_t i = 0; i < d; ++i) p += block_of[i][c[i]] * radix[i];
    L.part_of[v] = p;
    for (std::size_t i = 0; i < d; ++i) {  // next coordinate, first fastest
      if (++c[i] < shape[i]) break;
      c[i] = 0;
    }
  }
  L.shapes.resize(total);
  L.descriptions.resize(total);
  for (std::uint32_t p = 0; p < total; ++p) {
    Shape s(d);
    std::string text = d == 1 ? "ids " : "(";
    for (std::size_t i = 0; i < d; ++i) {
      const std::uint32_t j = (p / radix[i]) % pieces[i];
      s[i] = bounds[i][j + 1] - bounds[i][j];
      if (i) text += ',';
      text += range_text(bounds[i][j], bounds[i][j + 1]);
    }
    L.shapes[p] = std::move(s);
    L.descriptions[p] = d == 1 ? text : text + ")";
  }
  return L;
}

/// "10xx" style text of the fixed bits `mask` = `value` of an n-bit id, most significant first.
std::string bit_pattern(unsigned n, node_t mask, node_t value) {
  std::string s;
  for (unsigned b = n; b-- > 0;) s += ((mask >> b) & 1u) ? static_cast<char>('0' + ((value >> b) & 1u)) : 'x';
  return s;
}

/// Partitions = the PEs whose id bits in `mask` take each value (n-bit ids); numbered by the
/// fixed bits read as a number (= the order of their smallest PE ids).
Layout bits_layout(unsigned n, node_t mask, std::string rule, bool cube_shape) {
  Layout L;
  L.rule = std::move(rule);
  const unsigned k = static_cast<unsigned>(std::popcount(mask));
  L.parts = std::uint32_t{1} << k;
  const node_t pes = node_t{1} << n;
  L.part_of.resize(pes);
  for (node_t v = 0; v < pes; ++v) {
    std::uint32_t p = 0, out = 0;
    for (unsigned b = 0; b < n; ++b)
      if ((mask >> b) & 1u) p |= ((v >> b) & 1u) << out++;
    L.part_of[v] = p;
  }
  L.shapes.resize(L.parts);
  L.descriptions.resize(L.parts);
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    node_t value = 0;
    unsigned in = 0;
    for (unsigned b = 0; b < n; ++b)
      if ((mask >> b) & 1u) value |= ((p >> in++) & 1u) << b;
    L.shapes[p] = cube_shape ? Shape(n - k, 2) : Shape{node_t{1} << (n - k)};
    if (L.shapes[p].empty()) L.shapes[p] = Shape{1};
    L.descriptions[p] = bit_pattern(n, mask, value);
  }
  return L;
}

// ---- Request checking shared by the rules -----------------------------------------------------

/// K from the request and the bits of `dims` (bit-cut rules): checks they agree.
std::uint64_t bits_parts(const Topology& t, const PartitionRequest& r, unsigned given_bits, bool all_have_bits) {
  if (!r.dims.empty() && all_have_bits) {
    const std::uint64_t k = std::uint64_t{1} << given_bits;
    if (r.parts != 0 && r.parts != k)
      refuse(t, fmt::format("--parts {} does not match --dims (2^{} = {} partitions)", r.parts, given_bits, k));
    return k;
  }
  if (r.parts == 0) refuse(t, "give --parts K (or --dims with bits for every dimension, e.g. 1:2)");
  return r.parts;
}

void check_dims_unique(const Topology& t, const std::vector<DimCut>& dims) {
  for (std::size_t i = 0; i < dims.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (dims[i].dim == dims[j].dim) refuse(t, fmt::format("--dims names dimension {} twice", dims[i].dim));
}

void refuse_cuts(const Topology& t, const PartitionRequest& r, const char* rule) {
  if (!r.cuts.empty())
    refuse(t, fmt::format("--cut applies to grid partitions (mesh, torus and searched topologies); this "
                          "topology is cut by {}: use --parts or --dims",
                          rule));
}

/// Per-dimension bits for a bit-cut rule: dims with bits keep them; dims without bits share the
/// rest of log2 K round robin in the given order. `dims` must be non-empty.
std::vector<unsigned> assign_bits(const Topology& t, const std::vector<DimCut>& dims, unsigned total_bits,
                                  const std::vector<unsigned>& capacity) {
  std::vector<unsigned> bits(dims.size(), 0);
  unsigned given = 0;
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].bits) {
      bits[i] = dims[i].bits;
      given += dims[i].bits;
    } else {
      open.push_back(i);
    }
  }
  if (given > total_bits || (open.empty() && given != total_bits))
    refuse(t, fmt::format("--dims cut {} bits but K = {} needs {}", given, 1ULL << total_bits, total_bits));
  unsigned rest = total_bits - given;
  while (rest > 0) {
    bool placed = false;
    for (std::size_t i : open) {
      if (rest == 0) break;
      if (bits[i] < capacity[i]) {
        ++bits[i];
        --rest;
        placed = true;
      }
    }
    if (!placed) refuse(t, fmt::format("the dimensions in --dims have too few bits for K = {}", 1ULL << total_bits));
  }
  for (std::size_t i = 0; i < dims.size(); ++i)
    if (bits[i] > capacity[i])
      refuse(t, fmt::format("dimension {} has {} bits; --dims asks for {}", dims[i].dim, capacity[i], bits[i]));
  return bits;
}

}  // namespace partition_rules

namespace {
using namespace partition_rules;

/// Pieces per dimension for K blocks over `allowed` dims (in preference order): each prime
/// factor of K (largest first) goes to the allowed dimension with the longest current piece.
std::optional<std::vector<std::uint32_t>> factor_pieces(const Shape& shape, const std::vector<unsigned>& allowed,
                                                        std::uint64_t k) {
  std::vector<std::uint64_t> primes;
  for (std::uint64_t f = 2; f * f <= k; ++f)
    while (k % f == 0) {
      primes.push_back(f);
      k /= f;
    }
  if (k > 1) primes.push_back(k);
  std::sort(primes.rbegin(), primes.rend());
  std::vector<std::uint32_t> m(shape.size(), 1);
  for (std::uint64_t f : primes) {
    int best = -1;
    double best_len = 0;
    for (unsigned i : allowed) {
      if (m[i] * f > shape[i]) continue;
      const double len = static_cast<double>(shape[i]) / m[i];
      if (best < 0 || len > best_len) {
        best = static_cast<int>(i);
        best_len = len;
      }
    }
    if (best < 0) return std::nullopt;
    m[static_cast<unsigned>(best)] *= static_cast<std::uint32_t>(f);
  }
  return m;
}

std::string pieces_text(const std::vector<std::uint32_t>& m) {
  std::string s;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (i) s += 'x';
    s += std::to_string(m[i]);
  }
  return s;
}

/// Grid bounds from --cut, or --dims / K: the shared front end of mesh, torus and the search.
std::vector<std::vector<std::uint32_t>> grid_bounds(const Topology& t, const Shape& shape, const PartitionRequest& r) {
  const unsigned d = static_cast<unsigned>(shape.size());
  std::vector<std::vector<std::uint32_t>> bounds(d);
  for (unsigned i = 0; i < d; ++i) bounds[i] = {0, shape[i]};
  const auto check_dim = [&](unsigned dim) {
    if (dim >= d)
      refuse(t, fmt::format("dimension {} does not exist (shape {}: dimensions 0..{})", dim, shape_text(shape), d - 1));
  };
  if (!r.cuts.empty()) {
    if (!r.dims.empty()) refuse(t, "give --dims or --cut, not both");
    std::uint64_t k = 1;
    std::vector<bool> seen(d, false);
    for (const AxisCut& c : r.cuts) {
      check_dim(c.dim);
      if (seen[c.dim]) refuse(t, fmt::format("--cut names dimension {} twice", c.dim));
      seen[c.dim] = true;
      std::vector<std::uint32_t> b{0};
      for (std::uint32_t a : c.at) {
        if (a <= b.back() || a >= shape[c.dim])
          refuse(t, fmt::format("--cut {}: cut points must rise strictly inside 1..{}", c.dim, shape[c.dim] - 1));
        b.push_back(a);
      }
      b.push_back(shape[c.dim]);
      k *= b.size() - 1;
      bounds[c.dim] = std::move(b);
    }
    if (r.parts != 0 && r.parts != k) refuse(t, fmt::format("--parts {} does not match --cut ({} blocks)", r.parts, k));
    return bounds;
  }
  for (const DimCut& c : r.dims) check_dim(c.dim);
  check_dims_unique(t, r.dims);
  std::vector<std::uint32_t> m(d, 1);
  std::uint64_t fixed = 1;
  std::vector<unsigned> open;
  for (const DimCut& c : r.dims) {
    if (c.bits) {
      if (c.bits > 31 || (std::uint64_t{1} << c.bits) > shape[c.dim])
        refuse(t, fmt::format("--dims {}:{}: 2^{} pieces do not fit dimension {} of size {}", c.dim, c.bits, c.bits,
                              c.dim, shape[c.dim]));
      m[c.dim] = std::uint32_t{1} << c.bits;
      fixed *= m[c.dim];
    } else {
      open.push_back(c.dim);
    }
  }
  std::uint64_t k = r.parts;
  if (k == 0) {
    if (r.dims.empty() || !open.empty()) refuse(t, "give --parts K (or --dims with bits, or --cut)");
    k = fixed;
  }
  if (k > t.pes()) refuse(t, fmt::format("--parts {} is more than the {} PEs", k, t.pes()));
  if (k % fixed != 0) refuse(t, fmt::format("--parts {} is not a multiple of the {} blocks --dims asks for", k, fixed));
  if (r.dims.empty())
    for (unsigned i = d; i-- > 0;) open.push_back(i);  // prefer the slowest dimension on a tie
  if (k / fixed > 1) {
    if (open.empty()) refuse(t, fmt::format("--parts {} does not match --dims ({} blocks)", k, fixed));
    Shape rest = shape;
    for (unsigned i = 0; i < d; ++i) rest[i] = shape[i] / m[i];
    const auto f = factor_pieces(rest, open, k / fixed);
    if (!f)
      refuse(t, fmt::format("cannot cut shape {} into {} blocks: a prime factor of K exceeds every side it may cut",
                            shape_text(shape), k));
    for (unsigned i = 0; i < d; ++i) m[i] *= (*f)[i];
  }
  for (unsigned i = 0; i < d; ++i) bounds[i] = even_bounds(shape[i], m[i]);
  return bounds;
}

}  // namespace

Layout partition_rules::grid_layout(const Topology& t, const Shape& shape, const PartitionRequest& r, std::string rule) {
  return box_layout(shape, grid_bounds(t, shape, r), std::move(rule));
}

namespace {

/// Candidates of the generic search, most natural first, without duplicates.
std::vector<std::pair<std::string, Layout>> search_candidates(const Topology& t, const PartitionRequest& r) {
  std::vector<std::pair<std::string, Layout>> out;
  const node_t N = t.pes();
  Shape shape = t.shape();
  if (shape_size(shape) != N) shape = Shape{N};
  const auto add = [&](std::string name, Layout L) {
    for (const auto& [nm, other] : out)
      if (other.part_of == L.part_of) return;
    L.rule = "search:" + name;
    out.emplace_back(std::move(name), std::move(L));
  };
  if (!r.dims.empty() || !r.cuts.empty()) {  // the user chose the grid
    auto b = grid_bounds(t, shape, r);
    std::vector<std::uint32_t> m;
    for (auto& x : b) m.push_back(static_cast<std::uint32_t>(x.size() - 1));
    add("grid " + pieces_text(m), box_layout(shape, b, ""));
    return out;
  }
  if (r.parts == 0) refuse(t, "give --parts K");
  const std::uint64_t k = r.parts;
  if (k > N) refuse(t, fmt::format("--parts {} is more than the {} PEs", k, N));
  if (shape.size() > 1) {
    std::vector<unsigned> all;
    for (unsigned i = static_cast<unsigned>(shape.size()); i-- > 0;) all.push_back(i);
    if (auto m = factor_pieces(shape, all, k)) {
      std::vector<std::vector<std::uint32_t>> b;
      for (std::size_t i = 0; i < shape.size(); ++i) b.push_back(even_bounds(shape[i], (*m)[i]));
      add("grid " + pieces_text(*m), box_layout(shape, b, ""));
    }
    for (unsigned i = static_cast<unsigned>(shape.size()); i-- > 0;) {
      if (k > shape[i]) continue;
      std::vector<std::vector<std::uint32_t>> b;
      std::vector<std::uint32_t> m(shape.size(), 1);
      m[i] = static_cast<std::uint32_t>(k);
      for (std::size_t j = 0; j < shape.size(); ++j) b.push_back(even_bounds(shape[j], m[j]));
      add("grid " + pieces_text(m), box_layout(shape, b, ""));
    }
  }
  add("id-ranges", box_layout(Shape{N}, {even_bounds(N, static_cast<std::uint32_t>(k))}, ""));
  if (is_pow2(N) && is_pow2(k) && k > 1) {
    const unsigned n = log2_exact(N), b = log2_exact(k);
    for (unsigned j = n - b + 1; j-- > 0;) {
      const node_t mask = ((node_t{1} << b) - 1) << j;
      add(fmt::format("id-bits {}..{}", j + b - 1, j), bits_layout(n, mask, "", false));
    }
  }
  return out;
}

// ---- Verification -------------------------------------------------------------------------------

/// A bitset that remembers which words it touched, so that clearing costs what setting cost.
struct Bits {
  std::vector<std::uint64_t> w;
  std::vector<std::uint32_t> touched;
  void init(std::uint64_t n) {
    if (w.size() < (n + 63) / 64) w.assign((n + 63) / 64, 0);
  }
  void set(std::uint64_t i) {
    std::uint64_t& x = w[i >> 6];
    if (x == 0) touched.push_back(static_cast<std::uint32_t>(i >> 6));
    x |= std::uint64_t{1} << (i & 63);
  }
  void absorb(Bits& o) {  // this |= o; o cleared
    for (std::uint32_t k : o.touched) {
      if (w[k] == 0) touched.push_back(k);
      w[k] |= o.w[k];
      o.w[k] = 0;
    }
    o.touched.clear();
  }
  template <class Out>
  void take(Out& out) {  // sorted set bits appended to out; cleared
    std::sort(touched.begin(), touched.end());
    for (std::uint32_t k : touched) {
      for (std::uint64_t x = w[k]; x; x &= x - 1) out.push_back(static_cast<typename Out::value_type>(std::uint64_t{k} * 64 + std::countr_zero(x)));
      w[k] = 0;
    }
    touched.clear();
  }
};

struct Scratch {  // one per worker thread
  struct Memo {
    std::uint32_t token = 0;
    class_t cls = 0;
    std::uint8_t leaves = 0;
  };
  struct Step {
    node_t v;
    class_t c;
    bool out_next;
  };
  std::vector<Memo> memo;  // [node * slots + cls % slots]
  std::uint32_t token = 0;
  std::vector<Step> path;
  Bits links, outside;
};

struct ChunkResult {
  std::uint64_t routed = 0, leaving = 0;
  std::vector<OutsideHop> examples;
};

bool has_example(const std::vector<OutsideHop>& ex, const OutsideHop& h) {
  return std::any_of(ex.begin(), ex.end(), [&](const OutsideHop& e) { return e.from == h.from && e.port == h.port; });
}

/// What one partition's verification found (before symmetry expansion).
struct PartResult {
  std::uint64_t routed = 0, leaving = 0;
  std::vector<OutsideHop> examples;
  std::vector<link_id> links;
  std::vector<node_t> outside;
};

struct VerifyContext {
  const std::vector<std::uint32_t>* part_of = nullptr;  // per PE
  const std::vector<std::uint8_t>* shared_switch = nullptr;  // per node, empty in pass 1
  unsigned max_examples = 8;
};

template <TopologyModel T>
class Verifier {
 public:
  Verifier(const T& t, const VerifyContext& ctx)
      : t_(t), ctx_(ctx), pes_(t.pes()), nodes_(t.nodes()), ports_(t.ports()), classes_(t.buffer_classes()),
        slots_(classes_ >= 4 ? 4u : classes_ >= 2 ? 2u : 1u), limit_(std::uint64_t{t.nodes()} * t.buffer_classes() + 1),
        part_of_(ctx.part_of->data()), shared_(ctx.shared_switch->empty() ? nullptr : ctx.shared_switch->data()),
        scratch_([this] {
          Scratch s;
          s.memo.assign(std::size_t{nodes_} * slots_, Scratch::Memo{});
          s.links.init(std::uint64_t{nodes_} * ports_);
          s.outside.init(nodes_);
          return s;
        }) {}

  /// Routes every source to every destination of partition p.
  PartResult run(std::uint32_t p, const std::vector<node_t>& sources, const std::vector<node_t>& dsts) {
    const std::uint64_t work = std::uint64_t{sources.size()} * dsts.size();
    const std::size_t chunks = static_cast<std::size_t>(
        std::clamp<std::uint64_t>(work / 8192, 1, std::min<std::uint64_t>(256, dsts.size())));
    std::vector<ChunkResult> res(chunks);
    const auto body = [&](std::size_t c) {
      Scratch& S = scratch_.local();
      const std::size_t lo = c * dsts.size() / chunks, hi = (c + 1) * dsts.size() / chunks;
      for (std::size_t i = lo; i < hi; ++i) {
        check_interrupt();  // rica/interrupt.hpp: once per destination
        route_to(dsts[i], p, sources, S, res[c]);
      }
    };
    if (chunks == 1) {
      body(0);
    } else {
      detail::TsanLoop tsan;  // runtime/machine/tsan.hpp
      tbb::parallel_for(std::size_t{0}, chunks, tsan.fork(body));
      tsan.join();
    }
    PartResult out;
    for (ChunkResult& r : res) {
      out.routed += r.routed;
      out.leaving += r.leaving;
      for (const OutsideHop& h : r.examples)
        if (out.examples.size() < ctx_.max_examples && !has_example(out.examples, h)) out.examples.push_back(h);
    }
    Bits links, outside;
    links.init(std::uint64_t{nodes_} * ports_);
    outside.init(nodes_);
    for (Scratch& S : scratch_) {
      links.absorb(S.links);
      outside.absorb(S.outside);
    }
    links.take(out.links);
    outside.take(out.outside);
    return out;
  }

 private:
  std::size_t slot(node_t v, class_t c) const { return std::size_t{v} * slots_ + (c & (slots_ - 1)); }

  bool outside(node_t v, std::uint32_t p) const {
    if (v < pes_) return part_of_[v] != p;
    return shared_ != nullptr && shared_[v] != 0;
  }

  [[noreturn]] void broken(const std::string& what, node_t s, node_t d) const {
    throw std::logic_error(
        fmt::format("routing of '{}' is broken: {} (route {} -> {})", t_.spec(), what, t_.label(s), t_.label(d)));
  }

  void route_to(node_t d, std::uint32_t p, const std::vector<node_t>& sources, Scratch& S, ChunkResult& r) {
    if (++S.token == 0) {  // wrapped: forget every entry
      std::fill(S.memo.begin(), S.memo.end(), Scratch::Memo{});
      S.token = 1;
    }
    const std::uint32_t tok = S.token;
    for (const node_t s : sources) {
      if (s == d) continue;
      ++r.routed;
      S.path.clear();
      node_t v = s;
      class_t c = 0;
      bool leaves = false, have_first = false;
      OutsideHop first;
      for (;;) {
        const Scratch::Memo& m = S.memo[slot(v, c)];
        if (m.token == tok && m.cls == c) {
          leaves = m.leaves != 0;
          break;
        }
        const Hop h = t_.route(v, d, c);
        if (h.delivers()) {
          if (v != d) broken(fmt::format("delivered at {}", t_.label(v)), s, d);
          S.memo[slot(v, c)] = {tok, c, 0};
          break;
        }
        const Link l = t_.out_link(v, h.port());
        if (!l.present()) broken(fmt::format("absent port {} at {}", h.port(), t_.label(v)), s, d);
        if (h.next_class() >= classes_)
          broken(fmt::format("class {} >= buffer_classes {}", h.next_class(), classes_), s, d);
        S.links.set(std::uint64_t{v} * ports_ + h.port());
        const bool out = outside(l.peer, p);
        if (out) {
          S.outside.set(l.peer);
          if (!have_first) {
            first = OutsideHop{s, d, v, h.port(), l.peer};
            have_first = true;
          }
        }
        S.path.push_back({v, c, out});
        if (S.path.size() > limit_) broken("routing loop", s, d);
        v = l.peer;
        c = h.next_class();
      }
      for (std::size_t i = S.path.size(); i-- > 0;) {
        const Scratch::Step& st = S.path[i];
        leaves = leaves || st.out_next;
        S.memo[slot(st.v, st.c)] = {tok, st.c, static_cast<std::uint8_t>(leaves)};
      }
      if (leaves) {
        ++r.leaving;
        if (have_first && r.examples.size() < ctx_.max_examples && !has_example(r.examples, first))
          r.examples.push_back(first);
      }
    }
  }

  const T& t_;
  VerifyContext ctx_;
  node_t pes_, nodes_;
  port_t ports_;
  class_t classes_;
  unsigned slots_;  // memo entries per node: a power of two, indexed by class mod slots
  std::uint64_t limit_;
  const std::uint32_t* part_of_;
  const std::uint8_t* shared_;  // nullptr in pass 1
  tbb::enumerable_thread_specific<Scratch> scratch_;
};

/// splitmix64: a fixed, portable sequence (std distributions differ between libraries).
std::uint64_t mix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<node_t> sample_of(const std::vector<node_t>& pes, unsigned count, std::uint64_t seed, std::uint32_t p) {
  if (count >= pes.size()) return pes;
  std::vector<node_t> v = pes;
  std::uint64_t s = seed ^ (0x5851f42d4c957f2dULL * (p + 1));
  for (unsigned i = 0; i < count; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(mix(s) % (v.size() - i));
    std::swap(v[i], v[j]);
  }
  v.resize(count);
  std::sort(v.begin(), v.end());
  return v;
}

enum class Method : std::uint8_t { symmetry, all, sample };

const char* method_name(Method m) {
  switch (m) {
    case Method::symmetry: return "exact-symmetry";
    case Method::all: return "exact-all-pairs";
    case Method::sample: return "sampled";
  }
  return "";
}

Method choose_method(const VerifyOptions& o, bool has_sym, std::uint64_t work) {
  switch (o.pairs) {
    case PairCheck::all: return Method::all;
    case PairCheck::sample: return Method::sample;
    case PairCheck::automatic: break;
  }
  if (has_sym) return Method::symmetry;
  return work <= o.all_pairs_limit ? Method::all : Method::sample;
}

/// Every node in the orbit of the keys under XOR of the address with submasks of `free`.
template <class Id>
void expand_xor(const std::vector<Id>& ids, node_t columns, std::uint64_t per_node, node_t free, std::vector<Id>& out) {
  std::vector<Id> keys;  // (node with free address bits cleared) * per_node + sub-id
  keys.reserve(ids.size());
  for (Id id : ids) {
    const std::uint64_t node = id / per_node, sub = id % per_node;
    const node_t addr = static_cast<node_t>(node / columns), col = static_cast<node_t>(node % columns);
    keys.push_back(static_cast<Id>((std::uint64_t{addr & ~free} * columns + col) * per_node + sub));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  out.clear();
  for (Id key : keys) {
    const std::uint64_t node = key / per_node, sub = key % per_node;
    const node_t addr = static_cast<node_t>(node / columns), col = static_cast<node_t>(node % columns);
    for (node_t c = free;; c = (c - 1) & free) {  // every submask of free
      out.push_back(static_cast<Id>((std::uint64_t{addr | c} * columns + col) * per_node + sub));
      if (c == 0) break;
    }
  }
  std::sort(out.begin(), out.end());
}

/// Verifies the layout's partitions and fills the plan (everything but spec-level fields).
template <TopologyModel T>
void verify_layout(const T& t, const Layout& L, const VerifyOptions& o, Method method, PartitionPlan& plan) {
  const node_t pes = t.pes(), nodes = t.nodes();
  const port_t ports = t.ports();
  plan.method = method_name(method);
  plan.seed = method == Method::sample ? o.seed : 0;
  plan.part_of = L.part_of;
  plan.local_of.assign(pes, no_node);
  plan.parts.assign(L.parts, Partition{});
  for (node_t v = 0; v < pes; ++v) {
    const std::uint32_t p = L.part_of[v];
    if (p == kNone) continue;
    plan.local_of[v] = static_cast<node_t>(plan.parts[p].pes.size());
    plan.parts[p].pes.push_back(v);
  }
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    Partition& P = plan.parts[p];
    P.shape = p < L.shapes.size() && !L.shapes[p].empty() ? L.shapes[p] : Shape{static_cast<std::uint32_t>(P.pes.size())};
    if (p < L.descriptions.size()) P.description = L.descriptions[p];
    const std::uint64_t n = P.pes.size();
    P.pairs = n * (n - 1);
  }

  std::vector<std::uint8_t> no_shared;
  VerifyContext ctx{&plan.part_of, &no_shared, o.max_examples};
  // The pairs each method routes. Sampling: every source to sampled destinations; in indirect
  // networks also sampled sources to every other destination, so that the switches near the
  // destinations are seen too (a shared switch is only found when both partitions' samples use it).
  const auto verify_one = [&](Verifier<T>& ver, std::uint32_t p) -> PartResult {
    const Partition& P = plan.parts[p];
    if (method == Method::symmetry) {
      std::vector<node_t> reps;  // one destination per column, at the partition's base address
      for (node_t c = 0; c < L.sym->columns; ++c) reps.push_back(P.pes.front() + c);
      return ver.run(p, P.pes, reps);
    }
    const std::vector<node_t> dsts =
        method == Method::sample ? sample_of(P.pes, o.sample_destinations, o.seed, p) : P.pes;
    if (dsts.size() == P.pes.size()) return ver.run(p, P.pes, P.pes);
    if (pes == nodes) return ver.run(p, P.pes, dsts);
    std::vector<node_t> rest;
    std::set_difference(P.pes.begin(), P.pes.end(), dsts.begin(), dsts.end(), std::back_inserter(rest));
    PartResult a = ver.run(p, P.pes, dsts);
    PartResult b = ver.run(p, sample_of(P.pes, o.sample_destinations, ~o.seed, p), rest);
    a.routed += b.routed;
    a.leaving += b.leaving;
    for (const OutsideHop& h : b.examples)
      if (a.examples.size() < o.max_examples && !has_example(a.examples, h)) a.examples.push_back(h);
    std::vector<link_id> links;
    std::set_union(a.links.begin(), a.links.end(), b.links.begin(), b.links.end(), std::back_inserter(links));
    a.links = std::move(links);
    std::vector<node_t> outside;
    std::set_union(a.outside.begin(), a.outside.end(), b.outside.begin(), b.outside.end(), std::back_inserter(outside));
    a.outside = std::move(outside);
    return a;
  };
  const auto apply = [&](std::uint32_t p, PartResult&& r, bool pass2) {
    Partition& P = plan.parts[p];
    P.pairs_routed = r.routed;
    if (method == Method::symmetry) {
      const node_t free = L.sym->free_mask[p];
      const std::uint64_t orbit = std::uint64_t{1} << std::popcount(free);
      P.leaving_pairs = r.leaving * orbit;
      P.pairs_covered = P.pairs;
      if (!pass2) expand_xor(r.links, L.sym->columns, ports, free, P.links);
      expand_xor(r.outside, L.sym->columns, 1, free, P.outside_nodes);
    } else {
      P.leaving_pairs = r.leaving;
      P.pairs_covered = method == Method::sample ? r.routed : P.pairs;
      if (!pass2) P.links = std::move(r.links);
      P.outside_nodes = std::move(r.outside);
    }
    P.examples = std::move(r.examples);
  };

  Verifier<T> ver(t, ctx);
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    if (plan.parts[p].pes.size() < 2) continue;
    apply(p, verify_one(ver, p), false);
  }

  // Owners: PEs belong to their partition; nodes and links to every partition whose routes use them.
  plan.node_owner.assign(nodes, kNone);
  plan.link_owner.assign(std::size_t{nodes} * ports, kNone);
  const auto claim = [](std::uint32_t& owner, std::uint32_t p) { owner = owner == kNone || owner == p ? p : kShared; };
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    Partition& P = plan.parts[p];
    std::vector<node_t> used = P.pes;
    for (link_id l : P.links) {
      claim(plan.link_owner[l], p);
      used.push_back(static_cast<node_t>(l / ports));
    }
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    for (node_t v : used) claim(plan.node_owner[v], p);
    P.nodes = std::move(used);
  }

  // Indirect networks: a switch that two partitions' routes share makes both open (pass 2
  // recounts the leaving pairs of the partitions that touch one).
  if (pes < nodes) {
    std::vector<std::uint8_t> shared(nodes, 0);
    bool any = false;
    for (node_t v = pes; v < nodes; ++v)
      if (plan.node_owner[v] == kShared) shared[v] = 1, any = true;
    if (any) {
      VerifyContext ctx2{&plan.part_of, &shared, o.max_examples};
      Verifier<T> ver2(t, ctx2);
      for (std::uint32_t p = 0; p < L.parts; ++p) {
        const Partition& P = plan.parts[p];
        if (P.pes.size() < 2) continue;
        if (std::none_of(P.nodes.begin(), P.nodes.end(), [&](node_t v) { return shared[v] != 0; })) continue;
        apply(p, verify_one(ver2, p), true);
      }
    }
  }
  for (Partition& P : plan.parts) {
    P.closed = P.leaving_pairs == 0 && P.outside_nodes.empty();
    P.isolated = P.closed;
  }
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    Partition& P = plan.parts[p];
    if (P.isolated)
      P.isolated = std::all_of(P.nodes.begin(), P.nodes.end(), [&](node_t v) { return plan.node_owner[v] == p; });
  }
}

std::uint64_t pair_work(const Layout& L) {
  std::vector<std::uint64_t> size(L.parts, 0);
  for (std::uint32_t p : L.part_of)
    if (p != kNone) ++size[p];
  std::uint64_t w = 0;
  for (std::uint64_t s : size) w += s * s;
  return w;
}

void check_size(const Topology& t) {
  const std::uint64_t slots = std::uint64_t{t.nodes()} * t.ports();
  if (slots > defaults::partition::max_link_slots)
    refuse(t, fmt::format("{} nodes x {} ports is more than the {} link slots a plan may have", t.nodes(), t.ports(),
                          defaults::partition::max_link_slots));
}

PartitionPlan plan_from(const Topology& t, const Layout& L, const VerifyOptions& o, Method m) {
  PartitionPlan plan;
  plan.spec = t.spec();
  plan.pes = t.pes();
  plan.nodes = t.nodes();
  plan.ports = t.ports();
  plan.direct = t.direct();
  plan.rule = L.rule;
  t.visit([&](const auto& concrete) { verify_layout(concrete, L, o, m, plan); });
  return plan;
}

std::string open_summary(const PartitionPlan& plan) {
  std::uint64_t leaving = 0, covered = 0;
  for (const Partition& P : plan.parts) {
    leaving += P.leaving_pairs;
    covered += P.pairs_covered;
  }
  return fmt::format("{} of {} closed, {} of {} pairs leave", plan.closed_count(), plan.parts.size(), leaving, covered);
}

double leaving_fraction(const PartitionPlan& plan) {
  std::uint64_t leaving = 0, covered = 0;
  for (const Partition& P : plan.parts) {
    leaving += P.leaving_pairs;
    covered += P.pairs_covered;
  }
  return covered ? static_cast<double>(leaving) / static_cast<double>(covered) : 0.0;
}

}  // namespace

// ---- Public API --------------------------------------------------------------------------------

bool PartitionPlan::all_closed() const noexcept {
  return std::all_of(parts.begin(), parts.end(), [](const Partition& p) { return p.closed; });
}

std::size_t PartitionPlan::closed_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(parts.begin(), parts.end(), [](const Partition& p) { return p.closed; }));
}

PartitionPlan partition(const Topology& t, const PartitionRequest& r) {
  const auto t0 = std::chrono::steady_clock::now();
  check_size(t);
  if (r.parts > t.pes()) refuse(t, fmt::format("--parts {} is more than the {} PEs", r.parts, t.pes()));
  if (r.verify.sample_destinations == 0) refuse(t, "the sample needs at least one destination per partition");
  // The family's own rule, when it has one (rica/topology/family.hpp); else the generic search.
  std::optional<Layout> layout;
  t.visit([&](const auto& family) {
    if constexpr (requires { family.partition_layout(t, r); }) layout = family.partition_layout(t, r);
  });
  if (layout) {
    const Method m = choose_method(r.verify, layout->sym.has_value(), pair_work(*layout));
    PartitionPlan plan = plan_from(t, *layout, r.verify, m);
    plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return plan;
  }

  // Generic search: the first candidate verified closed, else the least open one. Large
  // candidates are screened on a small destination sample first (an open verdict there is final).
  auto cands = search_candidates(t, r);
  if (cands.empty()) refuse(t, "no candidate partition fits");
  std::vector<std::string> log;
  std::optional<PartitionPlan> best;
  double best_frac = 2.0;
  std::size_t best_i = 0;
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Layout& L = cands[i].second;
    const std::uint64_t work = pair_work(L);
    const Method m = choose_method(r.verify, false, work);
    if (work > (1ULL << 24) && cands.size() > 1) {
      VerifyOptions screen = r.verify;
      screen.sample_destinations = std::min(4u, r.verify.sample_destinations);
      const PartitionPlan s = plan_from(t, L, screen, Method::sample);
      if (!s.all_closed()) {
        const double f = leaving_fraction(s);
        log.push_back(fmt::format("{}: open ({}; screened on a sample)", cands[i].first, open_summary(s)));
        if (f < best_frac) best_frac = f, best_i = i, best.reset();
        continue;
      }
    }
    PartitionPlan plan = plan_from(t, L, r.verify, m);
    if (plan.all_closed()) {
      log.push_back(fmt::format("{}: closed", cands[i].first));
      plan.search = std::move(log);
      plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      return plan;
    }
    log.push_back(fmt::format("{}: open ({})", cands[i].first, open_summary(plan)));
    const double f = leaving_fraction(plan);
    if (f < best_frac) {
      best_frac = f;
      best_i = i;
      best = std::move(plan);
    }
  }
  if (!best) {
    const Layout& L = cands[best_i].second;
    best = plan_from(t, L, r.verify, choose_method(r.verify, false, pair_work(L)));
  }
  best->search = std::move(log);
  best->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return *std::move(best);
}

PartitionPlan verify_partitions(const Topology& t, const std::vector<std::vector<node_t>>& sets, const VerifyOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  check_size(t);
  Layout L;
  L.rule = "explicit";
  L.parts = static_cast<std::uint32_t>(sets.size());
  L.part_of.assign(t.pes(), kNone);
  for (std::uint32_t p = 0; p < L.parts; ++p) {
    if (sets[p].empty()) refuse(t, fmt::format("partition {} is empty", p));
    for (node_t v : sets[p]) {
      if (v >= t.pes()) refuse(t, fmt::format("partition {}: node {} is not a PE (PEs are 0..{})", p, v, t.pes() - 1));
      if (L.part_of[v] != kNone)
        refuse(t, fmt::format("PE {} is in partitions {} and {}", t.label(v), L.part_of[v], p));
      L.part_of[v] = p;
    }
  }
  for (const auto& s : sets) {  // compact id ranges as the description
    std::vector<node_t> v = s;
    std::sort(v.begin(), v.end());
    std::string d;
    for (std::size_t i = 0; i < v.size();) {
      std::size_t j = i;
      while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
      if (d.size() > 60) {
        d += ",...";
        break;
      }
      d += d.empty() ? "ids " : ",";
      d += range_text(v[i], v[j] + 1);
      i = j + 1;
    }
    L.descriptions.push_back(std::move(d));
  }
  const Method m = choose_method(o, false, pair_work(L));
  PartitionPlan plan = plan_from(t, L, o, m);
  plan.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return plan;
}

namespace {
unsigned parse_uint(std::string_view s, const char* what) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    throw usage_error(fmt::format("{}: '{}' is not a non-negative integer", what, s));
  unsigned v = 0;
  for (char c : s) v = v * 10 + static_cast<unsigned>(c - '0');
  return v;
}
}  // namespace

std::vector<DimCut> parse_dim_cuts(std::string_view text) {
  std::vector<DimCut> out;
  if (text.empty()) throw usage_error("--dims: empty; give D or D:B entries, e.g. 2:1,1:1");
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string_view item = text.substr(pos, end - pos);
    const std::size_t colon = item.find(':');
    DimCut c;
    c.dim = parse_uint(item.substr(0, colon), "--dims (expected D or D:B, e.g. 2:1,1:1)");
    if (colon != std::string_view::npos) {
      c.bits = parse_uint(item.substr(colon + 1), "--dims (expected D or D:B, e.g. 2:1,1:1)");
      if (c.bits == 0) throw usage_error(fmt::format("--dims {}: bits must be at least 1", item));
    }
    out.push_back(c);
    pos = end + 1;
  }
  return out;
}

AxisCut parse_axis_cut(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) throw usage_error(fmt::format("--cut '{}': expected D=c1[,c2...], e.g. 0=5", text));
  AxisCut c;
  c.dim = parse_uint(text.substr(0, eq), "--cut (expected D=c1[,c2...])");
  std::string_view rest = text.substr(eq + 1);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    const std::size_t end = std::min(rest.find(',', pos), rest.size());
    c.at.push_back(parse_uint(rest.substr(pos, end - pos), "--cut (expected D=c1[,c2...])"));
    pos = end + 1;
  }
  return c;
}

nlohmann::json to_json(const PartitionPlan& plan, const Topology& t, bool with_routers) {
  using nlohmann::json;
  json parts = json::array();
  for (std::size_t i = 0; i < plan.parts.size(); ++i) {
    const Partition& P = plan.parts[i];
    json ex = json::array();
    for (const OutsideHop& h : P.examples)
      ex.push_back({{"src", t.label(h.src)}, {"dst", t.label(h.dst)}, {"from", t.label(h.from)}, {"port", h.port},
                    {"to", t.label(h.to)}});
    std::size_t switches = 0;
    for (node_t v : P.nodes) switches += v >= plan.pes ? 1 : 0;
    json j = {{"index", i},
              {"size", P.pes.size()},
              {"description", P.description},
              {"shape", P.shape},
              {"closed", P.closed},
              {"isolated", P.isolated},
              {"pes", P.pes},
              {"nodes_used", P.nodes.size()},
              {"switches_used", switches},
              {"links_used", P.links.size()},
              {"pairs", P.pairs},
              {"pairs_routed", P.pairs_routed},
              {"pairs_covered", P.pairs_covered},
              {"leaving_pairs", P.leaving_pairs},
              {"outside_nodes", P.outside_nodes.size()},
              {"outside_examples", ex}};
    if (with_routers) {
      j["nodes"] = P.nodes;
      j["links"] = P.links;
    }
    parts.push_back(std::move(j));
  }
  json out = {{"topology", plan.spec},  {"pes", plan.pes},          {"nodes", plan.nodes},
              {"direct", plan.direct},  {"rule", plan.rule},        {"method", plan.method},
              {"parts", plan.parts.size()}, {"closed", plan.closed_count()}, {"all_closed", plan.all_closed()},
              {"seconds", plan.seconds}, {"partitions", parts}};
  if (plan.method == "sampled") out["seed"] = plan.seed;
  if (!plan.search.empty()) out["search"] = plan.search;
  return out;
}

}  // namespace rica
