// Stencil (stencil.hpp): Jacobi heat diffusion with halo exchange by active messages.
#include "stencil.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "rica/core.hpp"

namespace rica::kernels {
namespace {

// Directions: W, E, S, N, SW, NE, SE, NW (y grows "north"); opposite(d) = d ^ 1. The 5-point
// stencil uses the first 4.
constexpr int dir_x[8] = {-1, 1, 0, 0, -1, 1, 1, -1};
constexpr int dir_y[8] = {0, 0, -1, 1, -1, 1, -1, 1};

/// A rectangle of a tile buffer (halo included: tile cell (x, y) is buffer cell (x + 1, y + 1)).
struct Region {
  std::uint32_t c0, c1, r0, r1;
};

/// The cells a rank sends to its neighbour in direction d (its edge, row or corner on that side).
Region source_region(std::uint32_t w, std::uint32_t h, unsigned d) {
  const auto span = [](int dir, std::uint32_t n) -> std::pair<std::uint32_t, std::uint32_t> {
    return dir > 0 ? std::pair{n, n + 1} : dir < 0 ? std::pair{1u, 2u} : std::pair{1u, n + 1};
  };
  const auto [c0, c1] = span(dir_x[d], w);
  const auto [r0, r1] = span(dir_y[d], h);
  return {c0, c1, r0, r1};
}

/// Where a rank stores what its neighbour sent in direction d (the halo on the opposite side).
Region halo_region(std::uint32_t w, std::uint32_t h, unsigned d) {
  const auto span = [](int dir, std::uint32_t n) -> std::pair<std::uint32_t, std::uint32_t> {
    return dir > 0 ? std::pair{0u, 1u} : dir < 0 ? std::pair{n + 1, n + 2} : std::pair{1u, n + 1};
  };
  const auto [c0, c1] = span(dir_x[d], w);
  const auto [r0, r1] = span(dir_y[d], h);
  return {c0, c1, r0, r1};
}

std::uint64_t bits(double v) noexcept { return std::bit_cast<std::uint64_t>(v); }
double from_bits(std::uint64_t b) noexcept { return std::bit_cast<double>(b); }

std::uint32_t tile_begin(std::uint32_t i, std::uint32_t cells, std::uint32_t parts) noexcept {
  return static_cast<std::uint32_t>(std::uint64_t{i} * cells / parts);
}

}  // namespace

Boundary parse_boundary(const std::string& text, const std::string& what) {
  if (text == "periodic") return Boundary::periodic;
  if (text == "fixed") return Boundary::fixed;
  throw usage_error(fmt::format("{}: boundary '{}' is not one of: periodic, fixed", what, text));
}

const char* boundary_name(Boundary b) noexcept { return b == Boundary::periodic ? "periodic" : "fixed"; }

void StencilConfig::validate(node_t pes) const {
  const std::string what = "stencil";
  detail::check_range(what, "grid (x side)", gx, 1, 1 << 24);
  detail::check_range(what, "grid (y side)", gy, 1, 1 << 24);
  if (points != 5 && points != 9)
    throw usage_error(fmt::format("stencil: points = {} is not one of: 5, 9", points));
  detail::check_range(what, "iterations", iterations, 1, 1 << 24);
  detail::check_range(what, "values-per-packet", values_per_packet, 1, 2);
  if (!(coefficient > 0.0 && coefficient <= 0.25))
    throw usage_error(fmt::format("stencil: coefficient = {} is out of range (0, 0.25]", coefficient));
  const ProcessGrid g = resolve_grid(pgrid, pes, what);
  if (gx < g.px || gy < g.py)
    throw usage_error(fmt::format("stencil: grid {}x{} is smaller than the process grid {}x{}; every PE needs at "
                                  "least one cell (grid sides >= process grid sides)", gx, gy, g.px, g.py));
  // Two tile buffers with halos per rank, the serial reference (two grids with halos) and the
  // halo inboxes (<= 2 parities x the perimeter, 24 bytes a packet).
  const double cells = (static_cast<double>(gx) + 2.0 * g.px) * (static_cast<double>(gy) + 2.0 * g.py);
  const double ref = (gx + 2.0) * (gy + 2.0);
  const double halo = 2.0 * 24.0 * (2.0 * gx * g.py + 2.0 * gy * g.px + 4.0 * pes);
  check_memory(fmt::format("stencil: grid {}x{}", gx, gy), 16.0 * cells + 16.0 * ref + halo + 512.0 * pes);
  // Per-source sequence numbers (32 bits) name a rank's halo packets: all of a run's must fit.
  const std::uint64_t perimeter = 2ULL * ((gx + g.px - 1) / g.px + 1) + 2ULL * ((gy + g.py - 1) / g.py + 1) + 4;
  if (perimeter * iterations >= (std::uint64_t{1} << 32))
    throw usage_error(fmt::format("stencil: {} iterations of {}-cell halos exceed the 2^32 packets a PE can name; "
                                  "use fewer iterations", iterations, perimeter));
}

nlohmann::json StencilConfig::json() const {
  return {{"grid", fmt::format("{}x{}", gx, gy)},
          {"points", points},
          {"iterations", iterations},
          {"values_per_packet", values_per_packet},
          {"boundary", boundary_name(boundary)},
          {"map", map_name(map)},
          {"pgrid", pgrid.size() ? fmt::format("{}x{}", pgrid.px, pgrid.py) : "auto"},
          {"coefficient", coefficient}};
}

void stencil_row(const double* up, const double* mid, const double* down, double* out, std::uint32_t w,
                 unsigned points, double c) noexcept {
  if (points == 5) {
    for (std::uint32_t i = 0; i < w; ++i) {
      const double u = mid[i + 1];
      out[i] = u + c * (((mid[i] + mid[i + 2]) + (down[i + 1] + up[i + 1])) - 4.0 * u);
    }
  } else {
    for (std::uint32_t i = 0; i < w; ++i) {
      const double u = mid[i + 1];
      const double edge = (mid[i] + mid[i + 2]) + (down[i + 1] + up[i + 1]);
      const double corner = (down[i] + down[i + 2]) + (up[i] + up[i + 2]);
      out[i] = u + c * ((4.0 * edge + corner - 20.0 * u) / 6.0);
    }
  }
}

double stencil_initial(std::uint64_t seed, std::uint32_t x, std::uint32_t y) noexcept {
  std::uint64_t z = (seed ^ 0x5374656e63696c21ULL) + ((std::uint64_t{y} << 32 | x) + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

std::vector<double> stencil_reference(const StencilConfig& c, std::uint64_t seed) {
  const std::size_t W = std::size_t{c.gx} + 2, H = std::size_t{c.gy} + 2;
  std::vector<double> cur(W * H, 0.0), next(W * H, 0.0);
  for (std::uint32_t y = 0; y < c.gy; ++y)
    for (std::uint32_t x = 0; x < c.gx; ++x) cur[(y + 1) * W + x + 1] = stencil_initial(seed, x, y);
  for (std::uint32_t t = 0; t < c.iterations; ++t) {
    if (c.boundary == Boundary::periodic) {  // the halo ring wraps (fixed: it stays 0)
      for (std::size_t y = 1; y + 1 < H; ++y) {
        cur[y * W] = cur[y * W + c.gx];
        cur[y * W + W - 1] = cur[y * W + 1];
      }
      for (std::size_t x = 0; x < W; ++x) {
        cur[x] = cur[c.gy * W + x];
        cur[(H - 1) * W + x] = cur[W + x];
      }
    }
    for (std::size_t y = 1; y + 1 < H; ++y)
      stencil_row(&cur[(y - 1) * W], &cur[y * W], &cur[(y + 1) * W], &next[y * W + 1], c.gx, c.points,
                  c.coefficient);
    std::swap(cur, next);
  }
  std::vector<double> out(std::size_t{c.gx} * c.gy);
  for (std::uint32_t y = 0; y < c.gy; ++y)
    for (std::uint32_t x = 0; x < c.gx; ++x) out[std::size_t{y} * c.gx + x] = cur[(y + 1) * W + x + 1];
  return out;
}

// ---- Stencil ---------------------------------------------------------------------------------------

std::uint32_t Stencil::halo_length(const Rank& s, unsigned d) const noexcept {
  return (dir_x[d] ? 1 : s.w) * (dir_y[d] ? 1 : s.h);
}

// Single-threaded, before the run: decomposition, neighbours, handlers, the exact send bound.
void Stencil::setup(Machine& m) {
  cfg_.validate(m.pes());
  seed_ = m.seed();
  grid_ = resolve_grid(cfg_.pgrid, m.pes(), "stencil");
  map_ = ProcessMap(cfg_.map, grid_, Pattern::grid2d, m.topology(), m.pes(), seed_);
  dirs_ = cfg_.points == 9 ? 8 : 4;
  for (unsigned par = 0; par < 2; ++par)
    for (unsigned d = 0; d < 8; ++d)
      handler_[par][d] = m.add_handler([this, par, d](Context& ctx, const Packet& p) { on_halo(ctx, p, par, d); });
  const node_t n = m.pes();
  ranks_ = std::vector<Rank>(n);
  max_sends_ = 0;
  for (node_t r = 0; r < n; ++r) {
    Rank& s = ranks_[r];
    const std::uint32_t i = r % grid_.px, j = r / grid_.px;
    s.x0 = tile_begin(i, cfg_.gx, grid_.px);
    s.y0 = tile_begin(j, cfg_.gy, grid_.py);
    s.w = tile_begin(i + 1, cfg_.gx, grid_.px) - s.x0;
    s.h = tile_begin(j + 1, cfg_.gy, grid_.py) - s.y0;
    s.nb.fill(no_node);
    for (unsigned d = 0; d < dirs_; ++d) {
      std::int64_t ni = static_cast<std::int64_t>(i) + dir_x[d], nj = static_cast<std::int64_t>(j) + dir_y[d];
      if (cfg_.boundary == Boundary::periodic) {
        ni = (ni + grid_.px) % grid_.px;
        nj = (nj + grid_.py) % grid_.py;
      } else if (ni < 0 || nj < 0 || ni >= grid_.px || nj >= grid_.py) {
        continue;  // outside the grid: that halo stays 0
      }
      s.nb[d] = static_cast<node_t>(ni + std::int64_t{grid_.px} * nj);
    }
    // Per iteration: one packet stream per remote neighbour out, one per remote neighbour in
    // (what arrives tagged d comes from the neighbour on the opposite side).
    std::uint64_t out = 0;
    s.need = 0;
    for (unsigned d = 0; d < dirs_; ++d) {
      if (s.nb[d] != no_node && s.nb[d] != r) out += chunks(halo_length(s, d));
      const node_t from = s.nb[d ^ 1];
      if (from != no_node && from != r) s.need += chunks(halo_length(s, d));
    }
    s.join[0].need = s.join[1].need = s.need;
    max_sends_ = std::max(max_sends_, out * cfg_.iterations);
    const std::size_t cells = (std::size_t{s.w} + 2) * (s.h + 2);
    s.cur.assign(cells, 0.0);
    s.next.assign(cells, 0.0);
  }
}

// On the rank's PE, before any of its handlers: u0, then the halos of iteration 0.
void Stencil::start(Context& ctx) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  const std::size_t W = std::size_t{s.w} + 2;
  for (std::uint32_t y = 0; y < s.h; ++y)
    for (std::uint32_t x = 0; x < s.w; ++x) s.cur[(y + 1) * W + x + 1] = stencil_initial(seed_, s.x0 + x, s.y0 + y);
  send_halos(ctx, r, s);
  advance(ctx, r, s);
}

// The halos of the current state (iteration s.completed) to every neighbour; self-neighbours
// (a periodic side of one rank) are copied straight into the own halo.
void Stencil::send_halos(Context& ctx, node_t rank, Rank& s) {
  const std::size_t W = std::size_t{s.w} + 2;
  const unsigned par = s.completed & 1;
  for (unsigned d = 0; d < dirs_; ++d) {
    const node_t nb = s.nb[d];
    if (nb == no_node) continue;
    const Region src = source_region(s.w, s.h, d);
    if (nb == rank) {
      const Region dst = halo_region(s.w, s.h, d);
      for (std::uint32_t y = 0; y < src.r1 - src.r0; ++y)
        for (std::uint32_t x = 0; x < src.c1 - src.c0; ++x)
          s.cur[(dst.r0 + y) * W + dst.c0 + x] = s.cur[(src.r0 + y) * W + src.c0 + x];
      continue;
    }
    const node_t pe = map_.pe(nb);
    std::uint64_t word[2] = {0, 0};
    unsigned k = 0;
    for (std::uint32_t y = src.r0; y < src.r1; ++y)
      for (std::uint32_t x = src.c0; x < src.c1; ++x) {
        word[k++] = bits(s.cur[y * W + x]);
        if (k == cfg_.values_per_packet) {
          ctx.send(pe, handler_[par][d], word[0], word[1]);
          ++s.sent;
          word[0] = word[1] = 0;
          k = 0;
        }
      }
    if (k) {
      ctx.send(pe, handler_[par][d], word[0], word[1]);
      ++s.sent;
    }
  }
}

// Handler (parity, d): one packet of the halo a neighbour sent in direction d.
void Stencil::on_halo(Context& ctx, const Packet& p, unsigned parity, unsigned dir) {
  const node_t r = map_.rank(ctx.pe());
  Rank& s = ranks_[r];
  ++s.received;
  auto& box = s.inbox[parity][dir];
  const node_t from = s.nb[dir ^ 1];
  if (from == no_node || from == r || box.size() >= chunks(halo_length(s, dir))) {
    ++s.stray;  // not a halo this rank expects: a bug, reported by verify()
    return;
  }
  box.push_back({p.seq, p.payload[0], p.payload[1]});
  if (s.join[parity].arrive()) {
    s.ready[parity] = true;
    advance(ctx, r, s);
  }
}

// Places the halo packets of one parity in the current state's halo ring, in the sender's order.
void Stencil::unpack(Rank& s, unsigned parity) {
  const std::size_t W = std::size_t{s.w} + 2;
  for (unsigned d = 0; d < dirs_; ++d) {
    auto& box = s.inbox[parity][d];
    if (box.empty()) continue;
    const auto by_seq = [](const Chunk& a, const Chunk& b) { return a.seq < b.seq; };
    if (!std::is_sorted(box.begin(), box.end(), by_seq)) std::sort(box.begin(), box.end(), by_seq);
    const Region dst = halo_region(s.w, s.h, d);
    std::uint32_t x = dst.c0, y = dst.r0;
    std::size_t left = std::size_t{dst.c1 - dst.c0} * (dst.r1 - dst.r0);
    const auto put = [&](std::uint64_t word) {  // the next halo cell, in the sender's edge order
      s.cur[y * W + x] = from_bits(word);
      if (++x == dst.c1) {
        x = dst.c0;
        ++y;
      }
      return --left != 0;
    };
    for (const Chunk& c : box)
      if (!put(c.w0) || (cfg_.values_per_packet == 2 && !put(c.w1))) break;
    box.clear();
  }
}

void Stencil::compute(Rank& s) const {
  const std::size_t W = std::size_t{s.w} + 2;
  for (std::size_t y = 1; y <= s.h; ++y)
    stencil_row(&s.cur[(y - 1) * W], &s.cur[y * W], &s.cur[(y + 1) * W], &s.next[y * W + 1], s.w, cfg_.points,
                cfg_.coefficient);
  std::swap(s.cur, s.next);  // the halo ring of the new `cur` is refilled before its next use
}

// Computes every iteration whose halos are complete; sends the next halos after each.
void Stencil::advance(Context& ctx, node_t rank, Rank& s) {
  while (s.completed < cfg_.iterations) {
    const unsigned par = s.completed & 1;
    if (s.need && !s.ready[par]) return;
    s.ready[par] = false;
    unpack(s, par);
    compute(s);
    if (++s.completed < cfg_.iterations) {
      send_halos(ctx, rank, s);
    } else {
      s.finish = ctx.now();
    }
  }
}

double Stencil::value(std::uint32_t x, std::uint32_t y) const {
  // The tile holding a cell: the last i with tile_begin(i) <= coordinate.
  const auto tile_of = [](std::uint32_t v, std::uint32_t cells, std::uint32_t parts) {
    std::uint32_t lo = 0, hi = parts - 1;
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo + 1) / 2;
      if (tile_begin(mid, cells, parts) <= v) lo = mid; else hi = mid - 1;
    }
    return lo;
  };
  const Rank& s = ranks_[tile_of(x, cfg_.gx, grid_.px) + grid_.px * tile_of(y, cfg_.gy, grid_.py)];
  return s.cur[(y - s.y0 + 1) * (std::size_t{s.w} + 2) + (x - s.x0 + 1)];
}

