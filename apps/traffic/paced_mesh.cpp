// PacedMeshEmulation: the "mesh" pattern's own schedule under a sweep's rates (traffic.hpp,
// PacedSchedule); registered by the mesh entry of traffic.cpp.
#include <fmt/format.h>

#include <limits>
#include <stdexcept>

#include "traffic.hpp"

namespace rica {

PacedMeshEmulation::PacedMeshEmulation(const traffic::MeshLayout& layout, double rate, std::uint64_t max_rounds)
    : layout_(layout), rate_(rate), max_rounds_(0) {
  if (!(rate > 0.0 && rate <= 1.0))
    throw usage_error(fmt::format("traffic 'mesh': rate = {} is out of range (0, 1]", rate));
  if (max_rounds < 1 || max_rounds > std::numeric_limits<std::uint32_t>::max() / 4)
    throw usage_error(fmt::format("traffic 'mesh': {} rounds per PE is out of range", max_rounds));
  max_rounds_ = static_cast<std::uint32_t>(max_rounds);
}

void PacedMeshEmulation::setup(Machine& m) {
  if (m.pes() != layout_.side * layout_.side)
    throw std::logic_error(fmt::format("traffic 'mesh' was built for {} PEs, run on {}", layout_.side * layout_.side,
                                       m.pes()));
  handler_ = m.add_handler([this](Context& ctx, const Packet& p) { on_packet(ctx, p); });
  pe_.assign(m.pes(), PeState{});
}

bool PacedMeshEmulation::generate(Context& ctx) {
  PeState& s = pe_[ctx.pe()];
  if (s.started >= max_rounds_) return false;
  // Our last round's 4 packets are in (neighbours may already have sent the round we start).
  if (s.completed >= s.started && (rate_ >= 1.0 || ctx.rng().uniform() < rate_)) {
    for (node_t nb : layout_.neighbours(ctx.pe())) ctx.send(nb, handler_, s.started);  // 4, or 2-4 not wrapping
    ++s.started;
  }
  return true;
}

void PacedMeshEmulation::on_packet(Context& ctx, const Packet& p) {
  PeState& s = pe_[ctx.pe()];
  ++s.received;
  const std::uint64_t round = p.payload[0];
  if (round < s.completed || round > s.completed + 1) {
    ++s.stray;
    return;
  }
  ++s.arrived[round & 1];
  const unsigned d = layout_.degree(ctx.pe());  // one packet a round from each neighbour
  while (s.arrived[s.completed & 1] >= d) {     // a round's packets are in; the next may be too
    s.arrived[s.completed & 1] -= d;
    ++s.completed;
  }
}

std::vector<std::uint32_t> PacedMeshEmulation::started() const {
  std::vector<std::uint32_t> out;
  for (const auto& s : pe_) out.push_back(s.started);
  return out;
}

std::vector<std::uint32_t> PacedMeshEmulation::completed() const {
  std::vector<std::uint32_t> out;
  for (const auto& s : pe_) out.push_back(s.completed);
  return out;
}

bool PacedMeshEmulation::verify(std::string& why) const {
  // Every PE receives one packet per round from each PE that lists it as a neighbour.
  std::vector<std::uint64_t> expect(pe_.size(), 0);
  for (node_t q = 0; q < pe_.size(); ++q)
    for (node_t nb : layout_.neighbours(q)) expect[nb] += pe_[q].started;
  for (std::size_t pe = 0; pe < pe_.size(); ++pe) {
    const PeState& s = pe_[pe];
    if (s.stray) {
      why = fmt::format("mesh emulation: PE {} got {} packets outside its round window", pe, s.stray);
      return false;
    }
    if (s.received != expect[pe] || s.completed > s.started + 1) {
      why = fmt::format("mesh emulation: PE {} received {} packets, its neighbours sent it {} (rounds {} started, {} "
                        "completed)", pe, s.received, expect[pe], s.started, s.completed);
      return false;
    }
  }
  return true;
}

nlohmann::json PacedMeshEmulation::summary() const {
  std::uint64_t started = 0, completed = 0;
  for (const auto& s : pe_) started += s.started, completed += s.completed;
  return {{"pattern", layout_.wrap ? "mesh:wrap=1" : "mesh:wrap=0"}, {"paced", true}, {"side", layout_.side},
          {"wrap", layout_.wrap}, {"rate", rate_},
          {"rounds_started", started}, {"rounds_completed", completed}};
}

std::unique_ptr<App> PacedMeshEmulation::make(const SpecArgs& args, const traffic::PeSpace& space, double rate,
                                              std::uint64_t max_rounds) {
  return std::make_unique<PacedMeshEmulation>(traffic::MeshLayout(space, args.choice("wrap", {"0", "1"}) == 1), rate,
                                              max_rounds);
}

}  // namespace rica
