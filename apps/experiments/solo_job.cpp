// solo_job.hpp: a traffic job of one PE holds its PE for its traffic's duration, sending nothing.
#include "solo_job.hpp"

#include <fmt/format.h>

#include "rica/core.hpp"

namespace rica::experiments {
namespace {

class SoloJob final : public App {
 public:
  SoloJob(std::string pattern, std::uint64_t cycles) : pattern_(std::move(pattern)), cycles_(cycles), left_(cycles) {}
  void setup(Machine& m) override {
    if (m.pes() != 1) throw usage_error(fmt::format("job '{}': a one-PE job placed on {} PEs", pattern_, m.pes()));
    left_ = cycles_;
  }
  // One PE, its task only: left_ is its state.
  bool generate(Context& ctx) override {
    if (left_ == 0) return false;
    --left_;  // this opportunity
    if (left_ > 0 && ctx.look_ahead_allowed()) {  // the rest draw and send nothing: skip them at once
      ctx.skip_opportunities(left_);
      left_ = 0;
      return true;
    }
    return left_ > 0;
  }
  std::uint64_t max_sends_per_pe() const override { return 1; }  // none; 0 would mean "unknown"
  bool verify(std::string& why) const override {
    if (left_ == 0) return true;
    why = fmt::format("job '{}' (one PE): {} of its {} cycles left", pattern_, left_, cycles_);
    return false;
  }
  nlohmann::json summary() const override {
    return {{"app", pattern_}, {"pes", 1}, {"cycles", cycles_}, {"packets", 0},
            {"note", "one PE: the pattern has no other PE to send to; the job holds its PE for its cycles"}};
  }

 private:
  std::string pattern_;
  std::uint64_t cycles_, left_;
};

}  // namespace

std::unique_ptr<App> make_solo_job(const std::string& pattern, std::uint64_t cycles) {
  return std::make_unique<SoloJob>(pattern, std::max<std::uint64_t>(1, cycles));
}

}  // namespace rica::experiments
