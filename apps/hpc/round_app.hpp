#pragma once
// RoundApp: the skeleton of the bulk-synchronous kernels (fft, cg, matmul, bfs; docs/apps.md):
// each active rank runs rounds 0, 1, 2, ... of its own program over an Exchange. Entering a round
// sends that round's messages and names the packets it expects; when they are all here the round's
// messages are consumed, and the rank enters the next round, until its program is done. Ranks at
// or above active() take no part (their PEs still route).
//
// Threading: per-rank state (here and in the kernel) is touched only on that rank's PE task:
// start(), and the Exchange's ready callback, which runs in the handler of the completing packet.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "exchange.hpp"
#include "rica/app.hpp"

namespace rica::hpc {

class RoundApp : public App {
 public:
  void start(Context& ctx) override;
  /// Logical messages and packets sent, the latest finish time (ctx.now(): cycles on the cycle
  /// engine) over the active ranks, and the ranks that finished.
  std::uint64_t messages() const { return ex_.messages(); }
  std::uint64_t packets() const { return ex_.packets_sent(); }
  std::uint64_t finish_time() const;
  node_t finished() const;
  node_t active() const noexcept { return active_; }

 protected:
  /// In setup(): `active` ranks, `slots` rounds in flight at most (see Exchange).
  void setup_rounds(Machine& m, node_t active, unsigned slots);
  /// Sends round `round`'s messages of rank ctx.pe(); returns the packets it expects in it.
  virtual std::uint64_t enter(Context& ctx, std::uint64_t round) = 0;
  /// Round `round`'s messages, in ascending source rank.
  virtual void consume(Context& ctx, std::uint64_t round, std::vector<Exchange::Message>& msgs) = 0;
  /// True when rank `rank` has no round `round` (its program ended before it).
  virtual bool done(node_t rank, std::uint64_t round) const = 0;
  /// The common checks of verify(): every active rank finished, no stray packet.
  bool verify_rounds(const std::string& app, std::string& why) const;
  /// The common figures of summary().
  nlohmann::json round_summary() const;

  Exchange ex_;

 private:
  void advance(Context& ctx);
  struct State {
    std::uint64_t round = 0;
    bool entered = false, finished = false;
    std::uint64_t finish = 0;
  };
  node_t active_ = 0;
  std::vector<State> st_;
};

/// A uniform double in [-1, 1) hashed from (seed, stream, index): the kernels' input data,
/// independent of the decomposition.
double hashed_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) noexcept;

}  // namespace rica::hpc
