// match (mpi_trace.hpp): the static matching pass. Channels (source, destination, communicator,
// tag) are FIFO on both sides (MPI's non-overtaking rule with wildcards resolved as recorded):
// the k-th send of a channel in the sender's program order pairs with the k-th receive of that
// channel in the receiver's posting order.
#include <fmt/format.h>

#include <unordered_map>

#include "mpi_trace.hpp"
#include "rica/core.hpp"

namespace rica::replay {
namespace {
struct Key {
  std::uint32_t src, dst, comm, tag;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    std::uint64_t h = (std::uint64_t{k.src} << 32 | k.dst) * 0x9e3779b97f4a7c15ULL;
    h ^= (std::uint64_t{k.comm} << 32 | k.tag) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};
struct Channel {
  std::vector<std::uint32_t> sends, recvs;  ///< op indices (on src, on dst), program order
};
}  // namespace

void match(Trace& t) {
  std::unordered_map<Key, Channel, KeyHash> ch;
  for (std::uint32_t r = 0; r < t.ranks; ++r)
    for (std::uint32_t i = 0; i < t.ops[r].size(); ++i) {
      const Op& o = t.ops[r][i];
      if (o.kind == OpKind::send) {
        if (o.peer >= t.ranks) throw usage_error(fmt::format("replay: {}: no such destination", describe(t, r, i)));
        ch[{r, o.peer, o.comm, o.tag}].sends.push_back(i);
      } else if (o.kind == OpKind::recv) {
        if (o.peer >= t.ranks) throw usage_error(fmt::format("replay: {}: no such source", describe(t, r, i)));
        ch[{o.peer, r, o.comm, o.tag}].recvs.push_back(i);
      }
    }
  // Errors name the earliest unmatched operation (lowest rank, then position) for a stable message.
  std::uint64_t best = ~std::uint64_t{0};
  std::string msg;
  for (auto& [k, c] : ch) {
    const std::size_t n = std::min(c.sends.size(), c.recvs.size());
    for (std::size_t j = 0; j < n; ++j) {
      Op& s = t.ops[k.src][c.sends[j]];
      Op& rv = t.ops[k.dst][c.recvs[j]];
      s.ref = c.recvs[j];
      rv.ref = c.sends[j];
      rv.bytes = s.bytes;
    }
    if (c.recvs.size() > n) {
      const std::uint32_t op = c.recvs[n];
      const std::uint64_t at = (std::uint64_t{k.dst} << 40) | op;
      if (at < best) {
        best = at;
        msg = fmt::format("replay: {}: no send matches this receive (rank {} sends {} message{} on this channel, "
                          "rank {} receives {})",
                          describe(t, k.dst, op), k.src, c.sends.size(), c.sends.size() == 1 ? "" : "s", k.dst,
                          c.recvs.size());
      }
    } else if (c.sends.size() > n) {
      const std::uint32_t op = c.sends[n];
      const std::uint64_t at = (std::uint64_t{k.src} << 40) | op;
      if (at < best) {
        best = at;
        msg = fmt::format("replay: {}: no receive matches this send (rank {} receives {} message{} on this channel, "
                          "rank {} sends {})",
                          describe(t, k.src, op), k.dst, c.recvs.size(), c.recvs.size() == 1 ? "" : "s", k.src,
                          c.sends.size());
      }
    }
  }
  if (!msg.empty()) throw usage_error(msg);
  t.matched = true;
}

}  // namespace rica::replay
