// Flush (RWC-1 §4; docs/os.md): every floating packet runs on to its destination PE and is saved
// there (Machine delivers a packet of a switched-out job to the OS: OsDriver::on_switched_out).
// Emptiness is detected by counting waves over each outgoing job's I/O tree: each node reports the
// job's packets that entered and left the network at it; sends are frozen by the order, so a wave
// whose sums agree proves the network empty of that job. Then the go order restores the incoming
// job, reaching each node after its I/O depth.
#include "os_policy.hpp"

namespace rica::detail {
namespace {

class Flush final : public SwitchPolicyImpl {
 public:
  std::uint64_t begin(SwitchState& s) override {
    waves_.clear();
    for (unsigned j : s.outgoing()) {
      Wave w{j, SwitchState::tree_depth(static_cast<std::uint32_t>(s.nodes_of(j).size() - 1))};
      waves_.push_back(w);
    }
    return 0;  // no bound: the flush waits for the slowest packet
  }

  void advance(SwitchState& s, std::uint64_t now) override {
    const OsView& m = s.machine();
    const unsigned io = s.os().io_hop_cycles;
    SwitchRecord& rec = s.record();
    for (Wave& w : waves_) {
      if (w.detected) continue;
      const std::uint64_t period = 2ull * io * w.depth_max + 1;
      const std::uint64_t start = s.started_at() + w.wave * period;
      if (now < start) continue;
      const std::uint64_t rel = now - start;
      if (rel % io == 0 && rel / io <= w.depth_max) {
        const auto d = static_cast<std::uint32_t>(rel / io);  // the wave reaches depth d
        const auto& nodes = s.nodes_of(w.job);
        for (std::size_t i = (std::size_t{1} << d) - 1; i < nodes.size() && i < (std::size_t{2} << d) - 1; ++i) {
          w.sum_in += m.net_in(w.job, nodes[i]);
          w.sum_out += m.net_out(w.job, nodes[i]);
        }
      }
      if (rel == period - 1) {  // the convergecast is back at the root
        ++w.wave;
        if (w.sum_in == w.sum_out) {
          w.detected = true;
          w.detected_at = now;
          rec.waves = std::max(rec.waves, w.wave);
          rec.detect_cycles = std::max(rec.detect_cycles, now - s.started_at());
        }
        w.sum_in = w.sum_out = 0;
      }
    }
  }

  std::optional<std::uint64_t> clear(SwitchState& s, const NodeSwitch& n, std::uint64_t, std::uint64_t& packets,
                                     std::uint64_t& words) override {
    const Wave* w = nullptr;
    for (const Wave& f : waves_)
      if (f.job == n.out) w = &f;
    if (!w || !w->detected) return std::nullopt;
    s.machine().halt(n.v);
    const auto& saved = s.saved(n.out, n.v);
    packets += saved.size();
    for (const Packet& p : saved) words += p.words;
    return w->detected_at + std::uint64_t{s.os().io_hop_cycles} * n.depth;  // the go order
  }

 private:
  struct Wave {
    unsigned job;
    std::uint32_t depth_max;
    std::uint64_t wave = 0, sum_in = 0, sum_out = 0;
    std::uint64_t detected_at = 0;
    bool detected = false;
  };
  std::vector<Wave> waves_;
};

}  // namespace

std::unique_ptr<SwitchPolicyImpl> make_flush_policy() { return std::make_unique<Flush>(); }

}  // namespace rica::detail
