// The executor of collective schedules as an active-message program (collective_app.hpp).
#include "collective_app.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "rica/core.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"

namespace rica::collectives {

namespace {
using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// A packet sent by a handler leaves its PE the cycle after the delivery that ran the handler
/// (the cycle engine steps deliveries before injections; measured: recursive doubling on
/// hypercube:6, 6 steps, 77 cycles = 6 x 12 + 5).
constexpr double kReplyCycles = 1.0;

u64 checksum(const std::vector<u64>& v) {
  u64 h = 0x243f6a8885a308d3ULL ^ v.size();
  for (u64 x : v) h = mix64(h ^ x) + 0x9e3779b97f4a7c15ULL;
  return h;
}
}  // namespace

// ---- The machine's cost of a message --------------------------------------------------------

std::vector<unsigned> link_lengths(const Topology& t, const MachineParams& mp) {
  const node_t n = t.nodes();
  if (mp.link_cycles_words) return std::vector<unsigned>(n, mp.packet_words);
  if (mp.link_cycles) return std::vector<unsigned>(n, mp.link_cycles);
  // The sending node's in-degree + out-degree (the machine's rule, runtime/machine/machine.cpp;
  // a faulty network keeps its base's).
  std::vector<unsigned> len(n, 0), in(n, 0);
  const port_t ports = t.ports();
  for (node_t v = 0; v < n; ++v)
    for (port_t p = 0; p < ports; ++p) {
      const Link l = t.out_link(v, p);
      if (l.present()) ++len[v], ++in[l.peer];
    }
  for (node_t v = 0; v < n; ++v) len[v] = std::max(1u, len[v] + in[v]);
  return len;
}

coll::MessageCost model_message_cost(const Topology& t, const MachineParams& mp, const std::vector<unsigned>& link_len,
                                     node_t a, node_t b, std::uint64_t bytes) {
  const u64 packets = packets_for(bytes, mp.packet_words);
  ZeroLoadTiming z;
  unsigned bottleneck = 1;
  node_t cur = a;
  class_t cls = 0;
  for (unsigned guard = 0; cur != b && guard < 1u << 20; ++guard) {
    const Hop h = t.route(cur, b, cls);
    if (h.delivers()) break;
    const unsigned len = link_len[cur];
    bottleneck = std::max(bottleneck, len);
    z.hop(len, mp.packet_words, mp.store_and_forward ? Timing::saf : Timing::vct, mp.router_cycles);
    cur = t.out_link(cur, h.port()).peer;
    cls = h.next_class();
  }
  const double busy = static_cast<double>(packets) * bottleneck;
  return {busy, static_cast<double>(z.tail) + static_cast<double>(packets - 1) * bottleneck};
}

// ---- The application ------------------------------------------------------------------------------

CollectiveApp::CollectiveApp(CollectiveConfig c) : cfg_(std::move(c)) {}

std::uint64_t CollectiveApp::iteration_seed(std::uint32_t iter) const noexcept { return mix64(seed_ + iter); }

std::uint32_t CollectiveApp::local(node_t r, std::uint32_t block) const {
  const auto& v = blocks_of_[r];
  return static_cast<u32>(std::lower_bound(v.begin(), v.end(), block) - v.begin());
}

void CollectiveApp::setup(Machine& m) {
  seed_ = m.seed();
  mp_ = m.params();
  words_ = mp_.packet_words;
  const node_t p = m.pes();
  cfg_.spec.p = p;
  if (cfg_.automatic) cfg_.spec.algorithm = coll::choose(cfg_.spec.kind, p, cfg_.spec.bytes);
  const std::string what = fmt::format("app '{}'", coll::name(cfg_.spec.kind));
  if (cfg_.spec.root >= p)
    throw usage_error(fmt::format("{}: parameter 'root' = {} is out of range [0, {}]", what, cfg_.spec.root, p - 1));
  {
    // The memory of the run before anything is allocated: each rank's blocks, its messages in
    // flight at most once, and the per-op counters.
    coll::Spec probe = cfg_.spec;
    const double per_rank_data = [&] {
      switch (probe.kind) {
        case coll::Kind::alltoall: return 3.0 * static_cast<double>(probe.bytes) * p;
        case coll::Kind::allgather:
        case coll::Kind::gather: return 3.0 * static_cast<double>(probe.bytes) * p;
        case coll::Kind::reduce_scatter: return 3.0 * static_cast<double>(probe.bytes) * p;
        default: return 3.0 * static_cast<double>(probe.bytes);
      }
    }();
    kernels::check_memory(what, per_rank_data * p);
  }
  sched_ = std::make_shared<const coll::Schedule>(coll::build(cfg_.spec));
  const coll::Schedule& s = *sched_;
  map_ = kernels::ProcessMap(cfg_.map, kernels::ProcessGrid{p, 1}, kernels::Pattern::hypercube, m.topology(), p, seed_);
  handler_ = m.add_handler([this](Context& ctx, const Packet& pk) { on_packet(ctx, pk); });

  // Blocks each rank touches; MPI matching (k-th send a->b is the k-th receive at b from a).
  blocks_of_.assign(p, {});
  match_.assign(p, {});
  std::unordered_map<u64, std::vector<u32>> sends;  // (a, b) -> a's send op indices, in order
  for (node_t r = 0; r < p; ++r) {
    auto& bl = blocks_of_[r];
    bl.insert(bl.end(), s.initial[r].begin(), s.initial[r].end());
    bl.insert(bl.end(), s.final_blocks[r].begin(), s.final_blocks[r].end());
    match_[r].assign(s.ranks[r].size(), 0);
    for (u32 i = 0; i < s.ranks[r].size(); ++i) {
      const coll::Op& op = s.ranks[r][i];
      bl.insert(bl.end(), op.blocks.begin(), op.blocks.end());
      if (op.type == coll::Op::Type::send) sends[(u64{r} << 32) | op.peer].push_back(i);
    }
    std::sort(bl.begin(), bl.end());
    bl.erase(std::unique(bl.begin(), bl.end()), bl.end());
  }
  for (node_t r = 0; r < p; ++r) {
    std::unordered_map<u32, u32> seen;  // peer -> receives so far
    for (u32 j = 0; j < s.ranks[r].size(); ++j) {
      const coll::Op& op = s.ranks[r][j];
      if (op.type != coll::Op::Type::recv) continue;
      const auto& v = sends[(u64{op.peer} << 32) | r];
      const u32 k = seen[op.peer]++;
      if (k >= v.size()) throw std::logic_error("collective: a receive without a send (schedule bug)");
      match_[op.peer][v[k]] = j;
    }
  }
  inbox_.assign(p, {});
  ranks_.assign(p, RankState{});
  u64 most = 0;
  for (node_t r = 0; r < p; ++r) {
    const u64 ops = s.ranks[r].size();
    inbox_[r].resize(ops * cfg_.iterations);
    RankState& st = ranks_[r];
    st.got.assign(ops * cfg_.iterations, 0);
    st.data.assign(blocks_of_[r].size(), {});
    st.held.assign(blocks_of_[r].size(), 0);
    st.checks.assign(cfg_.iterations, 0);
    u64 sends_r = 0;
    for (const auto& op : s.ranks[r])
      if (op.type == coll::Op::Type::send) sends_r += packets_for(op.bytes, words_);
    most = std::max(most, sends_r);
  }
  max_sends_ = most * cfg_.iterations;

  // The model: the schedule's dependence graph with this machine's message costs.
  const std::vector<unsigned> len = link_lengths(m.topology(), mp_);
  const Topology& topo = m.topology();
  std::unordered_map<u64, coll::MessageCost> memo;
  model_ = cfg_.iterations * coll::model_time(s, [&](u32 a, u32 b, u64 bytes) {
             const u64 key = mix64((u64{a} << 32 | b) ^ mix64(bytes));
             auto it = memo.find(key);
             if (it != memo.end()) return it->second;
             return memo[key] = model_message_cost(topo, mp_, len, map_.pe(a), map_.pe(b), bytes);
           }, 0.0, kReplyCycles);
}

void CollectiveApp::begin_iteration(RankState& st, node_t r) {
  const coll::Schedule& s = *sched_;
  std::fill(st.held.begin(), st.held.end(), 0);
  for (auto& d : st.data) d.clear();
  const u64 seed = iteration_seed(st.iter);
  for (u32 b : s.initial[r]) {
    const u32 l = local(r, b);
    st.held[l] = 1;
    auto& d = st.data[l];
    d.resize(s.elements(b));
    for (u64 e = 0; e < d.size(); ++e) d[e] = coll::contribution(seed, r, b, e);
  }
}

void CollectiveApp::start(Context& ctx) {
  const node_t r = map_.rank(ctx.pe());
  begin_iteration(ranks_[r], r);
  advance(ctx, r);
}

void CollectiveApp::advance(Context& ctx, node_t r) {
  const coll::Schedule& s = *sched_;
  RankState& st = ranks_[r];
  const auto& ops = s.ranks[r];
  while (!st.done) {
    if (st.pc == ops.size()) {  // the iteration is over: its result, then the next
      st.checks[st.iter] = final_check(st, r);
      st.pc = 0;
      if (++st.iter == cfg_.iterations) {
        st.done = true;
        st.finish = ctx.now();
        return;
      }
      begin_iteration(st, r);
      continue;
    }
    const coll::Op& op = ops[st.pc];
    const u64 packets = packets_for(op.bytes, words_);
    if (op.type == coll::Op::Type::send) {
      const u32 j = match_[r][st.pc];
      const u64 k = u64{st.iter} * s.ranks[op.peer].size() + j;
      Slot& slot = inbox_[op.peer][k];
      slot.data.clear();
      for (u32 b : op.blocks) {
        const u32 l = local(r, b);
        if (!st.held[l]) ++st.bad;  // cannot happen for a schedule simulate() accepts
        slot.data.insert(slot.data.end(), st.data[l].begin(), st.data[l].end());
      }
      slot.sum = checksum(slot.data);
      for (u64 q = 0; q < packets; ++q)
        ctx.send_words(map_.pe(op.peer), words_, handler_, k | (q << 32), slot.sum);
      st.sends += 1;
      ++st.pc;
      continue;
    }
    const u64 k = u64{st.iter} * ops.size() + st.pc;
    if (st.got[k] < packets) return;  // its packets are not all in: on_packet resumes
    Slot& slot = inbox_[r][k];
    std::size_t at = 0;
    for (u32 b : op.blocks) {
      const u32 l = local(r, b);
      const u64 n = s.elements(b);
      auto& d = st.data[l];
      if (slot.data.size() < at + n) {
        ++st.bad;
        break;
      }
      if (op.combine) {
        if (!st.held[l] || d.size() != n) {
          ++st.bad;
        } else {
          for (u64 e = 0; e < n; ++e) d[e] = coll::apply(cfg_.op, d[e], slot.data[at + e]);
        }
      } else {
        d.assign(slot.data.begin() + static_cast<std::ptrdiff_t>(at), slot.data.begin() + static_cast<std::ptrdiff_t>(at + n));
        st.held[l] = 1;
      }
      at += n;
    }
    std::vector<u64>().swap(slot.data);  // freed: the message is consumed
    ++st.pc;
  }
}

void CollectiveApp::on_packet(Context& ctx, const Packet& p) {
  const node_t r = map_.rank(ctx.pe());
  RankState& st = ranks_[r];
  const u64 k = p.payload[0] & 0xffffffffu;
  if (k >= st.got.size()) {
    ++st.bad;
    return;
  }
  ++st.got[k];
  if (inbox_[r][k].sum != p.payload[1]) ++st.bad;  // the slot was written before this packet left
  const u64 ops = sched_->ranks[r].size();
  if (!st.done && k == u64{st.iter} * ops + st.pc) advance(ctx, r);
}

std::uint64_t CollectiveApp::final_check(const RankState& st, node_t r) const {
  u64 h = 0;
  for (u32 b : sched_->final_blocks[r]) {
    const u32 l = local(r, b);
    h = mix64(h ^ b) + (st.held[l] ? checksum(st.data[l]) : 0x5eedULL);
  }
  return h;
}

std::uint64_t CollectiveApp::reference_check(node_t r, std::uint32_t iter) const {
  const coll::Schedule& s = *sched_;
  const u64 seed = iteration_seed(iter);
  u64 h = 0;
  for (u32 b : s.final_blocks[r]) {
    std::vector<u64> v(s.elements(b));
    for (u64 e = 0; e < v.size(); ++e) v[e] = coll::reference(s, cfg_.op, seed, b, e);
    h = mix64(h ^ b) + checksum(v);
  }
  return h;
}

std::uint64_t CollectiveApp::cycles() const noexcept {
  u64 finish = 0;
  for (const auto& st : ranks_) finish = std::max(finish, st.finish);
  return finish;
}

std::uint64_t CollectiveApp::messages_sent() const noexcept {
  u64 n = 0;
  for (const auto& st : ranks_) n += st.sends;
  return n;
}

bool CollectiveApp::verify(std::string& why) const {
  const coll::Schedule& s = *sched_;
  const std::string who = fmt::format("{} {}", coll::name(s.spec.kind), coll::name(s.spec.algorithm));
  const node_t p = s.spec.p;
  for (node_t r = 0; r < p; ++r) {
    const RankState& st = ranks_[r];
    if (!st.done) {
      why = fmt::format("{}: rank {} stopped in iteration {} at op {} of {}", who, r, st.iter, st.pc, s.ranks[r].size());
      return false;
    }
    if (st.bad) {
      why = fmt::format("{}: rank {} saw {} malformed packets or blocks", who, r, st.bad);
      return false;
    }
  }
  if (messages_sent() != s.messages() * cfg_.iterations) {
    why = fmt::format("{}: {} messages sent, the schedule has {}", who, messages_sent(), s.messages() * cfg_.iterations);
    return false;
  }
  // The serial reference: computed once per (iteration, block) and compared with every rank.
  for (u32 it = 0; it < cfg_.iterations; ++it) {
    std::unordered_map<u32, u64> ref;  // block -> checksum of its reference
    const u64 seed = iteration_seed(it);
    for (node_t r = 0; r < p; ++r) {
      u64 h = 0;
      for (u32 b : s.final_blocks[r]) {
        auto f = ref.find(b);
        if (f == ref.end()) {
          std::vector<u64> v(s.elements(b));
          for (u64 e = 0; e < v.size(); ++e) v[e] = coll::reference(s, cfg_.op, seed, b, e);
          f = ref.emplace(b, checksum(v)).first;
        }
        h = mix64(h ^ b) + f->second;
      }
      if (h != ranks_[r].checks[it]) {
        why = fmt::format("{}: rank {} has a wrong result in iteration {} (against the serial reference)", who, r, it);
        return false;
      }
    }
  }
  return true;
}

nlohmann::json CollectiveApp::summary() const {
  const coll::Schedule& s = *sched_;
  nlohmann::json j;
  j["collective"] = std::string(coll::name(s.spec.kind));
  j["algorithm"] = std::string(coll::name(s.spec.algorithm));
  j["algorithm_chosen_by"] = cfg_.automatic ? "mpich-rule" : "parameter";
  j["ranks"] = s.spec.p;
  j["bytes"] = s.spec.bytes;
  if (s.reduces) j["op"] = std::string(coll::name(cfg_.op));
  if (s.spec.kind == coll::Kind::bcast || s.spec.kind == coll::Kind::reduce || s.spec.kind == coll::Kind::gather ||
      s.spec.kind == coll::Kind::scatter)
    j["root"] = s.spec.root;
  j["iterations"] = cfg_.iterations;
  j["map"] = map_.resolved();
  j["steps"] = s.steps;
  j["messages"] = cfg_.iterations ? messages_sent() / cfg_.iterations : 0;
  j["messages_closed_form"] = coll::message_count(s.spec);
  j["messages_total"] = messages_sent();
  u64 packets = 0;
  for (const auto& ops : s.ranks)
    for (const auto& op : ops)
      if (op.type == coll::Op::Type::send) packets += packets_for(op.bytes, words_);
  j["packets"] = packets * cfg_.iterations;
  j["bytes_sent"] = s.bytes_sent() * cfg_.iterations;
  j["packet_bytes"] = u64{words_} * 8;
  const u64 finish = cycles();
  j["model_cycles"] = std::round(model_ * 10) / 10;
  if (mp_.cycle_clock) {
    j["cycles"] = finish;
    j["model_ratio"] = model_ > 0 ? std::round(static_cast<double>(finish) / model_ * 1e4) / 1e4 : 0.0;
  } else {
    j["cycles"] = nullptr;  // the async engine has no cycle clock: finish time in ns below
    j["finish_ns"] = finish;
  }
  return j;
}

// ---- Registry: the family files register themselves; this keeps them in a static link ---------

void anchor_allreduce();
void anchor_bcast();
void anchor_reduce();
void anchor_gather();
void anchor_scatter();
void anchor_allgather();
void anchor_alltoall();
void anchor_reduce_scatter();
void anchor_barrier();

void collectives_linked() {
  anchor_allreduce(), anchor_bcast(), anchor_reduce(), anchor_gather(), anchor_scatter();
  anchor_allgather(), anchor_alltoall(), anchor_reduce_scatter(), anchor_barrier();
}

// ---- Registry --------------------------------------------------------------------------------------

namespace {

bool rooted(coll::Kind k) {
  return k == coll::Kind::bcast || k == coll::Kind::reduce || k == coll::Kind::gather || k == coll::Kind::scatter;
}
bool reducing(coll::Kind k) {
  return k == coll::Kind::allreduce || k == coll::Kind::reduce || k == coll::Kind::reduce_scatter;
}

std::vector<ParamDoc> params_of(coll::Kind k) {
  std::string algs = "auto";
  for (coll::Algorithm a : coll::algorithms(k)) algs += "|" + std::string(coll::name(a));
  std::vector<ParamDoc> v;
  v.push_back({"algorithm", algs, "auto", fmt::format("auto: MPICH's rule ({})", coll::rule_text(k))});
  if (k != coll::Kind::barrier) {
    const char* meaning = k == coll::Kind::alltoall                                   ? "each rank's block for each rank"
                          : (k == coll::Kind::gather || k == coll::Kind::scatter ||
                             k == coll::Kind::allgather || k == coll::Kind::reduce_scatter) ? "each rank's block"
                                                                                             : "the whole vector";
    v.push_back({"bytes", "1..2^30", "1024", fmt::format("message size: {}", meaning)});
  }
  if (reducing(k)) v.push_back({"op", "sum|prod|max|min|band|bor|bxor", "sum", "the reduction, on 64-bit words"});
  v.push_back({"iterations", "1..1000", "1", "calls, back to back"});
  if (rooted(k)) v.push_back({"root", "0..N-1", "0", "the root rank"});
  if (k == coll::Kind::bcast) v.push_back({"segment", "1..2^30", "8192", "pipeline: segment bytes"});
  v.push_back({"map", "identity|embed|random", "identity", "ranks to PEs"});
  return v;
}

}  // namespace

std::unique_ptr<App> make_collective(coll::Kind k, const SpecArgs& a, const Topology& t) {
  CollectiveConfig c;
  c.spec.kind = k;
  const std::string what = a.what();
  const std::string alg = a.text("algorithm");
  if (alg == "auto") {
    c.automatic = true;
    c.spec.algorithm = coll::algorithms(k).front();
  } else {
    try {
      c.spec.algorithm = coll::parse_algorithm(k, alg);
    } catch (const usage_error& e) {
      std::string valid = "auto";
      for (coll::Algorithm x : coll::algorithms(k)) valid += "|" + std::string(coll::name(x));
      throw usage_error(fmt::format("{}: parameter 'algorithm' = '{}' is not one of {}", what, alg, valid));
    }
  }
  if (k != coll::Kind::barrier) {
    const unsigned b = a.uint("bytes");
    detail::check_range(what, "bytes", b, 1, 1 << 30);
    c.spec.bytes = b;
  } else {
    c.spec.bytes = 0;
  }
  if (reducing(k)) {
    try {
      c.op = coll::parse_op(a.text("op"));
    } catch (const usage_error&) {
      throw usage_error(fmt::format("{}: parameter 'op' = '{}' is not one of sum|prod|max|min|band|bor|bxor", what,
                                    a.text("op")));
    }
  }
  const unsigned it = a.uint("iterations");
  detail::check_range(what, "iterations", it, 1, 1000);
  c.iterations = it;
  if (rooted(k)) {
    const unsigned root = a.uint("root");
    detail::check_range(what, "root", root, 0, std::int64_t{t.pes()} - 1);
    c.spec.root = root;
  }
  if (k == coll::Kind::bcast) {
    const unsigned seg = a.uint("segment");
    detail::check_range(what, "segment", seg, 1, 1 << 30);
    c.spec.segment = seg;
  }
  c.map = kernels::parse_map(a.text("map"), what);
  // The schedule's own limits (p, segments, size), checked now with the machine's PE count so a
  // bad combination is refused before the run; a job's PE count is checked again in setup().
  coll::Spec probe = c.spec;
  probe.p = t.pes();
  if (c.automatic) probe.algorithm = coll::choose(k, probe.p, probe.bytes);
  (void)coll::message_count(probe);
  return std::make_unique<CollectiveApp>(std::move(c));
}

void register_collective(coll::Kind kind, std::string app_name, std::string summary, std::string example) {
  AppEntry e;
  e.name = std::move(app_name);
  e.summary = std::move(summary);
  e.example = std::move(example);
  e.params = params_of(kind);
  e.positional = "algorithm";
  e.make = [kind](const SpecArgs& a, const Topology& t) { return make_collective(kind, a, t); };
  register_app(std::move(e));
}

}  // namespace rica::collectives
