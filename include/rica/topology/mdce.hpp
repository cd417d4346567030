#pragma once
// (B, C, P)-MDCE (spec/topologies.md §2): the product of DCE networks sharing their rings.
// Aliases: (CB)^2 = (2,0,1), CCCB = (1,1,1).

#include <string>

#include "rica/topology/model.hpp"

namespace rica {

/// Nodes (x0, x1, ..., xr), r = B + C, 0 <= x0 < n, 0 <= xi < 2^n; node id = x0 + n*(x1 +
/// 2^n*(x2 + ...)). Dimensions 1..C are CCC-type (delta 0), C+1..r c-Banyan-type (delta 1); the
/// cluster address XA is dimension 1, the group address GA dimension 2.
/// Out-ports 0..P-1: parallel copies (x0+1); out-port P+i-1: cross link of dimension i
/// (x0 + delta_i, xi flipped at bit x0). In-port numbers equal the sender's out-port numbers.
/// Routing (note 3): the lowest dimension whose bit x0 differs crosses (CCC-type first, as they
/// come first), else a parallel link (copy dst mod P). The class rises on every wrap of x0.
class MdceTopology {
 public:
  MdceTopology(unsigned b, unsigned c, unsigned p, unsigned n, std::string name = "mdce");

  node_t nodes() const noexcept { return nodes_; }
  node_t pes() const noexcept { return nodes_; }
  port_t ports() const noexcept { return static_cast<port_t>(par_ + dims_); }
  Link out_link(node_t v, port_t p) const noexcept {
    const node_t hi = div_(v), x0 = v - hi * n_;
    if (p < par_) return {hi * n_ + (x0 + 1 == n_ ? 0 : x0 + 1), p};
    if (p >= par_ + dims_) return {};
    const unsigned i = p - par_;  // 0-based dimension index
    const node_t col = x0 + delta(i);
    return {(hi ^ (node_t{1} << (i * n_ + x0))) * n_ + (col == n_ ? 0 : col), p};
  }
  Hop route(node_t cur, node_t dst, class_t cls) const noexcept {
    if (cur == dst) return Hop::deliver();
    const node_t hi = div_(cur), x0 = cur - hi * n_;
    const node_t diff = hi ^ div_(dst);  // the xi packed in n-bit fields
    for (unsigned i = 0; i < dims_; ++i) {
      if ((diff >> (i * n_ + x0)) & 1u)
        return Hop::forward(static_cast<port_t>(par_ + i),
                            static_cast<class_t>(cls + (x0 + delta(i) >= n_ ? 1 : 0)));
    }
    return Hop::forward(static_cast<port_t>(dst % par_),
                        static_cast<class_t>(cls + (x0 + 1 == n_ ? 1 : 0)));
  }
  class_t buffer_classes() const noexcept { return b_ >= 1 ? static_cast<class_t>(b_ + 2) : 3; }
  std::string label(node_t v) const;
  std::string spec() const;
  Shape shape() const;

  /// XOR of the xi (i >= 1) commutes with links and routing: the orbits are the n columns.
  std::uint32_t orbit_count() const noexcept { return n_; }
  std::uint32_t orbit(node_t v) const noexcept { return v % n_; }
  node_t orbit_rep(std::uint32_t k) const noexcept { return k; }
  /// (x0, xi) -> (x0+1, rotl(xi)) for all i is an automorphism.
  bool vertex_transitive() const noexcept { return true; }

  unsigned n() const noexcept { return n_; }
  unsigned b() const noexcept { return b_; }
  unsigned c() const noexcept { return c_; }

 private:
  unsigned delta(unsigned i) const noexcept { return i < c_ ? 0u : 1u; }

  unsigned b_, c_, par_, n_, dims_;
  detail::FastDiv div_;  // division by n_
  node_t nodes_;
  std::string name_;
};

}  // namespace rica
