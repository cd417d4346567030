// MpiReplay (mpi_replay.hpp): the closed-loop replay of a recorded MPI program.
#include "mpi_replay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "rica/core.hpp"
#include "rica/io.hpp"
#include "rica/wake.hpp"

namespace rica::replay {

namespace {
constexpr std::uint32_t none = ~0u;
/// A blocked rank sleeps until an arrival wakes it (cycle engine): skip "for ever" (the machine
/// clamps the wake-up to the end of the window).
constexpr std::uint64_t forever = std::uint64_t{1} << 40;
}  // namespace

bool is_mpi_replay(const App& a) noexcept { return dynamic_cast<const MpiReplay*>(&a) != nullptr; }

std::vector<std::pair<std::string, std::string>> parse_collectives(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string s = text;
  if (s.size() >= 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t end = s.find_first_of(",+", at);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(at, end - at);
    const auto eq = item.find_first_of("=:");
    if (item.empty() || eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw usage_error(fmt::format("--collectives: {} must be KIND=ALGORITHM (e.g. allreduce=ring)", quote_input(item)));
    out.emplace_back(item.substr(0, eq), item.substr(eq + 1));
    at = end + 1;
  }
  return out;
}

MpiReplay::MpiReplay(ReplayConfig c, node_t pes) : MpiReplay(nullptr, std::move(c), pes) {}

MpiReplay::MpiReplay(std::shared_ptr<const Trace> t, ReplayConfig c, node_t pes) : cfg_(std::move(c)) {
  if (cfg_.packet_bytes < 1 || cfg_.packet_bytes > (std::uint64_t{1} << 30))
    throw usage_error(fmt::format("replay: packet_bytes = {} is out of range [1, 2^30]", cfg_.packet_bytes));
  if (!(cfg_.compute_scale >= 0) || !std::isfinite(cfg_.compute_scale) || cfg_.compute_scale > 1e15)
    throw usage_error(fmt::format("replay: compute_scale = {} is out of range [0, 1e15] (cycles per recorded second)",
                                  cfg_.compute_scale));
  if (cfg_.map != "identity" && cfg_.map != "random" && cfg_.map != "embed" && !std::filesystem::exists(cfg_.map))
    throw usage_error(fmt::format("replay: map = {}: not {} (no such file)", quote_input(cfg_.map), map_names));
  if (!cfg_.collectives.empty()) (void)parse_collectives(cfg_.collectives);
  if (!t) {
    auto tr = std::make_shared<Trace>(read_otf2(cfg_.trace));
    if (tr->ranks > pes)
      throw usage_error(fmt::format("replay: the trace has {} ranks, the machine {} PEs; rica runs one rank per PE "
                                    "(give a topology with at least {} PEs)",
                                    tr->ranks, pes, tr->ranks));
    expand_collectives(*tr, cfg_.collectives);
    match(*tr);
    t = std::move(tr);
  } else {
    bool colls = false;
    for (const auto& v : t->ops)
      for (const Op& o : v) colls = colls || o.kind == OpKind::coll;
    if (colls || !t->matched) {  // a trace given unexpanded or unmatched: expand and match a copy
      auto tr = std::make_shared<Trace>(*t);
      expand_collectives(*tr, cfg_.collectives);
      match(*tr);
      t = std::move(tr);
    }
  }
  trace_ = std::move(t);
  const Trace& tr = *trace_;
  if (tr.ranks > pes)
    throw usage_error(fmt::format("replay: the trace has {} ranks, the machine {} PEs; rica runs one rank per PE "
                                  "(give a topology with at least {} PEs)",
                                  tr.ranks, pes, tr.ranks));
  // Static figures and the exact send bound per rank (data packets, request- and clear-to-send).
  std::vector<std::uint64_t> sends(tr.ranks, 0);
  for (std::uint32_t r = 0; r < tr.ranks; ++r)
    for (const Op& o : tr.ops[r]) {
      if (o.kind == OpKind::send) {
        if (o.comm & collective_comm) {
          ++coll_messages_;
          coll_bytes_ += o.bytes;
        } else {
          ++messages_;
          bytes_ += o.bytes;
        }
        if (o.peer == r) continue;  // to itself: no packets
        sends[r] += packets_of(o.bytes) + (eager(o) ? 0 : 1);
        total_packets_ += packets_of(o.bytes) + (eager(o) ? 0 : 2);
      } else if (o.kind == OpKind::recv && o.peer != r) {
        const Op& s = tr.ops[o.peer][o.ref];
        if (!eager(s)) ++sends[r];  // its clear-to-send
      }
    }
  max_sends_ = sends.empty() ? 0 : *std::max_element(sends.begin(), sends.end());
}

std::uint64_t MpiReplay::packets_of(std::uint64_t b) const noexcept {
  return b == 0 ? 1 : (b + cfg_.packet_bytes - 1) / cfg_.packet_bytes;
}
bool MpiReplay::eager(const Op& o) const noexcept {
  switch (o.mode) {
    case SendMode::synchronous: return false;
    case SendMode::buffered:
    case SendMode::ready: return true;
    case SendMode::standard: return o.bytes <= cfg_.eager_bytes;
  }
  return true;
}
std::uint64_t MpiReplay::gap_cycles(const Op& o) const noexcept {
  if (cfg_.compute_scale <= 0 || o.gap_ns == 0) return 0;
  return static_cast<std::uint64_t>(std::llround(static_cast<double>(o.gap_ns) * 1e-9 * cfg_.compute_scale));
}

// ---- the map ------------------------------------------------------------------------------------

void MpiReplay::build_map(const Topology& topo, node_t pes, std::uint64_t seed) {
  const std::uint32_t n = trace_->ranks;
  rank_pe_.assign(n, 0);
  if (cfg_.map == "identity") {
    std::iota(rank_pe_.begin(), rank_pe_.end(), node_t{0});
    map_resolved_ = "identity";
  } else if (cfg_.map == "random") {
    std::vector<node_t> p(pes);
    std::iota(p.begin(), p.end(), node_t{0});
    Rng rng(seed ^ 0x5265706c61794d61ULL);  // "ReplayMa"
    for (node_t i = pes; i > 1; --i) std::swap(p[i - 1], p[rng.below(i)]);
    std::copy(p.begin(), p.begin() + n, rank_pe_.begin());
    map_resolved_ = "random";
  } else if (cfg_.map == "embed") {
    if (pes != topo.pes() || n > 4096) {
      std::iota(rank_pe_.begin(), rank_pe_.end(), node_t{0});
      map_resolved_ = pes != topo.pes() ? "identity (embed: a job's PEs)" : "identity (embed: above 4,096 ranks)";
    } else {
      // Greedy: ranks in order of communication volume, each onto the free PE nearest (in routed
      // hops, weighted by bytes) to its partners already placed.
      std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> adj(n);
      {
        std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> w;
        for (std::uint32_t r = 0; r < n; ++r)
          for (const Op& o : trace_->ops[r])
            if (o.kind == OpKind::send && o.peer != r) w[{std::min(r, o.peer), std::max(r, o.peer)}] += o.bytes + 1;
        for (const auto& [k, v] : w) adj[k.first].emplace_back(k.second, v), adj[k.second].emplace_back(k.first, v);
      }
      auto hops = [&](node_t s, node_t d) {
        unsigned h = 0;
        topo.visit([&](const auto& t) {
          node_t cur = s;
          class_t cls = 0;
          for (;;) {
            const Hop hop = t.route(cur, d, cls);
            if (hop.delivers()) break;
            const Link l = t.out_link(cur, hop.port());
            if (!l.present() || ++h > t.nodes()) break;
            cur = l.peer;
            cls = hop.next_class();
          }
        });
        return h;
      };
      std::vector<std::uint64_t> vol(n, 0);
      for (std::uint32_t r = 0; r < n; ++r)
        for (const auto& [p, v] : adj[r]) vol[r] += v;
      std::vector<bool> placed(n, false), used(pes, false);
      for (std::uint32_t k = 0; k < n; ++k) {
        // Next: the unplaced rank with the most traffic to placed ranks (the heaviest overall first).
        std::uint32_t best = none;
        std::uint64_t best_w = 0;
        for (std::uint32_t r = 0; r < n; ++r) {
          if (placed[r]) continue;
          std::uint64_t w = 0;
          for (const auto& [p, v] : adj[r])
            if (placed[p]) w += v;
          const std::uint64_t key = w * 2 + (w == 0 ? vol[r] : 0);
          if (best == none || key > best_w) best = r, best_w = key;
        }
        node_t where = 0;
        std::uint64_t cost_best = ~std::uint64_t{0};
        for (node_t pe = 0; pe < pes; ++pe) {
          if (used[pe]) continue;
          std::uint64_t cost = 0;
          for (const auto& [p, v] : adj[best])
            if (placed[p]) cost += v * (hops(pe, rank_pe_[p]) + hops(rank_pe_[p], pe));
          if (cost < cost_best) cost_best = cost, where = pe;
          if (cost == 0 && k == 0) break;  // the first rank: PE 0
        }
        rank_pe_[best] = where;
        placed[best] = true;
        used[where] = true;
      }
      map_resolved_ = "embed (greedy)";
    }
  } else {
    const std::string what = fmt::format("replay: map={}", cfg_.map);
    const std::string text = read_text_file(cfg_.map, what, ReadLimits{std::uint64_t{64} << 20, 4096});
    std::vector<bool> used(pes, false);
    std::uint32_t r = 0;
    std::size_t line = 0, start = 0;
    while (start <= text.size()) {
      std::size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      std::string l = text.substr(start, nl - start);
      start = nl + 1;
      ++line;
      if (const auto h = l.find('#'); h != std::string::npos) l.erase(h);
      const auto b = l.find_first_not_of(" \t\r");
      if (b == std::string::npos) {
        if (nl == text.size()) break;
        continue;
      }
      l = l.substr(b, l.find_last_not_of(" \t\r") - b + 1);
      if (r >= n) throw usage_error(fmt::format("{}: line {}: more lines than the trace's {} ranks", what, line, n));
      const auto pe = parse_uint(l, fmt::format("{}: line {}: the PE of rank {}", what, line, r), 0, pes - 1);
      if (used[pe]) throw usage_error(fmt::format("{}: line {}: PE {} is given to two ranks", what, line, pe));
      used[pe] = true;
      rank_pe_[r++] = static_cast<node_t>(pe);
      if (nl == text.size()) break;
    }
    if (r != n) throw usage_error(fmt::format("{}: {} lines; one PE per rank is needed ({})", what, r, n));
    map_resolved_ = "file " + cfg_.map;
  }
  pe_rank_.assign(pes, none);
  for (std::uint32_t r = 0; r < n; ++r) pe_rank_[rank_pe_[r]] = r;
}

// ---- the run --------------------------------------------------------------------------------------

void MpiReplay::setup(Machine& m) {
  if (m.pes() < trace_->ranks)
    throw std::logic_error(fmt::format("replay: {} ranks on {} PEs", trace_->ranks, m.pes()));
  h_data_ = m.add_handler([this](Context& ctx, const Packet& p) {
    on_data(ctx, pe_rank_[ctx.pe()], static_cast<std::uint32_t>(p.payload[0]), p.payload[1], 1);
    if (!ctx.cycle_clock()) activity_.fetch_sub(1, std::memory_order_acq_rel);
  });
  h_rts_ = m.add_handler([this](Context& ctx, const Packet& p) {
    on_rts(ctx, pe_rank_[ctx.pe()], static_cast<std::uint32_t>(p.payload[0]));
    if (!ctx.cycle_clock()) activity_.fetch_sub(1, std::memory_order_acq_rel);
  });
  h_cts_ = m.add_handler([this](Context& ctx, const Packet& p) {
    on_cts(ctx, pe_rank_[ctx.pe()], static_cast<std::uint32_t>(p.payload[0]), p.payload[1]);
    if (!ctx.cycle_clock()) activity_.fetch_sub(1, std::memory_order_acq_rel);
  });
  build_map(m.topology(), m.pes(), m.seed());
  ranks_.assign(trace_->ranks, Rank{});
  for (std::uint32_t r = 0; r < trace_->ranks; ++r) ranks_[r].rt.assign(trace_->ops[r].size(), OpRt{});
  window_closed_ = false;
  activity_.store(trace_->ranks, std::memory_order_relaxed);
  stuck_.store(false, std::memory_order_relaxed);
}

void MpiReplay::start(Context& ctx) {
  const std::uint32_t r = pe_rank_[ctx.pe()];
  if (r == none) return;
  ranks_[r].started = true;
  advance(ctx, r);
}

bool MpiReplay::generate(Context& ctx) {
  const std::uint32_t rank = pe_rank_[ctx.pe()];
  if (rank == none) return false;
  Rank& r = ranks_[rank];
  if (r.finished) return false;
  const std::uint64_t now = ctx.now();
  if (r.in_gap && now >= r.ready_at) advance(ctx, rank);
  if (r.finished) return false;
  const bool sleep = ctx.cycle_clock() && ctx.look_ahead_allowed();
  if (r.in_gap) {
    if (sleep && r.ready_at > now + 1) ctx.skip_opportunities(r.ready_at - now - 1);
    return true;
  }
  if (r.blocked != none) {
    if (sleep) {
      ctx.skip_opportunities(forever);
    } else if (!ctx.cycle_clock() && activity_.load(std::memory_order_acquire) == 0) {
      stuck_.store(true, std::memory_order_relaxed);  // nothing in flight, nobody runnable: a deadlock
      return false;
    }
  }
  return true;
}

void MpiReplay::advance(Context& ctx, std::uint32_t rank) {
  Rank& r = ranks_[rank];
  const std::vector<Op>& ops = trace_->ops[rank];
  while (r.pc < ops.size()) {
    const Op& o = ops[r.pc];
    const std::uint64_t now = ctx.now();
    if (!r.gap_done) {
      if (!r.in_gap) {
        const std::uint64_t g = gap_cycles(o);
        if (g > 0) {
          r.in_gap = true;
          r.ready_at = now + g;
          r.compute_cycles += g;
          rica::wake(ctx);  // generate() times the gap (a handler may have resumed this rank)
          return;
        }
      } else if (now < r.ready_at) {
        return;
      }
      r.in_gap = false;
      r.gap_done = true;
    }
    const std::uint32_t i = r.pc;
    switch (o.kind) {
      case OpKind::send:
        start_send(ctx, rank, i);
        if (o.blocking && !(r.rt[i].flags & f_done)) return block(ctx, r, i);
        break;
      case OpKind::recv:
        post_recv(ctx, rank, i);
        if (o.blocking && !(r.rt[i].flags & f_done)) return block(ctx, r, i);
        break;
      case OpKind::wait:
        if (o.ref != none && !(r.rt[o.ref].flags & f_done)) return block(ctx, r, o.ref);
        break;
      case OpKind::coll:
        break;  // refused at construction
    }
    ++r.pc;
    r.gap_done = false;
  }
  r.finished = true;
  r.finish = ctx.now();
  if (!ctx.cycle_clock()) activity_.fetch_sub(1, std::memory_order_acq_rel);
  rica::wake(ctx);  // generate() sees it finished and stops
}

void MpiReplay::block(Context& ctx, Rank& r, std::uint32_t op) {
  r.blocked = op;
  r.block_start = ctx.now();
  if (!ctx.cycle_clock()) activity_.fetch_sub(1, std::memory_order_acq_rel);
}

void MpiReplay::completed(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint32_t cause_rank,
                          std::uint64_t cause_time) {
  Rank& r = ranks_[rank];
  OpRt& q = r.rt[op];
  q.flags |= f_done;
  q.cause_rank = cause_rank;
  q.cause_time = cause_time;
  if (r.blocked != op) return;
  const std::uint64_t now = ctx.now();
  r.blocked = none;
  r.blocked_cycles += now - r.block_start;
  if (now > r.block_start) r.episodes.push_back({r.pc, r.block_start, now, cause_rank, cause_time});
  if (!ctx.cycle_clock()) activity_.fetch_add(1, std::memory_order_acq_rel);
  ++r.pc;
  r.gap_done = false;
  advance(ctx, rank);
}

void MpiReplay::start_send(Context& ctx, std::uint32_t rank, std::uint32_t op) {
  Rank& r = ranks_[rank];
  const Op& o = trace_->ops[rank][op];
  OpRt& q = r.rt[op];
  q.start = ctx.now();
  ++r.sent;
  r.bytes_sent += o.bytes;
  if (o.peer == rank) {  // to itself: no network
    if (eager(o) || (ranks_[rank].rt[o.ref].flags & f_posted)) {
      on_data(ctx, rank, o.ref, q.start, packets_of(o.bytes));
      if (!(q.flags & f_done)) completed(ctx, rank, op, rank, q.start);
    } else {
      r.rt[o.ref].flags |= f_rts;  // the receive, once posted, completes both
    }
    return;
  }
  if (eager(o)) {
    send_data(ctx, rank, op);
    q.flags |= f_done;  // eager: complete once its packets are queued
    q.cause_rank = rank;
    q.cause_time = q.start;
  } else {
    if (!ctx.cycle_clock()) activity_.fetch_add(1, std::memory_order_acq_rel);
    ctx.send(rank_pe_[o.peer], h_rts_, o.ref, op);
    ++r.packets_sent;
  }
}

void MpiReplay::send_data(Context& ctx, std::uint32_t rank, std::uint32_t op) {
  Rank& r = ranks_[rank];
  const Op& o = trace_->ops[rank][op];
  const std::uint64_t n = packets_of(o.bytes);
  if (!ctx.cycle_clock()) activity_.fetch_add(static_cast<std::int64_t>(n), std::memory_order_acq_rel);
  const node_t pe = rank_pe_[o.peer];
  for (std::uint64_t k = 0; k < n; ++k) ctx.send(pe, h_data_, o.ref, r.rt[op].start);
  r.packets_sent += n;
}

void MpiReplay::post_recv(Context& ctx, std::uint32_t rank, std::uint32_t op) {
  Rank& r = ranks_[rank];
  OpRt& q = r.rt[op];
  q.flags |= f_posted;
  if (!(q.flags & f_rts)) return;
  q.flags &= static_cast<std::uint8_t>(~f_rts);
  const Op& o = trace_->ops[rank][op];
  if (o.peer == rank) {  // a rendezvous send to itself, waiting for this receive
    const std::uint64_t now = ctx.now();
    on_data(ctx, rank, op, now, packets_of(o.bytes));
    completed(ctx, rank, o.ref, rank, now);
    return;
  }
  if (!ctx.cycle_clock()) activity_.fetch_add(1, std::memory_order_acq_rel);
  ctx.send(rank_pe_[o.peer], h_cts_, o.ref, ctx.now());
  ++r.packets_sent;
}

void MpiReplay::on_rts(Context& ctx, std::uint32_t rank, std::uint32_t op) {
  Rank& r = ranks_[rank];
  ++r.packets_received;
  OpRt& q = r.rt[op];
  q.flags |= f_rts;
  if (q.flags & f_posted) {
    q.flags &= static_cast<std::uint8_t>(~f_posted);  // post_recv() answers (and re-marks it posted)
    post_recv(ctx, rank, op);
  }
}

void MpiReplay::on_cts(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint64_t time) {
  Rank& r = ranks_[rank];
  ++r.packets_received;
  send_data(ctx, rank, op);
  completed(ctx, rank, op, trace_->ops[rank][op].peer, time);
}

void MpiReplay::on_data(Context& ctx, std::uint32_t rank, std::uint32_t op, std::uint64_t start,
                        std::uint64_t packets) {
  Rank& r = ranks_[rank];
  OpRt& q = r.rt[op];
  q.got += static_cast<std::uint32_t>(packets);
  const Op& o = trace_->ops[rank][op];
  if (o.peer != rank) r.packets_received += packets;
  if (q.got != packets_of(o.bytes)) return;
  ++r.received;
  const std::uint64_t now = ctx.now();
  r.latency.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(now - std::min(now, start), 0xffffffffu)));
  completed(ctx, rank, op, o.peer, start);
}

