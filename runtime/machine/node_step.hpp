#pragma once
// The one node step of every engine (node_step), and what it is made of: the round-robin visit of
// a node's inputs with its source queue in turn (visit_round_robin), and the stages of fetching a
// node's inputs ahead of its step (prefetch_inputs). The engines differ only in their step policy
// (a template parameter, inlined: no virtual call per hop): what a visit does with a head (the
// async engine moves it at once; the cycle engine delivers it, or offers it to its output port's
// arbitration, which runs at the end of the visit) and their timing. The policy is also the hop
// kernel's driver policy (popped / stamp / pushed, Machine::move).
#include <bit>
#include <cstdint>

#include "machine.hpp"

/// A step policy's hooks carry this: inlined into the one step, as the code of a step written out
/// by hand would be (left to itself GCC kept `forward` and the plan out of line: +3% instructions
/// per hop on the async engine, scripts/engine_costs.sh).
#define RICA_STEP_HOOK __attribute__((always_inline))

namespace rica::detail {

/// Visits a node's inputs once, in round-robin order from input `rr`: the buffer inputs 0..n_buf-1
/// whose bit is set in the node's mask, from rr on, then the source queue (input n_buf, when
/// `source`), then the buffer inputs below rr. mask_word(w) gives word w of the mask (the engine's
/// work bits, less what it excludes); visit(i) handles input i and returns false to end the visit
/// (a batch used up).
/// Precondition: rr <= n_buf. Contract relied on: visiting input i changes at most bit i of the
/// mask, so one read of each mask word serves the whole visit (the same order as re-reading it).
template <class MaskWord, class Visit>
__attribute__((always_inline)) inline void visit_round_robin(std::uint32_t n_buf, std::uint32_t mask_words,
                                                             std::uint32_t rr, bool source, MaskWord&& mask_word,
                                                             Visit&& visit) {
  if (n_buf < 64) {  // one mask word (nearly every machine): rr <= n_buf < 64
    // The source queue is bit n_buf, above every buffer input: rotated right by rr, the word's
    // set bits in ascending order are the round-robin order (one visit site, so it inlines once).
    const std::uint64_t all = mask_word(0u) | (std::uint64_t{source} << n_buf);
    for (std::uint64_t b = std::rotr(all, static_cast<int>(rr)); b; b &= b - 1)
      if (!visit((static_cast<std::uint32_t>(std::countr_zero(b)) + rr) & 63u)) return;
    return;
  }
  // The set bits in [from, to); false once a visit ended it.
  auto range = [&](std::uint32_t from, std::uint32_t to) {
    for (std::uint32_t w = from >> 6; w < mask_words && (w << 6) < to; ++w) {
      const std::uint32_t base = w << 6;
      std::uint64_t bits = mask_word(w);
      if (from > base) bits &= ~std::uint64_t{0} << (from - base);
      if (to < base + 64) bits &= (std::uint64_t{1} << (to - base)) - 1;
      for (; bits; bits &= bits - 1)
        if (!visit(base + static_cast<std::uint32_t>(std::countr_zero(bits)))) return false;
    }
    return true;
  };
  if (!range(rr, n_buf)) return;
  if (source && !visit(n_buf)) return;
  range(0, rr);
}

/// The stages of fetching a node's inputs ahead of its step (run_staged, runtime/machine/staged.hpp),
/// each reading only what the one before fetched: both lines of each input whose bit is set in
/// `bits` (the producer's index, read by empty(), and the consumer's), the front entry of their
/// index rings, their head packets. Reads only the node's own consumer-side state.
enum class InputStage { buffer, ring, slot };
inline void prefetch_inputs(const LinkBuffer* in, std::uint64_t bits, InputStage stage) noexcept {
  for (; bits; bits &= bits - 1) {
    const LinkBuffer& b = in[std::countr_zero(bits)];
    if (stage == InputStage::buffer) {
      __builtin_prefetch(&b);
      __builtin_prefetch(reinterpret_cast<const char*>(&b) + 64);
    } else if (stage == InputStage::ring) {
      b.prefetch_front_index();
    } else {
      b.prefetch_front();
    }
  }
}

/// The step's view of v's out-ports that adaptive selection reads (Machine::select): the
/// policy's `e.ports(v)` when it has one (the cycle engine's: ports taken in this cycle), else
/// NoPortTaken.
template <class E>
__attribute__((always_inline)) inline auto port_view(const E& e, node_t v) noexcept {
  if constexpr (requires { e.ports(v); })
    return e.ports(v);
  else
    return NoPortTaken{};
}

/// One step of node v under engine policy E (runtime/machine/async_core.hpp: the async engine's
/// AsyncCore::Step; runtime/machine/driver_cycle.cpp: CycleDriver::Step; a test's driver:
/// tests/test_driver_registry.cpp). In order:
///  1. `e.held(v)`: the OS holds v (nothing moves there): the step returns true at once;
///  2. `e.begin(s, v)`: the engine's state of v before the turn (fold arrivals into the work mask,
///     account for slept cycles); then a PE's application turn, `e.window_open()` saying whether
///     it may still generate;
///  3. passes over the inputs, round robin from s.rr (advanced by one per pass), the source queue
///     in its turn when `e.source(s)`: `e.mask(w)` gives word w of the inputs to visit. When
///     `E::may_idle` and neither the source nor any input has work, `e.idle(s, v)` ends the step
///     (after s.rr advanced). A visit of input i: `e.has_head(s, i)` (a stale work bit: no head),
///     `e.ready(head)` (its timing allows it to leave), the plan (with port_view(e, v)), then
///     `e.deliver(s, v, i, head)` or `e.forward(s, v, i, head, plan)`, each true when it moved a
///     packet; `e.more()` false ends the visit (a batch used up); `e.again(moved)` whether another
///     pass follows;
///  4. `e.end(s, v)` (the cycle engine's port arbitration, the async engine's announcements):
///     the step's result, true while v has work that does not wait for a wake-up.
/// Precondition: v's state is this thread's (a node is never stepped on two threads at once).
template <class E, class T>
__attribute__((always_inline)) inline bool node_step(Machine& m, const T& t, node_t v, E& e) {
  if (e.held(v)) return true;
  PeState& s = m.pe(v);
  e.begin(s, v);
  if (v < m.pes()) m.app_turn(s, v, e.window_open());
  const std::uint32_t n_buf = m.buffers_per_node();
  const std::uint32_t n_in = n_buf + 1;  // the last "input" is the source queue
  const std::uint32_t words = m.mask_words();
  for (;;) {
    const std::uint32_t rr = s.rr;
    s.rr = rr + 1 >= n_in ? 0 : rr + 1;
    const bool source = e.source(s);
    if constexpr (E::may_idle) {
      bool any = source;
      for (std::uint32_t w = 0; w < words && !any; ++w) any = e.mask(w) != 0;
      if (!any) return e.idle(s, v);
    }
    bool moved = false;
    visit_round_robin(
        n_buf, words, rr, source, [&](std::uint32_t w) { return e.mask(w); },
        [&](std::uint32_t i) __attribute__((always_inline)) {
          if (e.has_head(s, i)) {
            const Packet& head = m.head(s, i);
            if (e.ready(head)) {
              const HopPlan hop = m.plan(t, v, head, port_view(e, v));
              moved |= hop.delivers ? e.deliver(s, v, i, head) : e.forward(s, v, i, head, hop);
            }
          }
          return e.more();
        });
    if (!e.again(moved)) break;
  }
  return e.end(s, v);
}

}  // namespace rica::detail
