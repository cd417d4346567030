// matmul (matmul.hpp): Cannon's algorithm, registered as the application "matmul".
#include "matmul.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "app_registry.hpp"
#include "rica/core.hpp"
#include "rica/defaults.hpp"

namespace rica::hpc {

void block_multiply_add(const double* a, const double* bm, double* c, std::uint32_t b) noexcept {
  for (std::uint32_t i = 0; i < b; ++i)
    for (std::uint32_t k = 0; k < b; ++k) {
      const double x = a[i * b + k];
      for (std::uint32_t j = 0; j < b; ++j) c[i * b + j] += x * bm[k * b + j];
    }
}

double matmul_input(std::uint64_t seed, int matrix, std::uint32_t n, std::uint32_t r, std::uint32_t c) noexcept {
  return hashed_uniform(seed, static_cast<std::uint64_t>(matrix), std::uint64_t{r} * n + c);
}

namespace {
std::vector<double> block_of(std::uint64_t seed, int matrix, std::uint32_t q, std::uint32_t b, std::uint32_t bi,
                             std::uint32_t bj) {
  const std::uint32_t n = q * b;
  std::vector<double> out(std::size_t{b} * b);
  for (std::uint32_t i = 0; i < b; ++i)
    for (std::uint32_t j = 0; j < b; ++j) out[i * b + j] = matmul_input(seed, matrix, n, bi * b + i, bj * b + j);
  return out;
}
}  // namespace

std::vector<double> cannon_reference(std::uint64_t seed, std::uint32_t q, std::uint32_t b) {
  const std::uint32_t n = q * b;
  std::vector<double> c(std::size_t{n} * n);
  for (std::uint32_t bi = 0; bi < q; ++bi)
    for (std::uint32_t bj = 0; bj < q; ++bj) {
      std::vector<double> cb(std::size_t{b} * b, 0.0);
      for (std::uint32_t s = 0; s < q; ++s) {
        const std::uint32_t k = (bi + bj + s) % q;
        const auto a = block_of(seed, 0, q, b, bi, k), bm = block_of(seed, 1, q, b, k, bj);
        block_multiply_add(a.data(), bm.data(), cb.data(), b);
      }
      for (std::uint32_t i = 0; i < b; ++i)
        for (std::uint32_t j = 0; j < b; ++j) c[std::size_t{bi * b + i} * n + bj * b + j] = cb[i * b + j];
    }
  return c;
}

std::vector<double> plain_product(std::uint64_t seed, std::uint32_t n) {
  std::vector<double> a(std::size_t{n} * n), bm(a.size()), c(a.size(), 0.0);
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t col = 0; col < n; ++col) {
      a[std::size_t{r} * n + col] = matmul_input(seed, 0, n, r, col);
      bm[std::size_t{r} * n + col] = matmul_input(seed, 1, n, r, col);
    }
  block_multiply_add(a.data(), bm.data(), c.data(), n);
  return c;
}

void Matmul::setup(Machine& m) {
  seed_ = m.seed();
  q_ = cfg_.q ? cfg_.q : static_cast<std::uint32_t>(std::sqrt(static_cast<double>(m.pes())));
  while (std::uint64_t{q_ + 1} * (q_ + 1) <= m.pes()) ++q_;  // floor(sqrt) exactly
  while (q_ > 1 && std::uint64_t{q_} * q_ > m.pes()) --q_;
  bs_ = cfg_.block;
  if (std::uint64_t{q_} * q_ > m.pes())
    throw usage_error(fmt::format("app 'matmul': q = {} needs {} PEs; the machine has {}", q_, std::uint64_t{q_} * q_, m.pes()));
  setup_rounds(m, q_ * q_, q_ + 1);  // a rank runs at most q - 1 shift rounds ahead of its left or upper neighbour
  ranks_.assign(std::size_t{q_} * q_, Rank{});
  for (std::uint32_t i = 0; i < q_; ++i)
    for (std::uint32_t j = 0; j < q_; ++j) {
      Rank& r = ranks_[i * q_ + j];
      r.a = block_of(seed_, 0, q_, bs_, i, j);
      r.b = block_of(seed_, 1, q_, bs_, i, j);
      r.c.assign(std::size_t{bs_} * bs_, 0.0);
    }
}

// Round 0: the skew; round s in [1, q): multiply what round s - 1 brought, then shift; round q:
// the last multiply.
std::uint64_t Matmul::enter(Context& ctx, std::uint64_t round) {
  const std::uint32_t i = ctx.pe() / q_, j = ctx.pe() % q_;
  Rank& r = ranks_[ctx.pe()];
  if (round > 0) block_multiply_add(r.a.data(), r.b.data(), r.c.data(), bs_);
  if (round == q_) return 0;  // the last multiply: nothing to send or wait for
  const std::uint32_t da = round == 0 ? (j + q_ - i % q_) % q_ : (j + q_ - 1) % q_;  // A goes left
  const std::uint32_t db = round == 0 ? (i + q_ - j % q_) % q_ : (i + q_ - 1) % q_;  // B goes up
  const auto wa = to_words(r.a), wb = to_words(r.b);
  ex_.send(ctx, i * q_ + da, round, wa);
  ex_.send(ctx, db * q_ + j, round, wb);
  return 2 * ((std::uint64_t{bs_} * bs_ + 1) / 2);
}