// ---- results --------------------------------------------------------------------------------------

std::uint64_t MpiReplay::makespan() const {
  std::uint64_t m = 0;
  for (const Rank& r : ranks_) m = std::max(m, r.finish);
  return m;
}

bool MpiReplay::deadlocked() const {
  for (const Rank& r : ranks_)
    if (!r.finished) return true;
  return false;
}

std::vector<std::string> MpiReplay::waiting() const {
  std::vector<std::string> out;
  for (std::uint32_t k = 0; k < ranks_.size(); ++k) {
    const Rank& r = ranks_[k];
    if (r.finished) continue;
    if (r.blocked != none) {
      const Op& o = trace_->ops[k][r.blocked];
      const bool rendezvous = o.kind == OpKind::send && !eager(o);
      out.push_back(fmt::format("{} waits{} since cycle {}", describe(*trace_, k, r.blocked),
                                rendezvous ? " for a clear-to-send (rendezvous)" : "", r.block_start));
    } else {
      out.push_back(fmt::format("rank {} stopped at its operation {} of {} (the window closed{})", k, r.pc,
                                trace_->ops[k].size(), r.in_gap ? " during a compute gap" : ""));
    }
  }
  return out;
}

bool MpiReplay::verify(std::string& why) const {
  const auto w = waiting();
  if (!w.empty()) {
    why = fmt::format("replay deadlock: {} rank{} never finished: {}", w.size(), w.size() == 1 ? "" : "s", w.front());
    for (std::size_t i = 1; i < w.size() && i < 4; ++i) why += "; " + w[i];
    if (w.size() > 4) why += fmt::format("; and {} more", w.size() - 4);
    return false;
  }
  // Every message arrived whole, exactly once: each receive got exactly its packets.
  for (std::uint32_t k = 0; k < ranks_.size(); ++k)
    for (std::uint32_t i = 0; i < trace_->ops[k].size(); ++i) {
      const Op& o = trace_->ops[k][i];
      if (o.kind != OpKind::recv) continue;
      if (ranks_[k].rt[i].got != packets_of(o.bytes)) {
        why = fmt::format("replay: {} got {} packets of {}", describe(*trace_, k, i), ranks_[k].rt[i].got,
                          packets_of(o.bytes));
        return false;
      }
    }
  std::uint64_t s = 0, r = 0;
  for (const Rank& x : ranks_) s += x.packets_sent, r += x.packets_received;
  if (s != r || s != total_packets_) {
    why = fmt::format("replay: {} packets sent, {} received, {} expected", s, r, total_packets_);
    return false;
  }
  return true;
}

