// fft (fft.hpp): a pencil-decomposed 2D/3D FFT, registered as the application "fft".
#include "fft.hpp"

#include <fmt/format.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>

#include "app_registry.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"

namespace rica::hpc {

void fft1d(cplx* a, std::uint32_t n) {
  for (std::uint32_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    std::uint32_t bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  std::vector<double> wr(n / 2 + 1), wi(n / 2 + 1);
  for (std::uint32_t len = 2; len <= n; len <<= 1) {
    const std::uint32_t half = len / 2;
    for (std::uint32_t k = 0; k < half; ++k) {  // twiddles from cos/sin directly: no drift
      const double t = -2.0 * std::numbers::pi * k / len;
      wr[k] = std::cos(t), wi[k] = std::sin(t);
    }
    for (std::uint32_t s = 0; s < n; s += len)
      for (std::uint32_t k = 0; k < half; ++k) {
        const double ur = a[s + k].real(), ui = a[s + k].imag();
        const double xr = a[s + k + half].real(), xi = a[s + k + half].imag();
        const double vr = xr * wr[k] - xi * wi[k], vi = xr * wi[k] + xi * wr[k];
        a[s + k] = {ur + vr, ui + vi};
        a[s + k + half] = {ur - vr, ui - vi};
      }
  }
}

cplx fft_input(std::uint64_t seed, const FftConfig& c, std::uint32_t x, std::uint32_t y, std::uint32_t z) noexcept {
  const std::uint64_t i = x + std::uint64_t{c.nx} * (y + std::uint64_t{c.ny} * z);
  return {hashed_uniform(seed, 0, i), hashed_uniform(seed, 1, i)};
}

std::vector<cplx> fft_reference(std::uint64_t seed, const FftConfig& c) {
  const std::uint64_t nx = c.nx, ny = c.ny, nz = c.nz;
  std::vector<cplx> d(nx * ny * nz), line(std::max({nx, ny, nz}));
  for (std::uint32_t z = 0; z < nz; ++z)
    for (std::uint32_t y = 0; y < ny; ++y)
      for (std::uint32_t x = 0; x < nx; ++x) d[(z * ny + y) * nx + x] = fft_input(seed, c, x, y, z);
  for (std::uint64_t z = 0; z < nz; ++z)
    for (std::uint64_t y = 0; y < ny; ++y) fft1d(&d[(z * ny + y) * nx], c.nx);
  for (std::uint64_t z = 0; z < nz; ++z)
    for (std::uint64_t x = 0; x < nx; ++x) {
      for (std::uint64_t y = 0; y < ny; ++y) line[y] = d[(z * ny + y) * nx + x];
      fft1d(line.data(), c.ny);
      for (std::uint64_t y = 0; y < ny; ++y) d[(z * ny + y) * nx + x] = line[y];
    }
  for (std::uint64_t y = 0; y < ny; ++y)
    for (std::uint64_t x = 0; x < nx; ++x) {
      for (std::uint64_t z = 0; z < nz; ++z) line[z] = d[(z * ny + y) * nx + x];
      fft1d(line.data(), c.nz);
      for (std::uint64_t z = 0; z < nz; ++z) d[(z * ny + y) * nx + x] = line[z];
    }
  return d;
}

std::pair<std::uint32_t, std::uint32_t> fft_grid(const FftConfig& c, node_t pes) {
  auto fits = [&](std::uint64_t pr, std::uint64_t pc) {
    return pr >= 1 && pc >= 1 && pr * pc <= pes && c.nx % pr == 0 && c.ny % pr == 0 && c.ny % pc == 0 &&
           c.nz % pc == 0 && pr <= c.nx && pr <= c.ny && pc <= c.ny && pc <= c.nz;
  };
  if (c.pr || c.pc) {
    if (!fits(c.pr, c.pc))
      throw usage_error(fmt::format("app 'fft': pgrid {}x{} does not fit: pr and pc >= 1, pr pc <= {} PEs, pr | nx "
                                    "and ny, pc | ny and nz ({}x{}x{})",
                                    c.pr, c.pc, pes, c.nx, c.ny, c.nz));
    return {c.pr, c.pc};
  }
  for (std::uint64_t p = std::bit_floor(std::uint64_t{pes}); p >= 1; p >>= 1) {
    const unsigned k = static_cast<unsigned>(std::countr_zero(p));
    const std::uint64_t pc = c.nz == 1 ? 1 : std::uint64_t{1} << (k / 2), pr = p / pc;
    if (fits(pr, pc)) return {static_cast<std::uint32_t>(pr), static_cast<std::uint32_t>(pc)};
    if (c.nz > 1 && fits(pc, pr)) return {static_cast<std::uint32_t>(pc), static_cast<std::uint32_t>(pr)};
  }
  return {1, 1};
}

void Fft::setup(Machine& m) {
  seed_ = m.seed();
  std::tie(pr_, pc_) = fft_grid(cfg_, m.pes());
  const std::uint64_t row_bytes = std::uint64_t{cfg_.nx / pr_} * (cfg_.ny / pr_) * (cfg_.nz / pc_) * 16;
  const std::uint64_t col_bytes = std::uint64_t{cfg_.nx / pr_} * (cfg_.ny / pc_) * (cfg_.nz / pc_) * 16;
  rows_.clear(), cols_.clear();
  for (std::uint32_t b = 0; b < pc_; ++b) {
    std::vector<node_t> members;
    for (std::uint32_t a = 0; a < pr_; ++a) members.push_back(a + pr_ * b);
    rows_.emplace_back(spec_of(coll::Kind::alltoall, cfg_.alltoall, pr_, row_bytes),
                       members);
  }
  for (std::uint32_t a = 0; a < pr_; ++a) {
    std::vector<node_t> members;
    for (std::uint32_t b = 0; b < pc_; ++b) members.push_back(a + pr_ * b);
    cols_.emplace_back(spec_of(coll::Kind::alltoall, cfg_.alltoall, pc_, col_bytes),
                       members);
  }
  s1_ = rows_[0].steps(), s2_ = cols_[0].steps();
  // A rank runs at most every step of both alltoalls ahead of another (no global step in between).
  setup_rounds(m, pr_ * pc_, std::min<unsigned>(4096, s1_ + s2_ + 2));
  ranks_.assign(std::size_t{pr_} * pc_, Rank{});
  const std::uint32_t ly = cfg_.ny / pr_, lz = cfg_.nz / pc_;
  for (std::uint32_t b = 0; b < pc_; ++b)
    for (std::uint32_t a = 0; a < pr_; ++a) {
      Rank& r = ranks_[a + pr_ * b];
      r.d.resize(std::size_t{cfg_.nx} * ly * lz);
      for (std::uint32_t z = 0; z < lz; ++z)
        for (std::uint32_t y = 0; y < ly; ++y)
          for (std::uint32_t x = 0; x < cfg_.nx; ++x)
            r.d[(std::size_t{z} * ly + y) * cfg_.nx + x] = fft_input(seed_, cfg_, x, a * ly + y, b * lz + z);
    }
}

namespace {
void put(std::vector<std::uint64_t>& w, cplx v) {
  w.push_back(std::bit_cast<std::uint64_t>(v.real()));
  w.push_back(std::bit_cast<std::uint64_t>(v.imag()));
}
cplx get(const std::vector<std::uint64_t>& w, std::size_t i) {
  return {std::bit_cast<double>(w[2 * i]), std::bit_cast<double>(w[2 * i + 1])};
}
}  // namespace

// The local work between the alltoalls, in order: FFT along x and the row's blocks (block
// src * pr + dst of the row's alltoall holds what member src sends member dst); the y-pencils from
// the received blocks, FFT along y and the column's blocks; the z-pencils and FFT along z.
void Fft::to_stage(Rank& r, node_t rank, int stage) const {
  const std::uint32_t a = rank % pr_, b = rank / pr_;
  const std::uint32_t nx = cfg_.nx, ny = cfg_.ny, nz = cfg_.nz;
  const std::uint32_t lx = nx / pr_, ly = ny / pr_, lz = nz / pc_, ly2 = ny / pc_;
  while (r.stage < stage) {
    if (r.stage == 0) {
      for (std::size_t l = 0; l < std::size_t{ly} * lz; ++l) fft1d(&r.d[l * nx], nx);
      r.blocks.clear();
      for (std::uint32_t a2 = 0; a2 < pr_; ++a2) {
        auto& w = r.blocks[a * pr_ + a2];
        for (std::uint32_t z = 0; z < lz; ++z)
          for (std::uint32_t y = 0; y < ly; ++y)
            for (std::uint32_t x = a2 * lx; x < (a2 + 1) * lx; ++x) put(w, r.d[(std::size_t{z} * ly + y) * nx + x]);
      }
    } else if (r.stage == 1) {  // y-pencils [z][x][y], FFT along y, the column's blocks
      r.d.assign(std::size_t{lx} * ny * lz, cplx{});
      for (std::uint32_t a2 = 0; a2 < pr_; ++a2) {
        const auto& w = r.blocks.at(a2 * pr_ + a);
        std::size_t i = 0;
        for (std::uint32_t z = 0; z < lz; ++z)
          for (std::uint32_t y = a2 * ly; y < (a2 + 1) * ly; ++y)
            for (std::uint32_t x = 0; x < lx; ++x) r.d[(std::size_t{z} * lx + x) * ny + y] = get(w, i++);
      }
      for (std::size_t l = 0; l < std::size_t{lx} * lz; ++l) fft1d(&r.d[l * ny], ny);
      r.blocks.clear();
      for (std::uint32_t b2 = 0; b2 < pc_; ++b2) {
        auto& w = r.blocks[b * pc_ + b2];
        for (std::uint32_t z = 0; z < lz; ++z)
          for (std::uint32_t x = 0; x < lx; ++x)
            for (std::uint32_t y = b2 * ly2; y < (b2 + 1) * ly2; ++y) put(w, r.d[(std::size_t{z} * lx + x) * ny + y]);
      }
    } else {  // z-pencils [y][x][z], FFT along z
      r.d.assign(std::size_t{lx} * ly2 * nz, cplx{});
      for (std::uint32_t b2 = 0; b2 < pc_; ++b2) {
        const auto& w = r.blocks.at(b2 * pc_ + b);
        std::size_t i = 0;
        for (std::uint32_t z = b2 * lz; z < (b2 + 1) * lz; ++z)
          for (std::uint32_t x = 0; x < lx; ++x)
            for (std::uint32_t y = 0; y < ly2; ++y) r.d[(std::size_t{y} * lx + x) * nz + z] = get(w, i++);
      }
      r.blocks.clear();
      for (std::size_t l = 0; l < std::size_t{lx} * ly2; ++l) fft1d(&r.d[l * nz], nz);
    }
    ++r.stage;
  }
}

std::uint64_t Fft::enter(Context& ctx, std::uint64_t round) {
  Rank& r = ranks_[ctx.pe()];
  const std::uint32_t a = ctx.pe() % pr_, b = ctx.pe() / pr_;
  if (round < s1_) {
    to_stage(r, ctx.pe(), 1);
    return rows_[b].enter(ex_, ctx, round, a, static_cast<std::uint32_t>(round), r.blocks);
  }
  if (round < s1_ + s2_) {
    to_stage(r, ctx.pe(), 2);
    return cols_[a].enter(ex_, ctx, round, b, static_cast<std::uint32_t>(round - s1_), r.blocks);
  }
  to_stage(r, ctx.pe(), 3);  // the last, local round
  return 0;
}

void Fft::consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) {
  Rank& r = ranks_[ctx.pe()];
  const std::uint32_t a = ctx.pe() % pr_, b = ctx.pe() / pr_;
  if (round < s1_)
    rows_[b].consume(a, static_cast<std::uint32_t>(round), msgs, r.blocks, add_words);
  else if (round < s1_ + s2_)
    cols_[a].consume(b, static_cast<std::uint32_t>(round - s1_), msgs, r.blocks, add_words);
}

cplx Fft::output(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
  const std::uint32_t lx = cfg_.nx / pr_, ly2 = cfg_.ny / pc_;
  const Rank& r = ranks_[x / lx + pr_ * (y / ly2)];
  return r.d[(std::size_t{y % ly2} * lx + x % lx) * cfg_.nz + z];
}

bool Fft::verify(std::string& why) const {
  if (!verify_rounds("fft", why)) return false;
  const auto ref = fft_reference(seed_, cfg_);
  for (std::uint32_t z = 0; z < cfg_.nz; ++z)
    for (std::uint32_t y = 0; y < cfg_.ny; ++y)
      for (std::uint32_t x = 0; x < cfg_.nx; ++x) {
        const cplx v = output(x, y, z), want = ref[(std::size_t{z} * cfg_.ny + y) * cfg_.nx + x];
        if (std::memcmp(&v, &want, sizeof v) != 0) {
          why = fmt::format("fft: output ({}, {}, {}) = {:.17g}{:+.17g}i, the serial FFT has {:.17g}{:+.17g}i", x, y, z,
                            v.real(), v.imag(), want.real(), want.imag());
          return false;
        }
      }
  // A few outputs against the DFT's definition, so a wrong fft1d cannot pass as its own reference.
  const double n = static_cast<double>(cfg_.nx) * cfg_.ny * cfg_.nz;
  Rng pick(seed_ ^ 0xfff);
  for (int t = 0; t < 8; ++t) {
    const auto kx = static_cast<std::uint32_t>(pick.below(cfg_.nx)), ky = static_cast<std::uint32_t>(pick.below(cfg_.ny)),
               kz = static_cast<std::uint32_t>(pick.below(cfg_.nz));
    long double sr = 0, si = 0;
    for (std::uint32_t z = 0; z < cfg_.nz; ++z)
      for (std::uint32_t y = 0; y < cfg_.ny; ++y)
        for (std::uint32_t x = 0; x < cfg_.nx; ++x) {
          const long double ph = -2.0L * std::numbers::pi_v<long double> *
                                 (static_cast<long double>(std::uint64_t{kx} * x % cfg_.nx) / cfg_.nx +
                                  static_cast<long double>(std::uint64_t{ky} * y % cfg_.ny) / cfg_.ny +
                                  static_cast<long double>(std::uint64_t{kz} * z % cfg_.nz) / cfg_.nz);
          const cplx in = fft_input(seed_, cfg_, x, y, z);
          const long double c = std::cos(ph), s = std::sin(ph);
          sr += in.real() * c - in.imag() * s;
          si += in.real() * s + in.imag() * c;
        }
    const cplx v = output(kx, ky, kz);
    const double err = std::hypot(v.real() - static_cast<double>(sr), v.imag() - static_cast<double>(si));
    if (err > 1e-9 * std::sqrt(n) * std::sqrt(2.0)) {
      why = fmt::format("fft: output ({}, {}, {}) differs from the direct DFT by {:.3g}", kx, ky, kz, err);
      return false;
    }
  }
  return true;
}

nlohmann::json Fft::summary() const {
  nlohmann::json j = round_summary();
  j["app"] = "fft";
  j["dims"] = cfg_.nz == 1 ? fmt::format("{}x{}", cfg_.nx, cfg_.ny) : fmt::format("{}x{}x{}", cfg_.nx, cfg_.ny, cfg_.nz);
  j["pgrid"] = fmt::format("{}x{}", pr_, pc_);
  j["alltoall"] = std::string(coll::name(cfg_.alltoall));
  j["messages_closed_form"] = pc_ * rows_[0].messages() + pr_ * cols_[0].messages();
  return j;
}

}  // namespace rica::hpc

