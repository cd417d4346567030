#pragma once
// "Adaptive CB": adaptive routing for the ring-of-columns networks — c-Banyan and CCC (DCE with
// delta 1 or 0, rica/topology/dce.hpp) and the MDCE family with (CB)^2 and CCCB
// (rica/topology/mdce.hpp). The RWC-1 paper plots an "Adaptive CB" curve without saying how it
// routes; this is our design (docs/topologies.md, "Adaptive CB").
//
// Structure used: a node is (column x, address hi); each hop either advances one column
// (parallel links, c-Banyan-type crosses) or stays (CCC-type crosses); the cross of a dimension
// at column x flips address bit colbit(x) = x mod n of that dimension. A packet must flip every
// differing bit an odd number of times, so it needs one visit to a column of that bit per
// differing c-Banyan-type dimension, and any visit for a CCC-type dimension. When a route laps
// the ring (or the ring is longer than the address, S > n), several columns — several rounds —
// can correct the same bit: that is the freedom.
//
// The deterministic route (greedy: correct at the first opportunity) is shortest; its hop count
// is A + (CCC-type bits to flip), A the column advances: the smallest A = r (mod S), r = the
// column distance, with enough visits to every needed bit's columns (advances() below, from a
// prefix table of visits per bit). Candidates at (x, hi), all shortest:
// - the lowest CCC-type dimension whose bit colbit(x) differs (CCC crosses keep the
//   deterministic dimension order within a column);
// - every c-Banyan-type dimension whose bit colbit(x) differs, when the rest still fits A-1
//   advances;
// - the parallel link(s), deferring the bit(s) of this column to a later round, when the rest
//   still fits A-1 advances.
// The escape is the deterministic route. Classes are the spiral classes of the deterministic
// routing (the class rises by one on every hop from column S-1 to 0) and their count is
// unchanged: every shortest route from x makes the same A advances, so it wraps as often.
// Deadlock freedom: every hop of every candidate either advances the column (and within a class
// the column only grows: the class rises at the wrap) or is a CCC cross within a column in
// ascending dimension order; so every channel dependency goes up in (class, column, dimension)
// and the dependency graph of all channels — escape ones included — is acyclic (checked in
// tests/test_adaptive_routing.cpp). Included by rica/routing.hpp (not on its own).

#include <cstdint>
#include <vector>

#include "rica/routing/candidates.hpp"

namespace rica {

/// The routing state shared by the DCE and MDCE adaptive routings (see above).
class SpiralAdaptive {
 public:
  static constexpr unsigned max_bits = 32;
  explicit SpiralAdaptive(const DceTopology& t) : SpiralAdaptive(t.ring(), t.bits()) {
    dims_.push_back({0, t.bits(), t.delta(), 1});
    for (unsigned x = 0; x < ring_; ++x) {
      const bool crosses = t.wiring() == DceWiring::flip_mod || x < t.bits();
      colbit_[x] = crosses ? static_cast<std::uint8_t>(x % t.bits()) : no_bit;
      par_mask_[x] = crosses ? 1u : 3u;
    }
    finish();
  }
  explicit SpiralAdaptive(const MdceTopology& t) : SpiralAdaptive(t.ring_, t.n_) {
    for (unsigned i = 0; i < t.dims_; ++i)
      dims_.push_back({t.offset(i), i == 0 ? t.xbits_ : t.n_, t.delta(i), static_cast<port_t>(t.par_ + i)});
    for (unsigned x = 0; x < ring_; ++x) {
      colbit_[x] = t.colbit_[x];
      par_mask_[x] = (1u << t.par_) - 1u;
      if (t.freed_ == MdceFreed::parallel && t.colbit_[x] >= t.xbits_) par_mask_[x] |= 1u << t.par_;
    }
    finish();
  }

  /// Adds the shortest candidates at cur (escape already set by the caller; not a delivery).
  void add_candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    const node_t hi = div_(cur), x = cur - hi * ring_, hd = div_(dst), xd = dst - hd * ring_;
    const node_t diff = hi ^ hd;
    const unsigned a = advances(x, xd, diff);
    const node_t nx = x + 1 == ring_ ? 0 : x + 1;
    const class_t up = static_cast<class_t>(cls + (nx == 0 ? 1 : 0));
    const unsigned b = colbit_[x];
    if (b != no_bit) {
      for (const Dim& d : dims_)  // the lowest CCC-type dimension with bit b to flip
        if (d.delta == 0 && b < d.bits && ((diff >> (d.offset + b)) & 1u)) {
          cs.add(d.port, cls);
          break;
        }
      if (a >= 1)
        for (const Dim& d : dims_)
          if (d.delta == 1 && b < d.bits && ((diff >> (d.offset + b)) & 1u) &&
              advances(nx, xd, diff ^ (node_t{1} << (d.offset + b))) + 1 == a)
            cs.add(d.port, up);
    }
    if (a >= 1 && advances(nx, xd, diff) + 1 == a)
      for (std::uint32_t m = par_mask_[x]; m; m &= m - 1) cs.add(static_cast<port_t>(__builtin_ctz(m)), up);
  }