nlohmann::json MpiReplay::critical_path() const {
  // Walk back from the last rank to finish: the stretch it ran locally since its last wait, the
  // wait, then the rank and time of the event that ended the wait, until time 0.
  nlohmann::json steps = nlohmann::json::array();
  if (ranks_.empty()) return {{"length", 0}, {"steps", steps}};
  std::uint32_t r = 0;
  for (std::uint32_t k = 0; k < ranks_.size(); ++k)
    if (ranks_[k].finish > ranks_[r].finish) r = k;
  std::uint64_t t = ranks_[r].finish, local = 0, waiting_total = 0, n = 0;
  constexpr std::size_t max_steps = 64;
  for (std::uint64_t guard = 0; guard < 4 * (messages_ + ranks_.size()) + 8; ++guard) {
    const auto& ep = ranks_[r].episodes;
    const auto it = std::upper_bound(ep.begin(), ep.end(), t, [](std::uint64_t x, const Episode& e) { return x < e.end; });
    if (it == ep.begin()) {
      local += t;
      if (steps.size() < max_steps) steps.push_back({{"rank", r}, {"from", 0}, {"to", t}, {"what", "local"}});
      ++n;
      break;
    }
    const Episode& e = *(it - 1);
    local += t - e.end;
    waiting_total += e.end - std::max(e.start, std::min(e.cause_time, e.end));
    if (steps.size() < max_steps) {
      if (t > e.end) steps.push_back({{"rank", r}, {"from", e.end}, {"to", t}, {"what", "local"}});
      const Op& o = trace_->ops[r][e.op];
      steps.push_back({{"rank", r},
                       {"from", std::min(e.cause_time, e.end)},
                       {"to", e.end},
                       {"what", "communication"},
                       {"call", trace_->calls[o.call]},
                       {"event", o.event},
                       {"from_rank", e.cause_rank}});
    }
    n += 2;
    if (e.cause_time >= t && e.cause_rank == r) break;  // no progress back in time: stop
    t = std::min(e.cause_time, e.end);
    r = e.cause_rank;
  }
  const std::uint64_t len = makespan();
  return {{"length", len},
          {"local", local},
          {"communication", len >= local ? len - local : 0},
          {"steps_total", n},
          {"steps", steps},
          {"steps_shown", steps.size()}};
}

