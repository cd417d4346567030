#pragma once
// matmul: C = A B by Cannon's algorithm on a q x q process grid (docs/apps.md).
//
//   ranks     q x q, q the largest with q^2 <= PEs unless given; rank = i q + j holds block (i, j)
//             of each matrix, blocks of b x b doubles (n = q b). PEs from q^2 on only route.
//   data      A(r, c) = hashed_uniform(seed, 0, r n + c), B the same with stream 1.
//   round 0   the skew: rank (i, j) sends A(i, j) to (i, j - i) and B(i, j) to (i - j, j)
//             (mod q), so that (i, j) then holds A(i, k) and B(k, j) with k = i + j mod q.
//   round s   (1 <= s < q) after multiplying, A moves one rank left and B one rank up.
//             q multiply-adds in all, C(i, j) += A(i, k) B(k, j) with k = i + j + s mod q.
//   packets   a block is b^2 words, ceil(b^2 / 2) packets; a shift of 0 (q = 1, the skew's
//             diagonal) is a local copy without a packet.
//   verify    C equals, bit for bit, the serial product that adds the k-blocks in Cannon's order
//             (cannon_reference), and agrees with the plain serial product C = A B to 1e-12
//             relative (the same sums in another order).
//
// Messages: 2 q^2 per shift round, (q - 1) shift rounds, plus the skew's 2 q (q - 1) (row 0's A
// and column 0's B stay): 2 q (q^2 - 1) in all.

#include <cstdint>
#include <vector>

#include "round_app.hpp"

namespace rica::hpc {

struct MatmulConfig {
  std::uint32_t q = 0;      ///< process grid side, 0 = the largest with q^2 <= PEs
  std::uint32_t block = 8;  ///< block side b
};

/// c[b x b] += a[b x b] * b[b x b], rows i, then k ascending, then j (the run and the references).
[[gnu::noinline]] void block_multiply_add(const double* a, const double* bm, double* c, std::uint32_t b) noexcept;
/// The serial product whose k-blocks are added in Cannon's order (row-major n x n, n = q b).
std::vector<double> cannon_reference(std::uint64_t seed, std::uint32_t q, std::uint32_t b);
/// The plain serial product (k ascending).
std::vector<double> plain_product(std::uint64_t seed, std::uint32_t n);
double matmul_input(std::uint64_t seed, int matrix, std::uint32_t n, std::uint32_t r, std::uint32_t c) noexcept;

class Matmul : public RoundApp {
 public:
  explicit Matmul(MatmulConfig c) : cfg_(c) {}
  void setup(Machine& m) override;
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  std::uint32_t q() const noexcept { return q_; }
  /// After the run: C(r, c).
  double c_value(std::uint32_t r, std::uint32_t c) const;

 private:
  std::uint64_t enter(Context& ctx, std::uint64_t round) override;
  void consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) override;
  bool done(node_t, std::uint64_t round) const override { return round > q_; }
  struct Rank {
    std::vector<double> a, b, c;
  };
  MatmulConfig cfg_;
  std::uint64_t seed_ = 0;
  std::uint32_t q_ = 1, bs_ = 1;
  std::vector<Rank> ranks_;
};

}  // namespace rica::hpc
