// Serial run of a collective schedule on real data, the serial reference, and the alpha-beta
// model evaluated on the schedule's dependence graph (rica/collectives.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <unordered_map>

#include "rica/collectives.hpp"
#include "rica/core.hpp"

namespace rica::coll {
namespace {

using u32 = std::uint32_t;
using u64 = std::uint64_t;

/// The one rank whose initial set holds `block` (non-reducing schedules).
u32 owner(const Schedule& s, u32 block) {
  const u32 p = s.spec.p;
  switch (s.spec.kind) {
    case Kind::bcast:
    case Kind::scatter: return s.spec.root;
    case Kind::alltoall: return block / p;
    default: return block;  // gather, allgather, barrier: block i is rank i's
  }
}

u64 channel(u32 src, u32 dst) { return (u64{src} << 32) | dst; }

/// Driver of a schedule in causal order: ranks advance while they can; `on_send` and `on_recv`
/// do the work (on_recv gets the message that matched). Returns "" or the deadlock / leftover.
template <class Msg, class OnSend, class OnRecv>
std::string drive(const Schedule& s, OnSend on_send, OnRecv on_recv) {
  const u32 p = s.spec.p;
  std::vector<std::size_t> pc(p, 0);
  std::unordered_map<u64, std::deque<Msg>> queues;
  std::string err;
  bool progress = true;
  while (progress && err.empty()) {
    progress = false;
    for (u32 r = 0; r < p && err.empty(); ++r) {
      const auto& ops = s.ranks[r];
      while (pc[r] < ops.size() && err.empty()) {
        const Op& op = ops[pc[r]];
        if (op.peer >= p || op.peer == r) {
          err = fmt::format("rank {} op {}: peer {} is not another rank", r, pc[r], op.peer);
          break;
        }
        if (op.type == Op::Type::send) {
          queues[channel(r, op.peer)].push_back(on_send(r, pc[r], op, err));
        } else {
          auto it = queues.find(channel(op.peer, r));
          if (it == queues.end() || it->second.empty()) break;  // blocks until the message is there
          Msg m = std::move(it->second.front());
          it->second.pop_front();
          on_recv(r, pc[r], op, m, err);
        }
        ++pc[r];
        progress = true;
      }
    }
  }
  if (!err.empty()) return err;
  for (u32 r = 0; r < p; ++r)
    if (pc[r] < s.ranks[r].size()) {
      const Op& op = s.ranks[r][pc[r]];
      return fmt::format("deadlock: rank {} waits at op {} (receive from {}, step {}) for a message never sent", r,
                         pc[r], op.peer, op.step);
    }
  for (const auto& [ch, q] : queues)
    if (!q.empty())
      return fmt::format("{} message(s) from rank {} to rank {} never received", q.size(), ch >> 32, ch & 0xffffffffu);
  return "";
}

}  // namespace

std::uint64_t apply(ReduceOp o, std::uint64_t a, std::uint64_t b) noexcept {
  switch (o) {
    case ReduceOp::sum: return a + b;
    case ReduceOp::prod: return a * b;
    case ReduceOp::max: return std::max(a, b);
    case ReduceOp::min: return std::min(a, b);
    case ReduceOp::band: return a & b;
    case ReduceOp::bor: return a | b;
    case ReduceOp::bxor: return a ^ b;
  }
  return a;
}

std::uint64_t contribution(std::uint64_t seed, std::uint32_t rank, std::uint32_t block, std::uint64_t index) noexcept {
  // Odd values keep prod from collapsing to 0; the mix spreads every bit for the others.
  return mix64(seed ^ mix64((u64{rank} << 32 | block) ^ mix64(index + 0x9e3779b97f4a7c15ULL))) | 1u;
}

std::uint64_t reference(const Schedule& s, ReduceOp op, std::uint64_t seed, std::uint32_t block, std::uint64_t index) {
  if (!s.reduces) return contribution(seed, owner(s, block), block, index);
  u64 acc = contribution(seed, 0, block, index);
  for (u32 r = 1; r < s.spec.p; ++r) acc = apply(op, acc, contribution(seed, r, block, index));
  return acc;
}

std::string simulate(const Schedule& s, ReduceOp rop, std::uint64_t seed) {
  const u32 p = s.spec.p;
  const u32 nb = static_cast<u32>(s.block_bytes.size());
  const u32 words = (p + 63) / 64;
  struct Block {
    bool held = false;
    std::vector<u64> v;        // elements
    std::vector<u64> contrib;  // reducing schedules: bitset of the ranks reduced into it
  };
  std::vector<std::vector<Block>> st(p, std::vector<Block>(nb));
  for (u32 r = 0; r < p; ++r)
    for (u32 b : s.initial[r]) {
      Block& x = st[r][b];
      x.held = true;
      x.v.resize(s.elements(b));
      for (u64 i = 0; i < x.v.size(); ++i) x.v[i] = contribution(seed, r, b, i);
      if (s.reduces) {
        x.contrib.assign(words, 0);
        x.contrib[r / 64] |= u64{1} << (r % 64);
      }
    }
  struct Msg {
    u32 src;
    std::size_t index;
    std::vector<u32> blocks;
    u64 bytes;
    std::vector<Block> data;
  };
  auto on_send = [&](u32 r, std::size_t i, const Op& op, std::string& err) {
    Msg m{r, i, op.blocks, op.bytes, {}};
    u64 bytes = 0;
    for (u32 b : op.blocks) {
      if (b >= nb || !st[r][b].held) {
        if (err.empty()) err = fmt::format("rank {} op {} (step {}): sends block {} it does not hold", r, i, op.step, b);
        m.data.emplace_back();
        continue;
      }
      bytes += s.block_bytes[b];
      m.data.push_back(st[r][b]);
    }
    if (bytes != op.bytes && err.empty())
      err = fmt::format("rank {} op {}: bytes {} but its blocks hold {}", r, i, op.bytes, bytes);
    return m;
  };
  auto on_recv = [&](u32 r, std::size_t i, const Op& op, Msg& m, std::string& err) {
    if (m.blocks != op.blocks || m.bytes != op.bytes) {
      err = fmt::format("rank {} op {} (step {}): receives {} block(s), {} bytes from rank {}, but its send (op {}) "
                        "carries {} block(s), {} bytes",
                        r, i, op.step, op.blocks.size(), op.bytes, op.peer, m.index, m.blocks.size(), m.bytes);
      return;
    }
    for (std::size_t k = 0; k < op.blocks.size(); ++k) {
      Block& local = st[r][op.blocks[k]];
      Block& in = m.data[k];
      if (!op.combine) {
        local = std::move(in);
        continue;
      }
      if (!local.held) {
        err = fmt::format("rank {} op {} (step {}): combines into block {} it does not hold", r, i, op.step, op.blocks[k]);
        return;
      }
      for (u32 w = 0; w < words; ++w)
        if (local.contrib[w] & in.contrib[w]) {
          err = fmt::format("rank {} op {} (step {}): block {} would reduce a rank's contribution twice", r, i, op.step,
                            op.blocks[k]);
          return;
        }
      for (u32 w = 0; w < words; ++w) local.contrib[w] |= in.contrib[w];
      for (std::size_t e = 0; e < local.v.size(); ++e) local.v[e] = apply(rop, local.v[e], in.v[e]);
    }
  };
  std::string err = drive<Msg>(s, on_send, on_recv);
  if (!err.empty()) return err;
  for (u32 r = 0; r < p; ++r)
    for (u32 b : s.final_blocks[r]) {
      const Block& x = st[r][b];
      if (!x.held) return fmt::format("rank {} ends without block {}", r, b);
      if (s.reduces)
        for (u32 q = 0; q < p; ++q)
          if (!(x.contrib[q / 64] >> (q % 64) & 1))
            return fmt::format("rank {} block {}: rank {}'s contribution is missing", r, b, q);
      for (u64 e = 0; e < x.v.size(); ++e)
        if (x.v[e] != reference(s, rop, seed, b, e))
          return fmt::format("rank {} block {} element {}: {} but the reference is {}", r, b, e, x.v[e],
                             reference(s, rop, seed, b, e));
    }
  return "";
}

double model_time(const Schedule& s, const CostFn& cost, double gamma_per_byte, double reply_delay) {
  const u32 p = s.spec.p;
  std::vector<double> clock(p, 0.0), tx(p, 0.0), rx(p, 0.0);
  std::vector<char> after_recv(p, 0);
  struct Msg {
    double arrival, occupancy;
  };
  auto on_send = [&](u32 r, std::size_t, const Op& op, std::string&) {
    const MessageCost c = cost(r, op.peer, op.bytes);
    const double start = std::max(clock[r] + (after_recv[r] ? reply_delay : 0.0), tx[r]);
    after_recv[r] = 0;
    tx[r] = start + c.occupancy;
    return Msg{start + c.latency, c.occupancy};
  };
  auto on_recv = [&](u32 r, std::size_t, const Op& op, Msg& m, std::string&) {
    const double done = std::max(m.arrival, rx[r] + m.occupancy);
    rx[r] = done;
    after_recv[r] = 1;
    clock[r] = std::max(clock[r], done) + (op.combine ? gamma_per_byte * static_cast<double>(op.bytes) : 0.0);
  };
  const std::string err = drive<Msg>(s, on_send, on_recv);
  if (!err.empty()) throw std::logic_error("model_time: " + err);
  double t = 0;
  for (u32 r = 0; r < p; ++r) t = std::max(t, clock[r]);
  return t;
}

}  // namespace rica::coll