void Matmul::consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) {
  const std::uint32_t i = ctx.pe() / q_, j = ctx.pe() % q_;
  const std::uint32_t sa = round == 0 ? (j + i) % q_ : (j + 1) % q_;  // A comes from the right
  const std::uint32_t sb = round == 0 ? (i + j) % q_ : (i + 1) % q_;  // B from below
  const node_t from_a = i * q_ + sa, from_b = sb * q_ + j;
  const std::size_t bb = std::size_t{bs_} * bs_, padded = 2 * ((bb + 1) / 2);
  Rank& r = ranks_[ctx.pe()];
  for (const auto& m : msgs) {
    std::size_t at = 0;  // a source sends A before B when it sends both
    if (m.src == from_a) from_words(std::span(m.words).subspan(at, bb), r.a), at += padded;
    if (m.src == from_b) from_words(std::span(m.words).subspan(at, bb), r.b);
  }
}

double Matmul::c_value(std::uint32_t row, std::uint32_t col) const {
  const Rank& r = ranks_[(row / bs_) * q_ + col / bs_];
  return r.c[(row % bs_) * bs_ + col % bs_];
}

bool Matmul::verify(std::string& why) const {
  if (!verify_rounds("matmul", why)) return false;
  const std::uint32_t n = q_ * bs_;
  const auto ref = cannon_reference(seed_, q_, bs_);
  const auto plain = plain_product(seed_, n);
  for (std::uint32_t r = 0; r < n; ++r)
    for (std::uint32_t c = 0; c < n; ++c) {
      const double v = c_value(r, c), want = ref[std::size_t{r} * n + c], p = plain[std::size_t{r} * n + c];
      if (std::memcmp(&v, &want, sizeof v) != 0) {
        why = fmt::format("matmul: C({}, {}) = {:.17g}, the serial product in Cannon's order has {:.17g}", r, c, v, want);
        return false;
      }
      if (std::abs(v - p) > 1e-12 * std::max(1.0, std::abs(p)) * n) {
        why = fmt::format("matmul: C({}, {}) = {:.17g}, the plain serial product has {:.17g}", r, c, v, p);
        return false;
      }
    }
  return true;
}

nlohmann::json Matmul::summary() const {
  nlohmann::json j = round_summary();
  j["app"] = "matmul";
  j["q"] = q_;
  j["block"] = bs_;
  j["n"] = q_ * bs_;
  j["messages_closed_form"] = 2ull * q_ * (std::uint64_t{q_} * q_ - 1);  // skew 2 q (q - 1), shifts 2 q^2 (q - 1)
  const double flops = 2.0 * std::pow(static_cast<double>(q_ * bs_), 3);
  j["flops"] = flops;
  return j;
}

}  // namespace rica::hpc

namespace rica {
using namespace hpc;

namespace {
std::unique_ptr<App> make(const SpecArgs& a, const Topology& t) {
  MatmulConfig c;
  c.q = a.uint("q");
  c.block = a.uint("block");
  detail::check_range("app 'matmul'", "block", c.block, 1, 1024);
  const std::uint64_t q = c.q ? c.q : 0;
  detail::check_range("app 'matmul'", "q", c.q, 0, 4095);
  if (q && q * q > t.pes())
    throw usage_error(fmt::format("app 'matmul': q = {} needs {} PEs; the network has {} (q at most {})", q, q * q,
                                  t.pes(), static_cast<std::uint32_t>(std::sqrt(static_cast<double>(t.pes())))));
  const std::uint64_t qq = q ? q : static_cast<std::uint64_t>(std::sqrt(static_cast<double>(t.pes())));
  const std::uint64_t n = qq * c.block;
  if (3 * n * n * 8 * 2 > defaults::apps::memory_limit)
    throw usage_error(fmt::format("app 'matmul': n = {} needs more than the {} GiB kernel memory limit; lower block",
                                  n, defaults::apps::memory_limit >> 30));
  return std::make_unique<Matmul>(c);
}
}  // namespace

std::vector<AppEntry> builtin_apps_matmul() {
  return {{"matmul", "C = A B by Cannon's algorithm on a q x q process grid, checked against a serial product (docs/apps.md)",
          "matmul:block=8",
          {{"block", "1..1024", "8", "each rank's block side b (n = q b)"},
           {"q", "0..4095", "0", "process grid side; 0 = the largest with q^2 <= PEs"}},
          "block", make}};
}

}  // namespace rica