std::uint64_t Stencil::messages() const {
  std::uint64_t n = 0;
  for (const Rank& s : ranks_) n += s.sent;
  return n;
}

std::uint64_t Stencil::finish_time() const {
  std::uint64_t t = 0;
  for (const Rank& s : ranks_) t = std::max(t, s.finish);
  return t;
}

// Single-threaded, after the run: every rank finished, and every cell equals the serial
// reference bit for bit.
bool Stencil::verify(std::string& why) const {
  for (node_t r = 0; r < ranks_.size(); ++r) {
    const Rank& s = ranks_[r];
    if (s.stray) {
      why = fmt::format("stencil: rank {} got {} unexpected halo packets", r, s.stray);
      return false;
    }
    if (s.completed != cfg_.iterations) {
      why = fmt::format("stencil: rank {} (PE {}) completed {} of {} iterations", r, map_.pe(r), s.completed,
                        cfg_.iterations);
      return false;
    }
  }
  const std::vector<double> ref = stencil_reference(cfg_, seed_);
  for (const Rank& s : ranks_) {
    const std::size_t W = std::size_t{s.w} + 2;
    for (std::uint32_t y = 0; y < s.h; ++y)
      for (std::uint32_t x = 0; x < s.w; ++x) {
        const double got = s.cur[(y + 1) * W + x + 1];
        const double want = ref[std::size_t{s.y0 + y} * cfg_.gx + s.x0 + x];
        if (bits(got) != bits(want)) {
          why = fmt::format("stencil: cell ({}, {}) = {:.17g} after {} iterations, the serial reference has {:.17g}",
                            s.x0 + x, s.y0 + y, got, cfg_.iterations, want);
          return false;
        }
      }
  }
  return true;
}

