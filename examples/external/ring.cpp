#include "ring.hpp"

#include <fmt/format.h>

namespace user {

void RingToken::setup(rica::Machine& m) {
  pes_ = m.pes();
  visits_.assign(pes_, 0);
  // payload[0]: passes made so far. The token stops at PE 0 after laps * N passes.
  token_ = m.add_handler([this](rica::Context& ctx, const rica::Packet& p) {
    const std::uint64_t passes = p.payload[0];
    ++visits_[ctx.pe()];
    if (passes == std::uint64_t{laps_} * pes_) {
      last_hops_ = passes;
      return;
    }
    ctx.send((ctx.pe() + 1) % ctx.pes(), token_, passes + 1);
  });
}

void RingToken::start(rica::Context& ctx) {
  if (ctx.pe() == 0) ctx.send(1 % ctx.pes(), token_, 1);
}

bool RingToken::verify(std::string& why) const {
  for (rica::node_t p = 0; p < pes_; ++p)
    if (visits_[p] != laps_) {
      why = fmt::format("PE {} saw the token {} times, not {}", p, visits_[p], laps_);
      return false;
    }
  if (last_hops_ != std::uint64_t{laps_} * pes_) {
    why = fmt::format("the token stopped after {} passes, not {}", last_hops_, std::uint64_t{laps_} * pes_);
    return false;
  }
  return true;
}

nlohmann::json RingToken::summary() const { return {{"laps", laps_}, {"passes", last_hops_}}; }

}  // namespace user
