// cg (cg.hpp): conjugate gradient with halo SpMV and two allreduces per iteration, registered as
// the application "cg".
#include "cg.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "app_registry.hpp"
#include "process_map.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"

namespace rica::hpc {

void poisson_apply(const double* p, double* q, std::uint32_t w, std::uint32_t h) noexcept {
  const std::size_t W = w + 2;
  for (std::uint32_t y = 0; y < h; ++y)
    for (std::uint32_t x = 0; x < w; ++x) {
      const std::size_t c = (y + 1) * W + x + 1;
      q[std::size_t{y} * w + x] = 4.0 * p[c] - p[c - 1] - p[c + 1] - p[c - W] - p[c + W];
    }
}

double dot_ordered(const double* a, const double* b, std::size_t n) noexcept {
  double s = 0.0;
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

namespace {

double cg_b(std::uint64_t seed, std::uint32_t m, std::uint32_t x, std::uint32_t y) {
  return hashed_uniform(seed, 2, x + std::uint64_t{m} * y);
}

/// The serial CG over `tiles` (each a rectangle of the grid, in rank order): dot products as
/// per-tile partials combined by `combine`.
struct Tile {
  std::uint32_t x0, y0, w, h;
};
CgResult run_serial(const CgConfig& c, std::uint64_t seed, const std::vector<Tile>& tiles,
                    const std::function<double(const std::vector<double>&)>& combine) {
  const std::uint32_t m = c.m;
  const std::size_t n = std::size_t{m} * m;
  std::vector<double> x(n, 0.0), r(n), p(n), q(n);
  for (std::uint32_t y = 0; y < m; ++y)
    for (std::uint32_t xx = 0; xx < m; ++xx) r[std::size_t{y} * m + xx] = cg_b(seed, m, xx, y);
  p = r;
  // Tile-local copies so every dot product runs over a tile in its row-major order.
  auto dot = [&](const std::vector<double>& a, const std::vector<double>& b) {
    std::vector<double> parts;
    std::vector<double> ta, tb;
    for (const Tile& t : tiles) {
      ta.clear(), tb.clear();
      for (std::uint32_t y = 0; y < t.h; ++y)
        for (std::uint32_t xx = 0; xx < t.w; ++xx) {
          ta.push_back(a[std::size_t{t.y0 + y} * m + t.x0 + xx]);
          tb.push_back(b[std::size_t{t.y0 + y} * m + t.x0 + xx]);
        }
      parts.push_back(dot_ordered(ta.data(), tb.data(), ta.size()));
    }
    return combine(parts);
  };
  CgResult out;
  double rr = dot(r, r);
  out.r0 = std::sqrt(rr);
  std::vector<double> ph(std::size_t{m + 2} * (m + 2), 0.0);
  for (std::uint32_t k = 0; k < c.iterations; ++k) {
    for (std::uint32_t y = 0; y < m; ++y)
      std::memcpy(&ph[std::size_t{y + 1} * (m + 2) + 1], &p[std::size_t{y} * m], m * sizeof(double));
    poisson_apply(ph.data(), q.data(), m, m);
    const double alpha = rr / dot(p, q);
    for (std::size_t i = 0; i < n; ++i) x[i] += alpha * p[i];
    for (std::size_t i = 0; i < n; ++i) r[i] -= alpha * q[i];
    const double rr2 = dot(r, r);
    const double beta = rr2 / rr;
    rr = rr2;
    for (std::size_t i = 0; i < n; ++i) p[i] = r[i] + beta * p[i];
    out.residuals.push_back(std::sqrt(rr));
  }
  out.x = std::move(x);
  return out;
}

std::vector<Tile> tiles_of(std::uint32_t m, std::uint32_t px, std::uint32_t py) {
  std::vector<Tile> t;
  for (std::uint32_t j = 0; j < py; ++j)
    for (std::uint32_t i = 0; i < px; ++i) {
      const std::uint32_t x0 = static_cast<std::uint32_t>(std::uint64_t{i} * m / px);
      const std::uint32_t x1 = static_cast<std::uint32_t>(std::uint64_t{i + 1} * m / px);
      const std::uint32_t y0 = static_cast<std::uint32_t>(std::uint64_t{j} * m / py);
      const std::uint32_t y1 = static_cast<std::uint32_t>(std::uint64_t{j + 1} * m / py);
      t.push_back({x0, y0, x1 - x0, y1 - y0});
    }
  return t;
}

}  // namespace

CgResult cg_reference(const CgConfig& c, std::uint64_t seed, std::uint32_t px, std::uint32_t py) {
  const std::uint32_t p = px * py;
  std::vector<node_t> members(p);
  for (std::uint32_t r = 0; r < p; ++r) members[r] = r;
  const CollExec ar(spec_of(coll::Kind::allreduce, c.allreduce, p, 8), members);
  return run_serial(c, seed, tiles_of(c.m, px, py), [&](const std::vector<double>& parts) {
    std::vector<Blocks> data;
    for (std::uint32_t r = 0; r < p; ++r) data.push_back(ar.scalar(r, word_of(parts[r])));
    ar.serial(data, add_doubles);
    const std::uint64_t v = ar.scalar_result(data[0]);
    for (std::uint32_t r = 1; r < p; ++r)
      if (ar.scalar_result(data[r]) != v) throw std::logic_error("cg: the allreduce leaves ranks with different sums");
    return double_of(v);
  });
}

CgResult cg_plain(const CgConfig& c, std::uint64_t seed) {
  return run_serial(c, seed, tiles_of(c.m, 1, 1), [](const std::vector<double>& parts) { return parts[0]; });
}

void Cg::setup(Machine& m) {
  seed_ = m.seed();
  const kernels::ProcessGrid g = kernels::square_grid(m.pes());
  px_ = g.px, py_ = g.py;
  if (cfg_.m < px_ || cfg_.m < py_)
    throw usage_error(fmt::format("app 'cg': m = {} is smaller than the {}x{} process grid (every rank needs a cell)",
                                  cfg_.m, px_, py_));
  const node_t p = m.pes();
  std::vector<node_t> members(p);
  for (node_t r = 0; r < p; ++r) members[r] = r;
  ar_ = std::make_unique<CollExec>(spec_of(coll::Kind::allreduce, cfg_.allreduce, p, 8),
                                   members);
  steps_ = std::max<std::uint32_t>(1, ar_->steps());  // a round even when there is nothing to reduce (p = 1)
  rounds_ = steps_ + std::uint64_t{cfg_.iterations} * (1 + 2 * steps_);
  // Allreduces are global steps and the halo is between neighbours that both passed the last
  // allreduce: no rank runs more than 1 + 2 steps_ rounds ahead of another.
  setup_rounds(m, p, std::min<unsigned>(4096, 2 * (1 + 2 * steps_) + 2));
  const auto tiles = tiles_of(cfg_.m, px_, py_);
  ranks_.assign(p, Rank{});
  for (node_t rk = 0; rk < p; ++rk) {
    Rank& s = ranks_[rk];
    const std::uint32_t i = rk % px_, j = rk / px_;
    s.x0 = tiles[rk].x0, s.y0 = tiles[rk].y0, s.w = tiles[rk].w, s.h = tiles[rk].h;
    s.nb[0] = i > 0 ? rk - 1 : no_node;
    s.nb[1] = i + 1 < px_ ? rk + 1 : no_node;
    s.nb[2] = j > 0 ? rk - px_ : no_node;
    s.nb[3] = j + 1 < py_ ? rk + px_ : no_node;
    const std::size_t n = std::size_t{s.w} * s.h;
    s.x.assign(n, 0.0), s.q.assign(n, 0.0), s.b.resize(n);
    s.p.assign(std::size_t{s.w + 2} * (s.h + 2), 0.0);
    for (std::uint32_t y = 0; y < s.h; ++y)
      for (std::uint32_t x = 0; x < s.w; ++x) {
        s.b[std::size_t{y} * s.w + x] = cg_b(seed_, cfg_.m, s.x0 + x, s.y0 + y);
        s.p[std::size_t{y + 1} * (s.w + 2) + x + 1] = s.b[std::size_t{y} * s.w + x];
      }
    s.r = s.b;
    s.v = dot_ordered(s.r.data(), s.r.data(), n);
  }
}

Cg::Phase Cg::phase(std::uint64_t round) const {
  if (round < steps_) return {0, 0, static_cast<std::uint32_t>(round)};
  const std::uint64_t u = round - steps_, per = 1 + 2 * steps_;
  const auto k = static_cast<std::uint32_t>(u / per), at = static_cast<std::uint32_t>(u % per);
  if (at == 0) return {1, k, 0};
  return at <= steps_ ? Phase{2, k, at - 1} : Phase{3, k, at - 1 - steps_};
}

std::uint64_t Cg::enter(Context& ctx, std::uint64_t round) {
  Rank& s = ranks_[ctx.pe()];
  const Phase ph = phase(round);
  if (ph.kind == 1) {  // the halo of p: W and E columns, S and N rows of the tile
    std::uint64_t expect = 0;
    const std::size_t W = s.w + 2;
    for (int d = 0; d < 4; ++d) {
      if (s.nb[d] == no_node) continue;
      std::vector<double> edge;
      if (d < 2) {
        const std::uint32_t x = d == 0 ? 1 : s.w;
        for (std::uint32_t y = 1; y <= s.h; ++y) edge.push_back(s.p[y * W + x]);
      } else {
        const std::uint32_t y = d == 2 ? 1 : s.h;
        for (std::uint32_t x = 1; x <= s.w; ++x) edge.push_back(s.p[y * W + x]);
      }
      ex_.send(ctx, s.nb[d], round, to_words(edge));
      expect += ((d < 2 ? s.h : s.w) + 1) / 2;  // what that neighbour sends back: the same edge length
    }
    return expect;
  }
  if (ph.step == 0) s.blk = ar_->scalar(ctx.pe(), word_of(s.v));
  return ph.step < ar_->steps() ? ar_->enter(ex_, ctx, round, ctx.pe(), ph.step, s.blk) : 0;
}

void Cg::consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) {
  Rank& s = ranks_[ctx.pe()];
  const Phase ph = phase(round);
  const std::size_t W = s.w + 2;
  if (ph.kind == 1) {
    for (const auto& m : msgs) {
      for (int d = 0; d < 4; ++d) {
        if (s.nb[d] != m.src) continue;
        if (d < 2) {
          const std::uint32_t x = d == 0 ? 0 : s.w + 1;
          for (std::uint32_t y = 0; y < s.h; ++y) s.p[(y + 1) * W + x] = std::bit_cast<double>(m.words[y]);
        } else {
          const std::uint32_t y = d == 2 ? 0 : s.h + 1;
          for (std::uint32_t x = 0; x < s.w; ++x) s.p[y * W + x + 1] = std::bit_cast<double>(m.words[x]);
        }
      }
    }
    poisson_apply(s.p.data(), s.q.data(), s.w, s.h);
    // p without its halo, in the tile's row-major order (as the reference's dot products).
    std::vector<double> pt(std::size_t{s.w} * s.h);
    for (std::uint32_t y = 0; y < s.h; ++y)
      for (std::uint32_t x = 0; x < s.w; ++x) pt[std::size_t{y} * s.w + x] = s.p[(y + 1) * W + x + 1];
    s.v = dot_ordered(pt.data(), s.q.data(), pt.size());
    return;
  }
  if (ph.step < ar_->steps()) ar_->consume(ctx.pe(), ph.step, msgs, s.blk, add_doubles);
  if (ph.step + 1 == steps_) {
    s.v = double_of(ar_->scalar_result(s.blk));
    after_allreduce(s, ph.kind);
  }
}

void Cg::after_allreduce(Rank& s, int kind) {
  const std::size_t n = std::size_t{s.w} * s.h, W = s.w + 2;
  auto P = [&](std::size_t i) -> double& { return s.p[(i / s.w + 1) * W + i % s.w + 1]; };
  if (kind == 0) {  // r0.r0
    s.rr = s.v;
    s.r0 = std::sqrt(s.v);
  } else if (kind == 2) {  // p.q: alpha, x and r, then r.r's partial
    s.alpha = s.rr / s.v;
    for (std::size_t i = 0; i < n; ++i) s.x[i] += s.alpha * P(i);
    for (std::size_t i = 0; i < n; ++i) s.r[i] -= s.alpha * s.q[i];
    s.v = dot_ordered(s.r.data(), s.r.data(), n);
  } else {  // r.r: beta and p
    const double beta = s.v / s.rr;
    s.rr = s.v;
    for (std::size_t i = 0; i < n; ++i) P(i) = s.r[i] + beta * P(i);
    s.res.push_back(std::sqrt(s.rr));
  }
}

bool Cg::verify(std::string& why) const {
  if (!verify_rounds("cg", why)) return false;
  const CgResult ref = cg_reference(cfg_, seed_, px_, py_);
  for (node_t rk = 0; rk < ranks_.size(); ++rk) {
    const Rank& s = ranks_[rk];
    if (s.res.size() != ref.residuals.size()) {
      why = fmt::format("cg: rank {} recorded {} residuals of {}", rk, s.res.size(), ref.residuals.size());
      return false;
    }
    for (std::size_t k = 0; k < s.res.size(); ++k)
      if (std::memcmp(&s.res[k], &ref.residuals[k], sizeof(double)) != 0) {
        why = fmt::format("cg: rank {}'s residual after iteration {} is {:.17g}, the serial CG's {:.17g}", rk, k,
                          s.res[k], ref.residuals[k]);
        return false;
      }
    for (std::uint32_t y = 0; y < s.h; ++y)
      for (std::uint32_t x = 0; x < s.w; ++x) {
        const double v = s.x[std::size_t{y} * s.w + x], want = ref.x[std::size_t{s.y0 + y} * cfg_.m + s.x0 + x];
        if (std::memcmp(&v, &want, sizeof v) != 0) {
          why = fmt::format("cg: x({}, {}) = {:.17g}, the serial CG's {:.17g}", s.x0 + x, s.y0 + y, v, want);
          return false;
        }
      }
  }
  return true;
}

nlohmann::json Cg::summary() const {
  nlohmann::json j = round_summary();
  j["app"] = "cg";
  j["m"] = cfg_.m;
  j["iterations"] = cfg_.iterations;
  j["pgrid"] = fmt::format("{}x{}", px_, py_);
  if (!ranks_.empty()) {
    j["residual_0"] = ranks_[0].r0;
    j["residuals"] = ranks_[0].res;
    if (!ranks_[0].res.empty()) j["residual_final"] = ranks_[0].res.back();
  }
  const std::uint64_t halo = 2ull * (px_ - 1) * py_ + 2ull * px_ * (py_ - 1);
  j["allreduce"] = std::string(coll::name(cfg_.allreduce));
  j["messages_closed_form"] = ar_->messages() * (1 + 2ull * cfg_.iterations) + halo * cfg_.iterations;
  return j;
}

}  // namespace rica::hpc