// Under mpirun: the state of the rank on PE pe that verify() and summary() read moves to rank 0.
std::string Stencil::pe_result(node_t pe) const {
  std::string out;
  const node_t r = map_.rank(pe);
  if (r == no_node || r >= ranks_.size()) return out;
  const Rank& s = ranks_[r];
  detail::put_bytes(out, s.cur);
  detail::put_bytes(out, s.completed);
  detail::put_bytes(out, s.sent);
  detail::put_bytes(out, s.received);
  detail::put_bytes(out, s.stray);
  detail::put_bytes(out, s.finish);
  return out;
}
void Stencil::merge_pe_result(node_t pe, const std::string& bytes) {
  const node_t r = map_.rank(pe);
  if (bytes.empty() || r == no_node || r >= ranks_.size()) return;
  Rank& s = ranks_[r];
  detail::ByteReader in{bytes};
  in.get(s.cur);
  in.get(s.completed);
  in.get(s.sent);
  in.get(s.received);
  in.get(s.stray);
  in.get(s.finish);
}

nlohmann::json Stencil::summary() const {
  nlohmann::json j = cfg_.json();
  j["app"] = "stencil";
  j["pgrid"] = fmt::format("{}x{}", grid_.px, grid_.py);
  j["map_resolved"] = map_.resolved();
  std::uint32_t wmin = ~0u, wmax = 0, hmin = ~0u, hmax = 0;
  double sum = 0;
  for (const Rank& s : ranks_) {
    wmin = std::min(wmin, s.w), wmax = std::max(wmax, s.w);
    hmin = std::min(hmin, s.h), hmax = std::max(hmax, s.h);
    const std::size_t W = std::size_t{s.w} + 2;
    for (std::uint32_t y = 0; y < s.h; ++y)
      for (std::uint32_t x = 0; x < s.w; ++x) sum += s.cur[(y + 1) * W + x + 1];
  }
  j["tile_min"] = fmt::format("{}x{}", wmin, hmin);
  j["tile_max"] = fmt::format("{}x{}", wmax, hmax);
  j["messages"] = messages();
  j["finish"] = finish_time();
  j["field_sum"] = sum;
  j["check"] = "bitwise equal to the serial reference";
  return j;
}

}  // namespace rica::kernels
