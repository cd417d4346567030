// CollExec (coll_exec.hpp).
#include "coll_exec.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <stdexcept>

namespace rica::hpc {

CollExec::CollExec(const coll::Spec& spec, std::vector<node_t> members)
    : sc_(coll::build(spec)), members_(std::move(members)) {
  if (members_.size() != spec.p) throw std::logic_error("CollExec: members and p differ");
  for (std::uint32_t i = 0; i < members_.size(); ++i) member_of_[members_[i]] = i;
  while (scalar_block_ + 1 < sc_.block_bytes.size() && sc_.elements(scalar_block_) == 0) ++scalar_block_;
  by_step_.assign(spec.p, std::vector<std::vector<std::uint32_t>>(sc_.steps));
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::deque<std::uint32_t>> sent;  // (a, b) -> steps, FIFO
  for (std::uint32_t r = 0; r < spec.p; ++r)
    for (std::uint32_t i = 0; i < sc_.ranks[r].size(); ++i) {
      const coll::Op& op = sc_.ranks[r][i];
      by_step_[r][op.step].push_back(i);
      if (op.type == coll::Op::Type::send) sent[{r, op.peer}].push_back(op.step);
    }
  for (std::uint32_t r = 0; r < spec.p; ++r)
    for (const coll::Op& op : sc_.ranks[r]) {
      if (op.type != coll::Op::Type::recv) continue;
      auto& q = sent[{op.peer, r}];
      if (q.empty() || q.front() != op.step)
        throw std::logic_error(fmt::format("CollExec: {} {}: a message to rank {} is received in another step than "
                                           "it is sent",
                                           coll::name(spec.kind), coll::name(spec.algorithm), r));
      q.pop_front();
    }
  // A step's sends go first: none may follow a receive of the same step that writes its blocks.
  for (std::uint32_t r = 0; r < spec.p; ++r)
    for (std::uint32_t s = 0; s < sc_.steps; ++s) {
      std::vector<std::uint32_t> written;
      for (std::uint32_t i : by_step_[r][s]) {
        const coll::Op& op = sc_.ranks[r][i];
        if (op.type == coll::Op::Type::recv) {
          written.insert(written.end(), op.blocks.begin(), op.blocks.end());
          continue;
        }
        for (std::uint32_t b : op.blocks)
          if (std::find(written.begin(), written.end(), b) != written.end())
            throw std::logic_error(fmt::format("CollExec: {} {}: rank {} sends block {} after receiving it in step {}",
                                               coll::name(spec.kind), coll::name(spec.algorithm), r, b, s));
      }
    }
}

Blocks CollExec::scalar(std::uint32_t me, std::uint64_t value) const {
  Blocks d;
  for (std::uint32_t b : sc_.initial[me]) {
    d[b].assign(sc_.elements(b), 0);
    if (b == scalar_block_ && !d[b].empty()) d[b][0] = value;
  }
  return d;
}

std::uint64_t CollExec::scalar_result(const Blocks& data) const { return data.at(scalar_block_).at(0); }

std::uint64_t CollExec::words_of(const coll::Op& op) const {
  std::uint64_t w = 0;
  for (std::uint32_t b : op.blocks) w += sc_.elements(b);
  return w;
}

std::uint64_t CollExec::enter(Exchange& ex, Context& ctx, std::uint64_t round, std::uint32_t me, std::uint32_t step,
                              const Blocks& data) const {
  std::uint64_t expect = 0;
  std::vector<std::uint64_t> w;
  for (std::uint32_t i : by_step_[me][step]) {
    const coll::Op& op = sc_.ranks[me][i];
    if (op.type == coll::Op::Type::recv) {
      expect += packets(words_of(op));
      continue;
    }
    w.clear();
    for (std::uint32_t b : op.blocks) {
      const auto it = data.find(b);
      if (it == data.end()) throw std::logic_error(fmt::format("CollExec: member {} sends block {} it does not hold", me, b));
      w.insert(w.end(), it->second.begin(), it->second.end());
    }
    if (w.empty()) w.push_back(0);  // a zero-byte message is still a message: one packet
    ex.send(ctx, members_[op.peer], round, w);
  }
  return expect;
}

void CollExec::consume(std::uint32_t me, std::uint32_t step, const std::vector<Exchange::Message>& msgs, Blocks& data,
                       const Combine& combine) const {
  std::unordered_map<std::uint32_t, std::pair<const Exchange::Message*, std::size_t>> from;  // member -> (msg, offset)
  for (const auto& m : msgs) from[member_of_.at(m.src)] = {&m, 0};
  for (std::uint32_t i : by_step_[me][step]) {
    const coll::Op& op = sc_.ranks[me][i];
    if (op.type != coll::Op::Type::recv) continue;
    auto& [msg, at] = from.at(op.peer);
    std::size_t k = at;
    for (std::uint32_t b : op.blocks) {
      const std::uint64_t n = sc_.elements(b);
      auto& local = data[b];
      if (op.combine) {
        for (std::uint64_t e = 0; e < n; ++e) local[e] = combine(local[e], msg->words[k + e]);
      } else {
        local.assign(msg->words.begin() + static_cast<std::ptrdiff_t>(k),
                     msg->words.begin() + static_cast<std::ptrdiff_t>(k + n));
      }
      k += n;
    }
    at += 2 * packets(words_of(op));  // the message's packets, padding included
  }
}

void CollExec::serial(std::vector<Blocks>& data, const Combine& combine) const {
  const std::uint32_t p = sc_.spec.p;
  for (std::uint32_t s = 0; s < sc_.steps; ++s) {
    // Every member's sends of the step, as the words it would send, in FIFO order per pair.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::deque<std::vector<std::uint64_t>>> wire;
    for (std::uint32_t r = 0; r < p; ++r)
      for (std::uint32_t i : by_step_[r][s]) {
        const coll::Op& op = sc_.ranks[r][i];
        if (op.type != coll::Op::Type::send) continue;
        std::vector<std::uint64_t> w;
        for (std::uint32_t b : op.blocks) w.insert(w.end(), data[r].at(b).begin(), data[r].at(b).end());
        wire[{r, op.peer}].push_back(std::move(w));
      }
    for (std::uint32_t r = 0; r < p; ++r)
      for (std::uint32_t i : by_step_[r][s]) {
        const coll::Op& op = sc_.ranks[r][i];
        if (op.type != coll::Op::Type::recv) continue;
        auto& q = wire.at({op.peer, r});
        const std::vector<std::uint64_t> w = std::move(q.front());
        q.pop_front();
        std::size_t k = 0;
        for (std::uint32_t b : op.blocks) {
          const std::uint64_t n = sc_.elements(b);
          auto& local = data[r][b];
          if (op.combine) {
            for (std::uint64_t e = 0; e < n; ++e) local[e] = combine(local[e], w[k + e]);
          } else {
            local.assign(w.begin() + static_cast<std::ptrdiff_t>(k), w.begin() + static_cast<std::ptrdiff_t>(k + n));
          }
          k += n;
        }
      }
  }
}

}  // namespace rica::hpc