namespace rica {
using namespace hpc;
namespace {

std::unique_ptr<App> make(const SpecArgs& a, const Topology& t) {
  CgConfig c;
  c.m = a.uint("m");
  c.iterations = a.uint("iterations");
  detail::check_range("app 'cg'", "m", c.m, 1, 1 << 14);
  detail::check_range("app 'cg'", "iterations", c.iterations, 1, 100000);
  c.allreduce = coll::parse_algorithm(coll::Kind::allreduce, a.text("allreduce"));
  const kernels::ProcessGrid g = kernels::square_grid(t.pes());
  if (c.m < g.px || c.m < g.py)
    throw usage_error(fmt::format("app 'cg': m = {} is smaller than the {}x{} process grid of {} PEs (every rank "
                                  "needs a cell); give m >= {}",
                                  c.m, g.px, g.py, t.pes(), std::max(g.px, g.py)));
  if (std::uint64_t{c.m} * c.m * 8 * 12 > defaults::apps::memory_limit)
    throw usage_error(fmt::format("app 'cg': m = {} exceeds the {} GiB kernel memory limit", c.m,
                                  defaults::apps::memory_limit >> 30));
  return std::make_unique<Cg>(c);
}

}  // namespace

std::vector<AppEntry> builtin_apps_cg() {
  return {{"cg", "conjugate gradient on the 2D Poisson matrix: halo SpMV, two allreduces per iteration; residuals "
                 "equal to a serial CG's bit for bit (docs/apps.md)",
           "cg:m=256,iterations=50",
           {{"m", "1..16384", "256", "grid side (m x m unknowns, zero Dirichlet boundary)"},
            {"iterations", "1..100000", "50", "CG iterations"},
            {"allreduce", "recursive-doubling|ring|rabenseifner|binomial", "recursive-doubling",
             "the dot products' allreduce (rica/collectives.hpp)"}},
           "m", make}};
}

}  // namespace rica
