#pragma once
// (B, C, P)-MDCE (docs/topologies.md): the product of DCE networks sharing their rings.
// Aliases: (CB)^2 = (2,0,1), CCCB = (1,1,1). With the RWC-1 §3.5 variants: a ring longer than
// the address (S > n, e.g. two c-Banyans joined end to end, S = 2n), fewer cluster-address bits
// (X < n: half the clusters for X = n - 1) and the cluster links this frees reused as parallel
// links.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "rica/topology/model.hpp"

namespace rica {

/// What the cluster (dimension 1) cross ports of the columns whose bit has no cluster-address
/// bit (x mod n >= X) carry.
enum class MdceFreed : std::uint8_t {
  none,      ///< nothing: the links are unused (= a partition by the cluster address)
  parallel,  ///< a further parallel link to (x0+1), arriving on the freed cluster in-port
};

/// Nodes (x0, x1, ..., xr), r = B + C, 0 <= x0 < S (ring length, S >= n); x1 (the cluster
/// address XA) has X bits, x2..xr have n bits; node id = x0 + S*(x1 + 2^X*(x2 + 2^n*(...))).
/// Dimensions 1..C are CCC-type (delta 0), C+1..r c-Banyan-type (delta 1); the group address
/// GA is dimension 2.
/// Out-ports 0..P-1: parallel copies (x0+1); out-port P+i-1: cross link of dimension i at
/// column x0, (x0 + delta_i, xi with bit (x0 mod n) flipped), absent when xi has no such bit
/// (i = 1, x0 mod n >= X) unless freed = parallel makes it a parallel link. In-port numbers
/// equal the sender's out-port numbers.
/// Routing (note 3): at column x0 the lowest dimension whose bit (x0 mod n) differs crosses
/// (CCC-type first, as they come first), else a parallel link: copy dst mod P, or dst mod
/// (P+1) over the copies and a freed link. The class rises on every wrap S-1 -> 0; the count is
/// computed (worst route) in the constructor.
class MdceTopology {
 public:
  static constexpr unsigned max_ring = 64;
  /// Throws usage_error naming the parameter. ring = 0 means S = n, xbits = 0 means X = n.
  MdceTopology(unsigned b, unsigned c, unsigned p, unsigned n, std::string name = "mdce", unsigned ring = 0,
               unsigned xbits = 0, MdceFreed freed = MdceFreed::none);

  node_t nodes() const noexcept { return nodes_; }
  node_t pes() const noexcept { return nodes_; }
  port_t ports() const noexcept { return static_cast<port_t>(par_ + dims_); }
  Link out_link(node_t v, port_t p) const noexcept {
    const node_t hi = div_(v), x0 = v - hi * ring_;
    const node_t next = x0 + 1 == ring_ ? 0 : x0 + 1;
    if (p < par_) return {hi * ring_ + next, p};
    if (p >= par_ + dims_) return {};
    const unsigned i = p - par_;  // 0-based dimension index
    const unsigned b = colbit_[x0];
    if (i == 0 && b >= xbits_) return freed_ == MdceFreed::parallel ? Link{hi * ring_ + next, p} : Link{};
    const node_t col = delta(i) ? next : x0;
    return {(hi ^ (node_t{1} << (offset(i) + b))) * ring_ + col, p};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    const node_t hi = div_(cur), x0 = cur - hi * ring_;
    const node_t diff = hi ^ div_(dst);  // x1 in X bits, then the other xi in n-bit fields
    const unsigned b = colbit_[x0];
    const bool wraps = x0 + 1 == ring_;
    for (unsigned i = (b < xbits_ ? 0u : 1u); i < dims_; ++i) {
      if ((diff >> (offset(i) + b)) & 1u)
        return Hop::forward(static_cast<port_t>(par_ + i),
                            static_cast<class_t>(cls + (delta(i) && wraps ? 1 : 0)));
    }
    port_t port = static_cast<port_t>(par_ == 1 ? 0 : dst % par_);
    if (freed_ == MdceFreed::parallel && b >= xbits_) {  // P copies and the freed cluster port
      const node_t k = dst % (par_ + 1u);
      port = static_cast<port_t>(k);  // k == P is the cluster port P + 0
    }
    return Hop::forward(port, static_cast<class_t>(cls + (wraps ? 1 : 0)));
  }
  class_t buffer_classes() const noexcept { return classes_; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const;

  /// XOR of the xi (i >= 1) commutes with links and routing: the orbits are the S columns.
  std::uint32_t orbit_count() const noexcept { return ring_; }
  std::uint32_t orbit(node_t v) const noexcept { return v % ring_; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
  /// (x0, xi) -> (x0+1, rotl(xi)) for all i is an automorphism of the basic form (S = X = n).
  bool vertex_transitive() const noexcept { return basic(); }
  /// Traits (rica/topology/family.hpp), defined in this family's files.
  static std::vector<TopologyEntry> registry_entries();
  bool symmetry_keeps_ports() const noexcept { return true; }
  /// The basic MDCE (S = X = n) only.
  std::optional<PartitionLayout> partition_layout(const Topology& self, const PartitionRequest& r) const;
  std::optional<BitAddressing> bit_addressing() const noexcept { return BitAddressing{ring_, "ring-gray"}; }

  unsigned n() const noexcept { return n_; }
  unsigned b() const noexcept { return b_; }
  unsigned c() const noexcept { return c_; }
  unsigned ring() const noexcept { return ring_; }
  unsigned cluster_bits() const noexcept { return xbits_; }
  /// The papers' basic form: ring length n, every dimension n bits.
  bool basic() const noexcept { return ring_ == n_ && xbits_ == n_; }

 private:
  friend class SpiralAdaptive;  // rica/routing/spiral.hpp: reads the column and dimension layout
  unsigned delta(unsigned i) const noexcept { return i < c_ ? 0u : 1u; }
  /// Bit offset of dimension i + 1 in the packed address.
  unsigned offset(unsigned i) const noexcept { return i == 0 ? 0u : xbits_ + (i - 1) * n_; }

  unsigned b_, c_, par_, n_, dims_, ring_, xbits_;
  MdceFreed freed_;
  detail::FastDiv div_;  // division by ring_
  node_t nodes_;
  class_t classes_ = 1;
  std::array<std::uint8_t, max_ring> colbit_{};  // x0 mod n
  std::string name_;
};

}  // namespace rica
