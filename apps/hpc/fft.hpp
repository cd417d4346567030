#pragma once
// fft: a 2D or 3D complex FFT with a pencil decomposition, its transposes done by alltoalls within
// the process grid's rows and columns (docs/apps.md).
//
//   data      nx x ny x nz complex doubles (nz = 1: 2D), powers of two; element (x, y, z) =
//             (hashed_uniform(seed, 0, i), hashed_uniform(seed, 1, i)), i = x + nx (y + ny z).
//   ranks     a pr x pc grid (rank = a + pr b), pr | nx, pr | ny, pc | ny, pc | nz; by default the
//             largest power of two of ranks <= PEs that fits, pc = 2^floor(log2 P / 2) (2D: pc = 1).
//   layouts   x-pencils: rank (a, b) owns every x of y in block a (ny / pr), z in block b (nz / pc);
//             y-pencils: every y of x in block a (nx / pr), z in block b;
//             z-pencils: every z of x in block a, y in block b (ny / pc) — the output (transposed
//             out, as FFTW-MPI's TRANSPOSED_OUT: no transpose back).
//   rounds    FFT along x, an alltoall within the row (ranks of the same b) to y-pencils; FFT
//             along y, an alltoall within the column (same a) to z-pencils; FFT along z. The
//             alltoalls are the collective library's (`alltoall=linear|pairwise|bruck`, run by
//             CollExec: one round per step); then one local round for the last FFT.
//   packets   one complex (two words) per packet; a rank's block for itself stays local.
//   verify    every output element equals, bit for bit, the serial FFT (fft_reference: the same 1D
//             transform, fft1d, along x, y, then z of the whole array), and 8 output elements agree
//             with a direct DFT sum to 1e-9 relative to sqrt(N) max |input|.
//
// Messages: pc alltoalls over pr ranks and pr over pc (the library's closed forms).

#include <complex>
#include <cstdint>
#include <vector>

#include "coll_exec.hpp"
#include "round_app.hpp"

namespace rica::hpc {

using cplx = std::complex<double>;

struct FftConfig {
  std::uint32_t nx = 64, ny = 64, nz = 64;
  std::uint32_t pr = 0, pc = 0;  ///< 0x0 = the default grid
  coll::Algorithm alltoall = coll::Algorithm::linear;  ///< the transposes' algorithm
};

/// In-place radix-2 decimation-in-time FFT of n = 2^k points (forward, e^{-2 pi i j k / n}).
[[gnu::noinline]] void fft1d(cplx* a, std::uint32_t n);
cplx fft_input(std::uint64_t seed, const FftConfig& c, std::uint32_t x, std::uint32_t y, std::uint32_t z) noexcept;
/// The serial 3D FFT of the whole input, [z][y][x] with x fastest.
std::vector<cplx> fft_reference(std::uint64_t seed, const FftConfig& c);
/// The default grid for `pes` PEs (pr, pc), or usage_error when none fits.
std::pair<std::uint32_t, std::uint32_t> fft_grid(const FftConfig& c, node_t pes);

class Fft : public RoundApp {
 public:
  explicit Fft(FftConfig c) : cfg_(c) {}
  void setup(Machine& m) override;
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  /// After the run: output element (kx, ky, kz).
  cplx output(std::uint32_t x, std::uint32_t y, std::uint32_t z) const;

 private:
  std::uint64_t enter(Context& ctx, std::uint64_t round) override;
  void consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) override;
  bool done(node_t, std::uint64_t round) const override { return round > s1_ + s2_; }
  struct Rank {
    std::vector<cplx> d;  ///< the current layout's elements
    Blocks blocks;        ///< the alltoall in progress
    int stage = 0;        ///< 0 input, 1 x done + row blocks, 2 y done + column blocks, 3 output
  };
  void to_stage(Rank& r, node_t rank, int stage) const;
  FftConfig cfg_;
  std::uint64_t seed_ = 0;
  std::uint32_t pr_ = 1, pc_ = 1;
  std::vector<Rank> ranks_;
  std::vector<CollExec> rows_, cols_;  ///< [b]: the alltoall of row b; [a]: of column a
  std::uint32_t s1_ = 0, s2_ = 0;      ///< their steps
};

}  // namespace rica::hpc
