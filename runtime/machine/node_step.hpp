#pragma once
// What a node's step is made of, for every engine (runtime/machine/async_core.hpp: the async step;
// runtime/machine/driver_cycle.cpp: the cycle step): the round-robin visit of a node's inputs with
// its source queue in turn, and the stages of fetching a node's inputs ahead of its step. The
// engines differ only in what a visit does (the async engine moves a head at once; the cycle
// engine delivers, or offers the head to its output port's arbitration) and in their timing.
#include <bit>
#include <cstdint>

#include "rica/link_buffer.hpp"

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

}  // namespace rica::detail