namespace rica {
using namespace hpc;
namespace {

std::unique_ptr<App> make(const SpecArgs& a, const Topology& t) {
  FftConfig c;
  const std::string dims = a.text("dims");
  std::vector<std::uint64_t> d;
  std::size_t at = 0;
  while (at <= dims.size()) {
    const std::size_t x = dims.find('x', at);
    const std::string part = dims.substr(at, x == std::string::npos ? std::string::npos : x - at);
    d.push_back(parse_uint(part, "app 'fft': dims", 1, 1u << 24));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  if (d.size() != 2 && d.size() != 3)
    throw usage_error(fmt::format("app 'fft': dims '{}' must be NXxNY or NXxNYxNZ (powers of two)", dims));
  for (auto v : d)
    if (!std::has_single_bit(v))
      throw usage_error(fmt::format("app 'fft': dims '{}': every side must be a power of two", dims));
  c.nx = static_cast<std::uint32_t>(d[0]), c.ny = static_cast<std::uint32_t>(d[1]);
  c.nz = d.size() == 3 ? static_cast<std::uint32_t>(d[2]) : 1;
  const std::uint64_t n = std::uint64_t{c.nx} * c.ny * c.nz;
  if (n * 16 * 4 > defaults::apps::memory_limit)
    throw usage_error(fmt::format("app 'fft': dims '{}' ({} points) exceed the {} GiB kernel memory limit", dims, n,
                                  defaults::apps::memory_limit >> 30));
  if (a.has("pgrid")) {
    const std::string g = a.text("pgrid");
    const auto x = g.find('x');
    if (x == std::string::npos) throw usage_error(fmt::format("app 'fft': pgrid '{}' must be PRxPC", g));
    c.pr = static_cast<std::uint32_t>(parse_uint(g.substr(0, x), "app 'fft': pgrid", 1, 1u << 24));
    c.pc = static_cast<std::uint32_t>(parse_uint(g.substr(x + 1), "app 'fft': pgrid", 1, 1u << 24));
  }
  c.alltoall = coll::parse_algorithm(coll::Kind::alltoall, a.text("alltoall"));
  (void)fft_grid(c, t.pes());  // a given grid that does not fit: usage_error now
  return std::make_unique<Fft>(c);
}

}  // namespace

std::vector<AppEntry> builtin_apps_fft() {
  return {{"fft", "2D/3D complex FFT, pencil-decomposed, transposed by alltoalls; checked against a serial FFT (docs/apps.md)",
           "fft:dims=64x64x64",
           {{"dims", "NXxNY | NXxNYxNZ", "64x64x64", "array sides, powers of two (2D when two are given)"},
            {"pgrid", "PRxPC", "", "process grid (default: the largest power of two of ranks <= PEs that fits)"},
            {"alltoall", "linear|pairwise|bruck", "linear", "the transposes' alltoall algorithm (rica/collectives.hpp)"}},
           "dims", make}};
}

}  // namespace rica
