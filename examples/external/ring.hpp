#pragma once
// A user's own active-message application, written outside rica against its installed headers.
//
// RingToken: one token circles the PEs in address order, 0 -> 1 -> ... -> N-1 -> 0, `laps` times.
// Each arrival runs the handler on the PE it reaches, which counts the visit and sends the token
// on. Messages: laps * N. verify() checks every PE saw the token exactly `laps` times and the
// token's own hop count.
//
// Threading: per-PE state `visits_[p]` is touched only by handlers running on PE p (rica's
// contract: a PE never runs on two threads at once); verify()/summary() run after the run.
#include <cstdint>
#include <string>
#include <vector>

#include <rica/app.hpp>

namespace user {

class RingToken : public rica::App {
 public:
  explicit RingToken(std::uint32_t laps) : laps_(laps) {}
  void setup(rica::Machine& m) override;
  void start(rica::Context& ctx) override;
  std::uint64_t max_sends_per_pe() const override { return laps_; }
  bool verify(std::string& why) const override;
  nlohmann::json summary() const override;

 private:
  std::uint32_t laps_;
  rica::node_t pes_ = 0;
  rica::handler_t token_ = 0;
  std::vector<std::uint64_t> visits_;  ///< [pe]: arrivals at pe (written only on pe's task)
  std::uint64_t last_hops_ = 0;        ///< the token's count when it stopped (PE 0's task)
};

}  // namespace user
