#pragma once
// cg: conjugate gradient on the 2D Poisson matrix (docs/apps.md).
//
//   system    A = the 5-point Laplacian of an m x m grid of unknowns with zero Dirichlet boundary
//             (4 on the diagonal, -1 to each of the up to 4 grid neighbours), b(x, y) =
//             hashed_uniform(seed, 2, x + m y) in [-1, 1), x0 = 0. Symmetric positive definite.
//   ranks     every PE: a px x py process grid (the most square, as the stencil's), rank
//             (i, j) = i + px j owning columns [i m / px, (i+1) m / px) and rows [j m / py, ...).
//   iteration (textbook CG) q = A p needs p's halo: a round in which each rank sends its up to 4
//             neighbours the edge of its tile (two doubles per packet); then alpha = rr / (p.q) and
//             rr' = r.r after the updates, each an allreduce of one double (the collective
//             library's, `allreduce=recursive-doubling|ring|rabenseifner|binomial`, run by CollExec:
//             one round per step); beta = rr' / rr; p = r + beta p.
//             Before the first iteration one allreduce gives r0.r0.
//   residual  ||r_k|| = sqrt(rr_k) after each iteration, recorded by every rank.
//   verify    the residual history and the solution equal, bit for bit, those of the serial CG
//             (cg_reference) that forms each dot product as the run does: per rank a partial sum
//             over its tile in row-major order, the partials combined in the allreduce's order
//             (CollExec::serial). Equality is bitwise because the order of every floating-point
//             operation is fixed by the decomposition and the schedule, never by arrival order.
//             Beside it the history of a plain serial CG (dot products in grid order) is reported
//             as the largest relative difference (rounding only).
//
// Messages per iteration: the halo (2 (px - 1) py + 2 px (py - 1)) plus two allreduces.

#include <cstdint>
#include <memory>
#include <vector>

#include "coll_exec.hpp"
#include "round_app.hpp"

namespace rica::hpc {

struct CgConfig {
  std::uint32_t m = 256;          ///< grid side
  std::uint32_t iterations = 50;
  coll::Algorithm allreduce = coll::Algorithm::recursive_doubling;  ///< the dot products' allreduce
};

struct CgResult {
  std::vector<double> residuals;  ///< ||r|| after iterations 0..k-1 (index 0: after the first)
  double r0 = 0;                  ///< ||b||
  std::vector<double> x;          ///< the solution, row-major m x m
};
/// The serial CG on the same decomposition (px x py) and allreduce order.
CgResult cg_reference(const CgConfig& c, std::uint64_t seed, std::uint32_t px, std::uint32_t py);
/// The plain serial CG: dot products in grid order.
CgResult cg_plain(const CgConfig& c, std::uint64_t seed);

class Cg : public RoundApp {
 public:
  explicit Cg(CgConfig c) : cfg_(c) {}
  void setup(Machine& m) override;
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  const std::vector<double>& residuals(node_t rank) const { return ranks_[rank].res; }

 private:
  std::uint64_t enter(Context& ctx, std::uint64_t round) override;
  void consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) override;
  bool done(node_t, std::uint64_t round) const override { return round >= rounds_; }
  struct Rank {
    std::uint32_t x0 = 0, y0 = 0, w = 0, h = 0;
    node_t nb[4] = {no_node, no_node, no_node, no_node};  ///< W, E, S (y - 1), N (y + 1)
    std::vector<double> p;            ///< (w + 2) x (h + 2) with its halo ring
    std::vector<double> x, r, q, b;   ///< w x h
    Blocks blk;                       ///< the allreduce in progress
    double v = 0;                     ///< the allreduce's value
    double rr = 0, alpha = 0;
    std::vector<double> res;
    double r0 = 0;
  };
  /// (kind, iteration, step) of a round: kind 0 init allreduce, 1 halo, 2 p.q allreduce, 3 r.r allreduce.
  struct Phase {
    int kind;
    std::uint32_t k, step;
  };
  Phase phase(std::uint64_t round) const;
  void after_allreduce(Rank& s, int kind);

  CgConfig cfg_;
  std::uint64_t seed_ = 0;
  std::uint32_t px_ = 1, py_ = 1, steps_ = 1;
  std::uint64_t rounds_ = 0;
  std::vector<Rank> ranks_;
  std::unique_ptr<CollExec> ar_;
};

/// q = A p on one tile: p is (w + 2) x (h + 2) with its halo (0 outside the grid). Shared by the run
/// and the references.
[[gnu::noinline]] void poisson_apply(const double* p, double* q, std::uint32_t w, std::uint32_t h) noexcept;
/// Sum of a[i] b[i], i ascending from 0.0.
[[gnu::noinline]] double dot_ordered(const double* a, const double* b, std::size_t n) noexcept;

}  // namespace rica::hpc