nlohmann::json MpiReplay::summary() const {
  const Trace& t = *trace_;
  nlohmann::json j;
  j["app"] = "replay";
  j["trace"] = t.path;
  j["creator"] = t.creator;
  j["ranks"] = t.ranks;
  j["map"] = map_resolved_;
  j["p2p_messages"] = messages_;
  j["bytes"] = bytes_;
  j["packets"] = total_packets_;
  j["eager_bytes"] = cfg_.eager_bytes;
  j["packet_bytes"] = cfg_.packet_bytes;
  j["compute_scale"] = cfg_.compute_scale;
  j["collective_calls"] = t.collective_calls;
  j["collectives"] = t.collective_algorithms;
  j["collective_messages"] = coll_messages_;
  j["collective_bytes"] = coll_bytes_;
  const std::uint64_t span = makespan();
  j["makespan"] = span;
  j["recorded_wall_s"] = static_cast<double>(t.wall_ns) * 1e-9;
  j["emulated_s"] = cfg_.compute_scale > 0 ? nlohmann::json(static_cast<double>(span) / cfg_.compute_scale) : nlohmann::json();
  std::uint64_t blocked = 0, compute = 0, finish_sum = 0;
  nlohmann::json per = nlohmann::json::array();
  std::vector<std::uint32_t> lat;
  for (std::uint32_t k = 0; k < ranks_.size(); ++k) {
    const Rank& r = ranks_[k];
    blocked += r.blocked_cycles;
    compute += r.compute_cycles;
    finish_sum += r.finish;
    lat.insert(lat.end(), r.latency.begin(), r.latency.end());
    per.push_back({{"rank", k},
                   {"pe", k < rank_pe_.size() ? rank_pe_[k] : 0},
                   {"finish", r.finish},
                   {"blocked", r.blocked_cycles},
                   {"compute", r.compute_cycles},
                   {"sent", r.sent},
                   {"received", r.received},
                   {"bytes_sent", r.bytes_sent}});
  }
  const double total = static_cast<double>(finish_sum);
  j["communication_share"] = total > 0 ? static_cast<double>(blocked) / total : 0.0;
  j["compute_share"] = total > 0 ? static_cast<double>(compute) / total : 0.0;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) -> std::uint64_t {
    if (lat.empty()) return 0;
    const auto i = static_cast<std::size_t>(std::ceil(p * static_cast<double>(lat.size()))) - (p > 0 ? 1 : 0);
    return lat[std::min(i, lat.size() - 1)];
  };
  nlohmann::json hist = nlohmann::json::array();  // log2 buckets: [2^k, 2^(k+1))
  if (!lat.empty()) {
    std::vector<std::uint64_t> b(33, 0);
    for (auto v : lat) ++b[v == 0 ? 0 : 32 - static_cast<unsigned>(__builtin_clz(v))];
    for (std::size_t k = 0; k < b.size(); ++k)
      if (b[k]) hist.push_back({{"from", k == 0 ? 0 : std::uint64_t{1} << (k - 1)}, {"to", std::uint64_t{1} << k}, {"messages", b[k]}});
  }
  const double mean = lat.empty() ? 0.0
                                  : std::accumulate(lat.begin(), lat.end(), 0.0) / static_cast<double>(lat.size());
  j["message_latency"] = {{"messages", lat.size()}, {"mean", mean},       {"p50", pct(0.5)}, {"p90", pct(0.9)},
                          {"p99", pct(0.99)},       {"max", lat.empty() ? 0 : lat.back()}, {"histogram", hist}};
  j["per_rank"] = per;
  j["critical_path"] = critical_path();
  const auto w = waiting();
  j["deadlock"] = w.empty() ? nlohmann::json() : nlohmann::json(w);
  j["warnings"] = t.warnings;
  return j;
}

}  // namespace rica::replay
