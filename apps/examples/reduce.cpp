// TreeReduce (reduce.hpp): a binomial-tree sum and broadcast with active messages.
#include "reduce.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "rica/core.hpp"

namespace rica::examples {

TreeReduce::TreeReduce(std::uint32_t rounds) : rounds_(rounds) {
  if (rounds_ < 1) throw usage_error("reduce: rounds = 0; at least 1 is needed");
}

std::vector<node_t> TreeReduce::children(node_t pe, node_t pes) {
  std::vector<node_t> out;
  const std::uint64_t low = pe == 0 ? ~std::uint64_t{0} : (pe & (~pe + 1));  // lowest set bit
  for (std::uint64_t step = 1; step < low && pe + step < pes; step <<= 1)
    out.push_back(static_cast<node_t>(pe + step));
  return out;
}

std::uint64_t TreeReduce::value(std::uint64_t seed, node_t pe, std::uint32_t round) noexcept {
  Rng r(seed ^ pe);
  return r.below(1000) + round;
}

// Single-threaded, before the run: two handlers, per-PE state, the exact send bound.
void TreeReduce::setup(Machine& m) {
  seed_ = m.seed();
  up_ = m.add_handler([this](Context& ctx, const Packet& p) { on_partial(ctx, p); });
  down_ = m.add_handler([this](Context& ctx, const Packet& p) { on_total(ctx, p); });
  const node_t n = m.pes();
  pe_.assign(n, PeState{});
  std::uint64_t most = 0;
  for (node_t p = 0; p < n; ++p) {
    PeState& s = pe_[p];
    s.children = children(p, n);
    s.join.need = static_cast<std::uint32_t>(s.children.size());
    s.totals.assign(rounds_, 0);
    // Per round: one partial sum up (every PE but the root) and one total per child down.
    most = std::max<std::uint64_t>(most, (p != 0 ? 1 : 0) + s.children.size());
  }
  max_sends_ = most * rounds_;
}

// On PE ctx.pe()'s task, before any handler runs there.
void TreeReduce::start(Context& ctx) { begin_round(ctx, pe_[ctx.pe()]); }

void TreeReduce::begin_round(Context& ctx, PeState& s) {
  for (;;) {
    s.partial = value(seed_, ctx.pe(), s.round);
    if (!s.children.empty()) return;  // partial sums to wait for
    if (ctx.pe() != 0) {              // a leaf: nothing to wait for
      ctx.send(parent(ctx.pe()), up_, s.partial, s.round);
      return;
    }
    // One PE: the root is a leaf and its value the total (nothing sent, not to itself either:
    // that added its value twice). Every round at once, in a loop (no recursion per round).
    s.totals[s.round] = s.partial;
    if (++s.round == rounds_) return;
  }
}

// Handler "up": payload = (a child's partial sum, round).
void TreeReduce::on_partial(Context& ctx, const Packet& p) {
  PeState& s = pe_[ctx.pe()];
  if (p.payload[1] != s.round) {  // cannot happen: a child starts round r+1 only after our total r
    ++s.stray;
    return;
  }
  s.partial += p.payload[0];
  if (!s.join.arrive()) return;  // more children to come
  if (ctx.pe() == 0)
    finish_round(ctx, s, s.partial);  // the root: its partial sum is the total
  else
    ctx.send(parent(ctx.pe()), up_, s.partial, s.round);
}

// Handler "down": payload = (the total, round).
void TreeReduce::on_total(Context& ctx, const Packet& p) {
  PeState& s = pe_[ctx.pe()];
  if (p.payload[1] != s.round) {
    ++s.stray;
    return;
  }
  finish_round(ctx, s, p.payload[0]);
}

void TreeReduce::finish_round(Context& ctx, PeState& s, std::uint64_t total) {
  s.totals[s.round] = total;
  for (node_t c : s.children) ctx.send(c, down_, total, s.round);
  if (++s.round < rounds_) begin_round(ctx, s);
}

// Single-threaded, after the run: every PE has every round's total, equal to a serial sum.
bool TreeReduce::verify(std::string& why) const {
  const node_t n = static_cast<node_t>(pe_.size());
  for (std::uint32_t r = 0; r < rounds_; ++r) {
    std::uint64_t expect = 0;
    for (node_t p = 0; p < n; ++p) expect += value(seed_, p, r);
    for (node_t p = 0; p < n; ++p) {
      const PeState& s = pe_[p];
      if (s.stray) {
        why = fmt::format("reduce: PE {} got {} packets of an unexpected round", p, s.stray);
        return false;
      }
      if (s.round != rounds_) {
        why = fmt::format("reduce: PE {} completed {} of {} rounds", p, s.round, rounds_);
        return false;
      }
      if (s.totals[r] != expect) {
        why = fmt::format("reduce: PE {} has total {} in round {}, the serial sum is {}", p, s.totals[r], r, expect);
        return false;
      }
    }
  }
  return true;
}

nlohmann::json TreeReduce::summary() const {
  const std::uint64_t n = pe_.size();
  return {{"app", "reduce"},
          {"rounds", rounds_},
          {"total", n ? pe_[0].totals[0] : 0},  // round 0: the sum of the seeded values
          {"messages", 2 * rounds_ * (n ? n - 1 : 0)}};
}

}  // namespace rica::examples
