#pragma once
// The logical process grid of the application kernels (apps/sort, apps/stencil) and how its ranks
// are laid on the PEs (`--map`).
//
//   ProcessGrid   px x py logical processes, rank = x + px * y (x fastest, like the topologies'
//                 PE shapes). A kernel has exactly one rank per PE.
//   MapKind       identity: PE = rank.
//                 embed:    a topology-aware embedding of the kernel's communication pattern where
//                           one is known, else identity (ProcessMap::resolved() says which):
//                             2D grid on a hypercube           Gray code per grid coordinate
//                             2D grid on DCE / c-Banyan / MDCE row-major rings, Gray-coded ring
//                                                              addresses (see ProcessMap)
//                             2D grid on a 2D shape A x B      identity if A x B = px x py,
//                                                              transpose if A x B = py x px
//                             hypercube pattern (bitonic)      identity (rank bits = PE bits)
//                             all-to-all (sample sort)         identity: no embedding helps
//                 random:   a permutation of the PEs drawn from the run seed.
//
// All of this is computed single-threaded in an App's setup() and read-only during the run.

#include <cstdint>
#include <string>
#include <vector>

#include "rica/topology.hpp"

namespace rica::kernels {

enum class MapKind : std::uint8_t { identity, embed, random };

/// "identity" | "embed" | "random"; usage_error naming `what` and the accepted values otherwise.
MapKind parse_map(const std::string& text, const std::string& what);
const char* map_name(MapKind k) noexcept;

/// What a kernel's messages look like, so that `embed` can pick an embedding for it.
enum class Pattern : std::uint8_t {
  grid2d,     ///< nearest neighbours on the px x py grid (stencil, shear sort)
  hypercube,  ///< rank r talks to r xor 2^j (bitonic sort)
  all_to_all  ///< every rank to every rank (sample sort)
};

struct ProcessGrid {
  std::uint32_t px = 0, py = 0;
  std::uint64_t size() const noexcept { return std::uint64_t{px} * py; }
  friend bool operator==(const ProcessGrid&, const ProcessGrid&) = default;
};

/// The most square grid of n ranks: py = the largest divisor of n not above sqrt(n), px = n / py.
ProcessGrid square_grid(node_t n);
/// "PXxPY" (e.g. "32x32"); usage_error naming `what` when malformed or a side is 0.
ProcessGrid parse_grid(const std::string& text, const std::string& what);
/// Checks px * py == pes (usage_error naming `what` otherwise); the square grid when grid is 0x0.
ProcessGrid resolve_grid(ProcessGrid grid, node_t pes, const std::string& what);

/// Binary reflected Gray code and its inverse.
constexpr std::uint32_t gray(std::uint32_t v) noexcept { return v ^ (v >> 1); }
constexpr std::uint32_t gray_inverse(std::uint32_t g) noexcept {
  for (std::uint32_t s = 1; s < 32; s <<= 1) g ^= g >> s;
  return g;
}

/// A bijection between ranks and PEs. Immutable once built; safe to read from any thread.
class ProcessMap {
 public:
  ProcessMap() = default;
  /// `pes` ranks (Machine::pes(): the topology's PEs, or a job's). Throws usage_error when
  /// grid.size() != pes. Embeddings use the topology only when its PEs are exactly these.
  ProcessMap(MapKind kind, ProcessGrid grid, Pattern pattern, const Topology& topology, node_t pes,
             std::uint64_t seed);

  node_t pe(node_t rank) const noexcept { return to_pe_[rank]; }
  node_t rank(node_t pe) const noexcept { return to_rank_[pe]; }
  node_t size() const noexcept { return static_cast<node_t>(to_pe_.size()); }
  MapKind kind() const noexcept { return kind_; }
  /// The mapping actually used: "identity", "random", "gray", "ring-gray", "transpose", or
  /// "identity (...)" with the reason when `embed` found nothing better.
  const std::string& resolved() const noexcept { return resolved_; }

 private:
  MapKind kind_ = MapKind::identity;
  std::vector<node_t> to_pe_, to_rank_;
  std::string resolved_;
};

/// Refuses (usage_error) a kernel whose state would exceed defaults::apps::memory_limit bytes.
void check_memory(const std::string& what, double bytes);

}  // namespace rica::kernels
