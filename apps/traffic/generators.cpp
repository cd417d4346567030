// The traffic Apps: the open-loop generator and the closed-loop mesh emulation (traffic.hpp).
#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

#include "rica/faults.hpp"
#include "traffic.hpp"

namespace rica {
namespace {

void check_options(const TrafficOptions& opt) {
  if (!(opt.rate > 0.0 && opt.rate <= 1.0))
    throw usage_error(fmt::format("traffic: rate = {} is out of range (0, 1]", opt.rate));
  if (opt.packets < 1) throw usage_error("traffic: packets per PE = 0; at least 1 is needed");
  if ((opt.burst_on > 0) != (opt.burst_off > 0) || (opt.burst_on > 0 && (opt.burst_on < 1 || opt.burst_off < 1)))
    throw usage_error(fmt::format("--burst: on {} / off {} opportunities; both must be >= 1 (or no bursts)",
                                  opt.burst_on, opt.burst_off));
}

node_t pattern_pes(const traffic::Pattern& p) {
  return std::visit(
      [](const auto& f) -> node_t {
        using T = std::decay_t<decltype(f)>;
        if constexpr (std::is_same_v<T, traffic::Uniform> || std::is_same_v<T, traffic::Hotspot> ||
                      std::is_same_v<T, traffic::Neighbor>)
          return f.n;
        else if constexpr (std::is_same_v<T, traffic::Quarter>) return 4 * f.part;
        else if constexpr (std::is_same_v<T, traffic::Partitioned>) return static_cast<node_t>(f.slots->size());
        else if constexpr (std::is_same_v<T, traffic::Localized> || std::is_same_v<T, traffic::Tornado>)
          return static_cast<node_t>(shape_size(f.shape));
        else if constexpr (std::is_same_v<T, traffic::Transpose>)
          return f.side ? f.side * f.side : node_t{1} << (2 * f.half);
        else if constexpr (std::is_same_v<T, traffic::BitComplement>) return f.mask + 1;
        else if constexpr (std::is_same_v<T, traffic::BitReverse> || std::is_same_v<T, traffic::Shuffle>)
          return node_t{1} << f.bits;
        else if constexpr (std::is_same_v<T, traffic::RandPerm>) return static_cast<node_t>(f.perm->size());
        else if constexpr (std::is_same_v<T, traffic::Custom>) return f.n;
        else static_assert(sizeof(T) == 0, "pattern_pes: unhandled pattern");
      },
      p);
}

}  // namespace

// ---- OpenLoopTraffic ------------------------------------------------------------------------------

OpenLoopTraffic::OpenLoopTraffic(traffic::Pattern pattern, std::string spec, const TrafficOptions& opt)
    : pattern_(std::move(pattern)), spec_(std::move(spec)), rate_(opt.rate), packets_(opt.packets),
      source_queue_(opt.source_queue) {
  check_options(opt);
  if (opt.burst_on > 0) {
    p_on_off_ = 1.0 / opt.burst_on;
    p_off_on_ = 1.0 / opt.burst_off;
    start_on_ = opt.burst_on / (opt.burst_on + opt.burst_off);
  }
}

void OpenLoopTraffic::setup(Machine& m) {
  const node_t n = m.pes();
  const node_t built_for = pattern_pes(pattern_);
  if (built_for != n)
    throw std::logic_error(fmt::format("traffic '{}' was built for {} PEs, run on {}", spec_, built_for, n));
  handler_ = m.add_handler([this](Context& ctx, const Packet&) { ++received_[ctx.pe()]; });
  quota_.assign(n, packets_);
  sent_.assign(n, 0);
  received_.assign(n, 0);
  on_.assign(n, 2);  // 2: not drawn yet (drawn from the PE's own stream on its first opportunity)
  drawn_.assign(n, 0);
  on_drawn_.assign(n, 0);
  // Failed PEs (docs/faults.md): from fail_at on they are no source and no destination.
  fail_from_.assign(n, ~std::uint64_t{0});
  const std::uint64_t at = fail_cycle(m.topology());
  for (node_t v : failed_nodes(m.topology()))
    if (v < n) fail_from_[v] = at;
  if (at == 0)
    for (node_t v : failed_nodes(m.topology()))
      if (v < n) quota_[v] = 0;
  if (!traffic::is_random(pattern_)) {
    Rng unused;  // deterministic patterns draw nothing
    for (node_t pe = 0; pe < n; ++pe) {
      const node_t d = traffic::destination(pattern_, pe, unused);
      if (d == pe || (at == 0 && fail_from_[d] == 0)) quota_[pe] = 0;  // to itself or to a failed PE: silent
    }
  }
}

bool OpenLoopTraffic::generate(Context& ctx) {
  const node_t pe = ctx.pe();
  std::uint64_t& sent = sent_[pe];
  if (sent >= quota_[pe]) return false;
  if (p_on_off_ > 0) {  // on/off source: switch state, then inject only while on
    std::uint8_t& on = on_[pe];
    if (on == 2)
      on = ctx.rng().uniform() < start_on_;
    else if (on_drawn_[pe])  // this opportunity's off -> on draw was made ahead (look_ahead_off)
      on_drawn_[pe] = 0, on = 1;
    else if (ctx.rng().uniform() < (on ? p_on_off_ : p_off_on_))
      on = !on;
    if (!on) {
      if (ctx.look_ahead_allowed()) look_ahead_off(ctx, pe);
      return true;
    }
  }
  if (source_queue_ == 0 || ctx.backlog() < source_queue_) {
    bool go = rate_ >= 1.0;
    if (!go && drawn_[pe]) {  // this opportunity's draw was made ahead (look_ahead) and succeeded
      drawn_[pe] = 0;
      go = true;
    } else if (!go) {
      go = ctx.rng().uniform() < rate_;
    }
    if (go) {
      node_t dst = traffic::destination(pattern_, pe, ctx.rng());
      if (ctx.now() >= fail_from_[dst]) {  // a failed destination
        if (!traffic::is_random(pattern_)) {  // its only destination failed: this PE stops
          quota_[pe] = sent;
          return false;
        }
        for (unsigned k = 0; k < 64 && ctx.now() >= fail_from_[dst]; ++k) dst = traffic::destination(pattern_, pe, ctx.rng());
        if (ctx.now() >= fail_from_[dst]) return true;  // no live destination drawn: try again next time
      }
      ctx.send(dst, handler_);
      ++sent;
    } else if (p_on_off_ == 0 && ctx.look_ahead_allowed()) {
      look_ahead(ctx, pe);
    }
  }
  return sent < quota_[pe];
}

namespace {
// The look-ahead both cases below share: the PE's next opportunities each draw exactly one
// uniform and send nothing until one falls below p. Makes those draws now, in the same order (on
// a local copy of the stream, kept in registers), at most `cap`, and lets the machine skip the
// failed ones. Returns whether a draw succeeded: the next call then acts on it without drawing.
bool draw_ahead(Context& ctx, double p, std::uint64_t cap) {
  std::uint64_t k = 0;
  bool hit = false;
  Rng r = ctx.rng();
  for (; k < cap && !hit; ++k) hit = r.uniform() < p;
  if (hit) --k;  // the successful draw is the next call's, not a skipped opportunity
  ctx.rng() = r;
  if (k) ctx.skip_opportunities(k);
  return hit;
}
}  // namespace

// After a failed draw at opportunity t (the backlog was below the source-queue bound, and only
// this PE's own sends raise it), every opportunity until the next success draws exactly one
// uniform (the rate) and sends nothing. The next call is the success (drawn_), or, past the cap,
// a fresh draw.
void OpenLoopTraffic::look_ahead(Context& ctx, node_t pe) {
  if (draw_ahead(ctx, rate_, std::uint64_t{1} << 16)) drawn_[pe] = 1;
}

// A source that stays off at opportunity t draws exactly one uniform (off -> on) at each
// opportunity until it turns on, and sends nothing: an off period costs nothing, and the cycle
// engine jumps over it when the network is idle. The next call is the one that turns on
// (on_drawn_), or, past the cap, a fresh draw.
void OpenLoopTraffic::look_ahead_off(Context& ctx, node_t pe) {
  if (draw_ahead(ctx, p_off_on_, std::uint64_t{1} << 20)) on_drawn_[pe] = 1;
}

bool OpenLoopTraffic::verify(std::string& why) const {
  const std::uint64_t total_sent = std::accumulate(sent_.begin(), sent_.end(), std::uint64_t{0});
  const std::uint64_t total_received = std::accumulate(received_.begin(), received_.end(), std::uint64_t{0});
  if (total_sent != total_received) {
    why = fmt::format("traffic '{}': {} packets sent, {} received", spec_, total_sent, total_received);
    return false;
  }
  for (std::size_t pe = 0; pe < sent_.size() && !window_closed_; ++pe)
    if (sent_[pe] != quota_[pe] && fail_from_[pe] == ~std::uint64_t{0}) {  // a PE that failed stopped short
      why = fmt::format("traffic '{}': PE {} sent {} of its {} packets", spec_, pe, sent_[pe], quota_[pe]);
      return false;
    }
  if (!traffic::is_random(pattern_)) {
    // Deterministic: each PE must have received exactly what its sources sent it.
    std::vector<std::uint64_t> expect(received_.size(), 0);
    Rng unused;
    for (node_t pe = 0; pe < static_cast<node_t>(sent_.size()); ++pe)
      if (sent_[pe]) expect[traffic::destination(pattern_, pe, unused)] += sent_[pe];
    for (std::size_t pe = 0; pe < expect.size(); ++pe)
      if (expect[pe] != received_[pe]) {
        why = fmt::format("traffic '{}': PE {} received {} packets, {} were sent to it", spec_, pe, received_[pe],
                          expect[pe]);
        return false;
      }
  }
  return true;
}

// Under mpirun: what verify() reads of a PE (its sends and receipts) moves to rank 0.
std::string OpenLoopTraffic::pe_result(node_t pe) const {
  std::string out;
  detail::put_bytes(out, sent_[pe]);
  detail::put_bytes(out, received_[pe]);
  return out;
}
void OpenLoopTraffic::merge_pe_result(node_t pe, const std::string& bytes) {
  detail::ByteReader r{bytes};
  r.get(sent_[pe]);
  r.get(received_[pe]);
}

nlohmann::json OpenLoopTraffic::summary() const {
  std::uint64_t silent = 0;
  for (auto q : quota_) silent += q == 0;
  return {{"pattern", spec_},
          {"rate", rate_},
          {"packets_per_pe", packets_},
          {"source_queue", source_queue_},
          {"burst", p_on_off_ > 0 ? nlohmann::json{{"on", 1.0 / p_on_off_}, {"off", 1.0 / p_off_on_}} : nlohmann::json()},
          {"silent_pes", silent},
          {"sent", std::accumulate(sent_.begin(), sent_.end(), std::uint64_t{0})},
          {"received", std::accumulate(received_.begin(), received_.end(), std::uint64_t{0})}};
}

// ---- MeshEmulation --------------------------------------------------------------------------------

MeshEmulation::MeshEmulation(const traffic::MeshLayout& layout, const TrafficOptions& opt)
    : layout_(layout), iterations_(1) {
  check_options(opt);
  const std::uint64_t it = std::max<std::uint64_t>(1, opt.packets / 4);
  if (it > std::numeric_limits<std::uint32_t>::max() / 4)
    throw usage_error(fmt::format("traffic 'mesh': {} packets per PE is too many", opt.packets));
  iterations_ = static_cast<std::uint32_t>(it);
}

void MeshEmulation::setup(Machine& m) {
  if (m.pes() != layout_.side * layout_.side)
    throw std::logic_error(fmt::format("traffic 'mesh' was built for {} PEs, run on {}", layout_.side * layout_.side,
                                       m.pes()));
  handler_ = m.add_handler([this](Context& ctx, const Packet& p) { on_packet(ctx, p); });
  pe_.assign(m.pes(), PeState{});
  // The neighbour relation is symmetric: a PE receives one packet per iteration from each of its
  // own neighbours, so it waits for as many as it sends (4 wrapping; 2, 3 or 4 not).
  for (node_t pe = 0; pe < m.pes(); ++pe)
    for (JoinCounter& j : pe_[pe].join) j.need = layout_.degree(pe);
}

void MeshEmulation::send_round(Context& ctx, PeState& s, std::uint32_t iteration) {
  const auto nbs = layout_.neighbours(ctx.pe());
  for (node_t nb : nbs) ctx.send(nb, handler_, iteration);
  s.sent += nbs.size();
}

void MeshEmulation::start(Context& ctx) {
  PeState& s = pe_[ctx.pe()];
  s.started = true;
  send_round(ctx, s, 0);
  advance(ctx, s);  // iteration 0 may already be complete if neighbours started first
}

void MeshEmulation::advance(Context& ctx, PeState& s) {
  while (s.completed < iterations_ && s.ready[s.completed & 1]) {
    s.ready[s.completed & 1] = false;
    ++s.completed;
    if (s.completed < iterations_) send_round(ctx, s, s.completed);
  }
}

void MeshEmulation::on_packet(Context& ctx, const Packet& p) {
  PeState& s = pe_[ctx.pe()];
  ++s.received;
  const std::uint64_t it = p.payload[0];
  // A neighbour sends iteration i+1 only after receiving our iteration i, which we send after
  // completing i-1: arrivals belong to the current iteration or the next one (the current one
  // only, before start()).
  const std::uint64_t window = s.started ? 1 : 0;
  if (it < s.completed || it > s.completed + window || it >= iterations_) {
    ++s.stray;
    return;
  }
  if (s.join[it & 1].arrive()) s.ready[it & 1] = true;
  if (s.started) advance(ctx, s);
}

std::vector<std::uint32_t> MeshEmulation::completed() const {
  std::vector<std::uint32_t> out;
  out.reserve(pe_.size());
  for (const auto& s : pe_) out.push_back(s.completed);
  return out;
}

std::vector<std::uint32_t> MeshEmulation::join_counts() const {
  std::vector<std::uint32_t> out;
  out.reserve(pe_.size());
  for (const auto& s : pe_) out.push_back(s.join[0].need);
  return out;
}

std::vector<std::uint64_t> MeshEmulation::received() const {
  std::vector<std::uint64_t> out;
  out.reserve(pe_.size());
  for (const auto& s : pe_) out.push_back(s.received);
  return out;
}

std::vector<std::uint64_t> MeshEmulation::sent() const {
  std::vector<std::uint64_t> out;
  out.reserve(pe_.size());
  for (const auto& s : pe_) out.push_back(s.sent);
  return out;
}

bool MeshEmulation::verify(std::string& why) const {
  for (std::size_t pe = 0; pe < pe_.size(); ++pe) {
    const PeState& s = pe_[pe];
    if (s.stray) {
      why = fmt::format("mesh emulation: PE {} got {} packets outside its iteration window", pe, s.stray);
      return false;
    }
    const std::uint64_t d = layout_.degree(static_cast<node_t>(pe));
    if (s.completed != iterations_ || s.received != d * iterations_ || s.sent != d * iterations_) {
      why = fmt::format("mesh emulation: PE {} completed {} of {} iterations (sent {}, received {})", pe,
                        s.completed, iterations_, s.sent, s.received);
      return false;
    }
  }
  return true;
}

nlohmann::json MeshEmulation::summary() const {
  return {{"pattern", layout_.wrap ? "mesh:wrap=1" : "mesh:wrap=0"},
          {"side", layout_.side},
          {"wrap", layout_.wrap},
          {"iterations", iterations_},
          {"packets_per_pe", 4ULL * iterations_},  // at most: a non-wrapping border PE sends 2 or 3 a round
          {"packets", layout_.packets_per_round() * iterations_}};
}

}  // namespace rica
