// RoundApp (round_app.hpp).
#include "round_app.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace rica::hpc {

void RoundApp::setup_rounds(Machine& m, node_t active, unsigned slots) {
  active_ = active;
  st_.assign(m.pes(), State{});
  ex_.setup(m, slots, [this](Context& ctx) { advance(ctx); });
}

void RoundApp::start(Context& ctx) {
  ex_.bind(ctx);
  if (ctx.pe() < active_) advance(ctx);
}

// Enters rounds and consumes them while they are ready; returns when one waits for packets (the
// Exchange calls back on its last packet) or the program is done.
void RoundApp::advance(Context& ctx) {
  State& s = st_[ctx.pe()];
  for (;;) {
    if (!s.entered) {
      if (done(ctx.pe(), s.round)) {
        s.finished = true;
        s.finish = ctx.now();
        return;
      }
      s.entered = true;
      if (!ex_.expect(ctx, s.round, enter(ctx, s.round))) return;
    }
    auto msgs = ex_.take(ctx);
    consume(ctx, s.round, msgs);
    ++s.round;
    s.entered = false;
  }
}

std::uint64_t RoundApp::finish_time() const {
  std::uint64_t t = 0;
  for (const auto& s : st_) t = std::max(t, s.finish);
  return t;
}

node_t RoundApp::finished() const {
  node_t n = 0;
  for (const auto& s : st_) n += s.finished;
  return n;
}

bool RoundApp::verify_rounds(const std::string& app, std::string& why) const {
  if (finished() != active_) {
    why = fmt::format("{}: {} of {} ranks finished", app, finished(), active_);
    return false;
  }
  if (ex_.stray()) {
    why = fmt::format("{}: {} packets overfilled a round", app, ex_.stray());
    return false;
  }
  return true;
}

nlohmann::json RoundApp::round_summary() const {
  return {{"ranks", active_}, {"messages", messages()}, {"packets", packets()}, {"finish", finish_time()}};
}

double hashed_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) noexcept {
  std::uint64_t z = seed * 0x9e3779b97f4a7c15ULL ^ (stream + 1) * 0xbf58476d1ce4e5b9ULL ^ index;
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

}  // namespace rica::hpc