  /// Column advances of a shortest route from column x to column xd with address difference
  /// diff: the smallest A = (xd - x) mod S (mod S) giving every needed bit enough visits.
  unsigned advances(node_t x, node_t xd, node_t diff) const noexcept {
    std::uint8_t cb[max_bits] = {}, cc[max_bits] = {};
    for (const Dim& d : dims_) {
      node_t m = (diff >> d.offset) & ((node_t{1} << d.bits) - 1u);
      for (; m; m &= m - 1) ++(d.delta ? cb : cc)[__builtin_ctz(m)];
    }
    const unsigned r = xd >= x ? xd - x : xd + ring_ - x;
    for (unsigned t = r;; t += ring_) {
      bool ok = true;
      for (unsigned b = 0; b < n_ && ok; ++b)
        ok = visits(x, t, b) >= cb[b] && (cc[b] == 0 || visits(x, t + 1, b) >= 1);
      if (ok || t > 64u * ring_) return t;  // (the bound is never reached: every bit has columns)
    }
  }

 private:
  static constexpr std::uint8_t no_bit = 0xff;
  struct Dim {
    unsigned offset, bits, delta;
    port_t port;
  };
  SpiralAdaptive(unsigned ring, unsigned n) : ring_(ring), n_(n), div_(ring), colbit_(ring), par_mask_(ring) {}
  void finish() {
    pre_.assign((2 * ring_ + 1) * n_, 0);
    for (unsigned c = 0; c < 2 * ring_; ++c)
      for (unsigned b = 0; b < n_; ++b)
        pre_[(c + 1) * n_ + b] = static_cast<std::uint16_t>(pre_[c * n_ + b] + (colbit_[c % ring_] == b ? 1 : 0));
  }
  /// Visits to columns of bit b among the t columns x, x+1, ... (mod S).
  unsigned visits(node_t x, unsigned t, unsigned b) const noexcept {
    const unsigned laps = t / ring_, rem = t - laps * ring_;
    return laps * pre_[ring_ * n_ + b] + pre_[(x + rem) * n_ + b] - pre_[x * n_ + b];
  }

  unsigned ring_, n_;
  detail::FastDiv div_;
  std::vector<Dim> dims_;
  std::vector<std::uint8_t> colbit_;
  std::vector<std::uint32_t> par_mask_;
  std::vector<std::uint16_t> pre_;  ///< [c * n + b]: columns of bit b among 0..c-1 of the doubled ring
};

/// Adaptive CB on c-Banyan / CCC (DCE with delta 1 or 0).
class DceAdaptive {
 public:
  explicit DceAdaptive(const DceTopology& t) : t_(&t), s_(t) {}
  static bool offered(const DceTopology& t) noexcept { return t.delta() <= 1; }
  class_t buffer_classes() const noexcept { return t_->buffer_classes(); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    cs.escape = t_->route(cur, dst, cls);
    if (!cs.escape.delivers()) s_.add_candidates(cur, dst, cls, cs);
  }

 private:
  const DceTopology* t_;
  SpiralAdaptive s_;
};

/// Adaptive CB on the MDCE family ((CB)^2, CCCB, ...).
class MdceAdaptive {
 public:
  explicit MdceAdaptive(const MdceTopology& t) : t_(&t), s_(t) {}
  static bool offered(const MdceTopology& /*t*/) noexcept { return true; }
  class_t buffer_classes() const noexcept { return t_->buffer_classes(); }
  void candidates(node_t cur, node_t dst, class_t cls, CandidateSet& cs) const noexcept {
    cs.escape = t_->route(cur, dst, cls);
    if (!cs.escape.delivers()) s_.add_candidates(cur, dst, cls, cs);
  }

 private:
  const MdceTopology* t_;
  SpiralAdaptive s_;
};

template <>
struct AdaptiveFor<DceTopology> {
  using type = DceAdaptive;
};
template <>
struct AdaptiveFor<MdceTopology> {
  using type = MdceAdaptive;
};

}  // namespace rica
