#pragma once
// Stencil: 2D Jacobi heat diffusion on a logical grid, block-decomposed over the PEs, as a RICA
// fine-grain program (docs/apps.md).
//
//   grid      gx x gy cells of doubles; u0(x, y) = a uniform draw in [0, 1) hashed from (seed, x, y),
//             independent of the decomposition.
//   update    u' = u + c * L(u), c = StencilConfig::coefficient, with
//               5-point L = (W + E) + (S + N) - 4u
//               9-point L = (4 ((W + E) + (S + N)) + ((SW + SE) + (NW + NE)) - 20u) / 6
//             evaluated by one function (stencil_row) for the run and the serial reference, so the
//             two agree bit for bit.
//   boundary  periodic (the grid wraps) or fixed (cells outside the grid hold 0).
//   ranks     a px x py process grid (ProcessGrid, one rank per PE, mapped by --map); rank (i, j)
//             owns columns [i gx / px, (i+1) gx / px) and rows [j gy / py, (j+1) gy / py): tiles of
//             uneven size when px or py does not divide the grid. Every tile has >= 1 cell.
//   halos     per iteration a rank sends each neighbour (4, or 8 with the corners) the cells of its
//             tile next to that neighbour, `values_per_packet` doubles (1 or 2, bit-cast into the
//             payload words) per packet. The handler names the halo: one handler per (iteration
//             parity, direction). Which part of the edge a packet carries comes from its place in the
//             sender's send order, i.e. its per-source sequence number (Packet::seq): a rank sends
//             each halo's packets in edge order, so sorting a halo's packets by seq restores it.
//             Delivery order is never relied on. A neighbour that is the rank itself (a periodic
//             side of 1 rank) is copied locally, without a packet.
//   join      iteration t+1 is computed when the JoinCounter of t's parity has seen every halo
//             packet of t (the papers' mesh-emulation pattern, with real work). A neighbour can be
//             at most one iteration ahead (it needs our halo of t+1 before it sends t+2), so two
//             counters and inboxes, by parity, suffice.
//
// Threading: per-rank state lives in `ranks_`, indexed by rank; element r is touched only on the
// task of PE map.pe(r) (start() and the handlers). setup(), verify() and summary() run
// single-threaded before and after the run.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_map.hpp"
#include "rica/app.hpp"
#include "rica/defaults.hpp"

namespace rica::kernels {

enum class Boundary : std::uint8_t { periodic, fixed };

struct StencilConfig {
  std::uint32_t gx = 256, gy = 256;  ///< cells (defaults::apps::stencil_grid)
  unsigned points = defaults::apps::stencil_points;          ///< 5 or 9
  std::uint32_t iterations = defaults::apps::stencil_iterations;
  unsigned values_per_packet = defaults::apps::values_per_packet;  ///< 1 or 2
  Boundary boundary = Boundary::periodic;
  MapKind map = MapKind::identity;
  ProcessGrid pgrid{};  ///< 0x0: the most square grid of the PE count
  double coefficient = defaults::apps::stencil_coefficient;

  /// Throws usage_error naming the parameter and what is accepted, for a run on `pes` PEs: sides
  /// and counts out of range, a process grid that does not match, a grid side smaller than the
  /// process grid's, state above defaults::apps::memory_limit.
  void validate(node_t pes) const;
  nlohmann::json json() const;
};

/// "periodic" | "fixed" (usage_error naming `what` otherwise).
Boundary parse_boundary(const std::string& text, const std::string& what);
const char* boundary_name(Boundary b) noexcept;

/// One row of the update: out[i] for i in [0, w) from the rows above (`up`), at (`mid`) and below
/// (`down`), each pointing at the cell left of column 0 (the halo). Not inlined, so that the run and
/// the serial reference execute the same instructions.
[[gnu::noinline]] void stencil_row(const double* up, const double* mid, const double* down, double* out,
                                   std::uint32_t w, unsigned points, double c) noexcept;

/// u0 at global cell (x, y).
double stencil_initial(std::uint64_t seed, std::uint32_t x, std::uint32_t y) noexcept;

/// The serial reference: `iterations` updates of the whole grid, row-major gx x gy (no halo).
std::vector<double> stencil_reference(const StencilConfig& c, std::uint64_t seed);

class Stencil : public App {
 public:
  /// Validation happens in setup() (it needs the PE count); make_stencil() validates earlier.
  explicit Stencil(StencilConfig c) : cfg_(c) {}

  void setup(Machine& m) override;
  void start(Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return max_sends_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;
  bool spans_ranks() const override { return true; }
  std::string pe_result(node_t pe) const override;
  void merge_pe_result(node_t pe, const std::string& bytes) override;

  const StencilConfig& config() const noexcept { return cfg_; }
  const ProcessMap& map() const noexcept { return map_; }
  ProcessGrid grid() const noexcept { return grid_; }
  /// After a run: the final value of global cell (x, y).
  double value(std::uint32_t x, std::uint32_t y) const;
  /// After a run: packets the ranks sent, and the latest time a rank finished (ctx.now()).
  std::uint64_t messages() const;
  std::uint64_t finish_time() const;

 private:
  struct Chunk {
    std::uint32_t seq;
    std::uint64_t w0, w1;
  };
  /// One rank's state: touched only on its PE's task (see the header comment).
  struct Rank {
    std::uint32_t x0 = 0, y0 = 0, w = 0, h = 0;  ///< tile origin and size
    std::array<node_t, 8> nb{};                    ///< neighbour rank per direction, no_node = none
    std::vector<double> cur, next;                 ///< (w + 2) x (h + 2), halo ring included
    std::array<std::array<std::vector<Chunk>, 8>, 2> inbox;  ///< [parity][direction]: halo packets
    JoinCounter join[2];
    bool ready[2] = {false, false};  ///< that parity's iteration has all its halo packets
    std::uint32_t need = 0;          ///< halo packets per iteration
    std::uint32_t completed = 0;     ///< iterations computed
    std::uint64_t sent = 0, received = 0, stray = 0;
    std::uint64_t finish = 0;
  };

  void on_halo(Context& ctx, const Packet& p, unsigned parity, unsigned dir);
  void send_halos(Context& ctx, node_t rank, Rank& s);
  void advance(Context& ctx, node_t rank, Rank& s);
  void unpack(Rank& s, unsigned parity);
  void compute(Rank& s) const;
  std::uint32_t halo_length(const Rank& s, unsigned dir) const noexcept;
  std::uint32_t chunks(std::uint32_t values) const noexcept {
    return (values + cfg_.values_per_packet - 1) / cfg_.values_per_packet;
  }

  StencilConfig cfg_;
  std::uint64_t seed_ = 0;
  ProcessGrid grid_;
  ProcessMap map_;
  unsigned dirs_ = 4;
  handler_t handler_[2][8] = {};
  std::uint64_t max_sends_ = 0;
  std::vector<Rank> ranks_;
};

}  // namespace rica::kernels
