// Exchange (exchange.hpp): rounds of messages carried two words per packet.
#include "exchange.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "rica/assert.hpp"
#include "rica/core.hpp"

namespace rica::hpc {

void Exchange::setup(Machine& m, unsigned slots, Ready on_ready) {
  if (slots < 1 || slots > 4096) throw std::logic_error("Exchange: slots must be 1..4096");
  slots_ = slots;
  ready_ = std::move(on_ready);
  handler_.clear();
  for (unsigned s = 0; s < slots; ++s)
    handler_.push_back(m.add_handler([this, s](Context& ctx, const Packet& p) { on_packet(ctx, p, s); }));
  pe_.assign(m.pes(), Pe{});
  for (auto& pe : pe_) pe.slot.resize(slots);
  rank_of_.assign(m.topology().pes(), 0);
}

void Exchange::bind(Context& ctx) { rank_of_[ctx.machine_pe()] = ctx.pe(); }

void Exchange::send(Context& ctx, node_t dst, std::uint64_t round, std::span<const std::uint64_t> words) {
  const unsigned s = static_cast<unsigned>(round % slots_);
  Pe& me = pe_[ctx.pe()];
  if (dst == ctx.pe()) {  // to itself: straight into its own slot, in order
    Slot& slot = me.slot[s];
    for (std::size_t i = 0; i < words.size(); i += 2)
      slot.in.push_back({dst, me.self_seq++, words[i], i + 1 < words.size() ? words[i + 1] : 0});
    return;
  }
  if (!words.empty()) ++me.messages;
  for (std::size_t i = 0; i < words.size(); i += 2) {
    ctx.send(dst, handler_[s], words[i], i + 1 < words.size() ? words[i + 1] : 0);
    ++me.sent;
  }
}

bool Exchange::expect(Context& ctx, std::uint64_t round, std::uint64_t packets) {
  Pe& me = pe_[ctx.pe()];
  me.round = round;
  Slot& slot = me.slot[round % slots_];
  slot.expected = packets;
  if (slot.in.size() > packets) me.stray += slot.in.size() - packets;
  return slot.in.size() >= packets;
}

void Exchange::on_packet(Context& ctx, const Packet& p, unsigned s) {
  Pe& me = pe_[ctx.pe()];
  Slot& slot = me.slot[s];
  if (slot.expected != ~std::uint64_t{0} && slot.in.size() >= slot.expected) {
    ++me.stray;  // more than the round expects: a sender ran `slots` rounds ahead (a kernel bug)
    return;
  }
  slot.in.push_back({rank_of_[p.src], p.seq, p.payload[0], p.payload[1]});
  // Ready exactly when the rank is in this slot's round and its last packet came.
  if (slot.expected != ~std::uint64_t{0} && me.round % slots_ == s && slot.in.size() == slot.expected) ready_(ctx);
}

std::vector<Exchange::Message> Exchange::take(Context& ctx) {
  Pe& me = pe_[ctx.pe()];
  Slot& slot = me.slot[me.round % slots_];
  RICA_ASSERT(slot.in.size() == slot.expected, "take() before the round is ready");
  std::sort(slot.in.begin(), slot.in.end(),
            [](const In& a, const In& b) { return a.src != b.src ? a.src < b.src : a.seq < b.seq; });
  std::vector<Message> out;
  for (const In& i : slot.in) {
    if (out.empty() || out.back().src != i.src) out.push_back({i.src, {}});
    out.back().words.push_back(i.w0);
    out.back().words.push_back(i.w1);
  }
  slot.in.clear();
  slot.expected = ~std::uint64_t{0};
  return out;
}

std::uint64_t Exchange::packets_sent() const {
  std::uint64_t n = 0;
  for (const auto& p : pe_) n += p.sent;
  return n;
}

std::uint64_t Exchange::messages() const {
  std::uint64_t n = 0;
  for (const auto& p : pe_) n += p.messages;
  return n;
}

std::uint64_t Exchange::stray() const {
  std::uint64_t n = 0;
  for (const auto& p : pe_) n += p.stray;
  return n;
}

std::vector<std::uint64_t> to_words(std::span<const double> v) {
  std::vector<std::uint64_t> w(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) w[i] = std::bit_cast<std::uint64_t>(v[i]);
  return w;
}

void from_words(std::span<const std::uint64_t> w, std::span<double> out) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::bit_cast<double>(w[i]);
}

}  // namespace rica::hpc
