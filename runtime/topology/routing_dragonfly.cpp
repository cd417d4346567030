// The certificate of the dragonfly's non-minimal routings (rica/routing/dragonfly.hpp): Duato's
// condition, exhaustively per (destination, intermediate group). See certify_dragonfly().
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "cdg.hpp"
#include "rica/routing/dragonfly.hpp"

namespace rica {
namespace {

template <class R>
void certify_keyed(const DragonflyTopology& t, const R& r, const std::string& what) {
  const node_t N = t.nodes(), P = t.pes();
  const port_t Q = t.ports();
  const class_t C = r.buffer_classes();
  const unsigned K = r.keys();
  const std::uint64_t states = std::uint64_t{N} * C, work = std::uint64_t{P} * K * states;
  if (work > (std::uint64_t{1} << 27) || std::uint64_t{N} * Q * C >= detail::no_channel)
    throw usage_error(fmt::format("{}: too large to check the routing ({} PEs x {} intermediate groups x {} nodes x "
                                  "{} classes; the check runs up to 2^27)",
                                  what, P, K, N, C));
  auto channel = [&](node_t v, Hop h) {
    return static_cast<std::uint32_t>((std::uint64_t{v} * Q + h.port()) * C + h.next_class());
  };
  auto channel_text = [&](std::uint32_t ch) {
    const node_t v = static_cast<node_t>(ch / (std::uint64_t{Q} * C));
    const auto p = static_cast<port_t>(ch / C % Q);
    return fmt::format("link {} -> {} (port {}, class {})", t.label(v), t.label(t.out_link(v, p).peer), p, ch % C);
  };
  // The state a packet reaches over channel ch: (peer, class).
  auto state_after = [&](std::uint32_t ch) {
    const node_t v = static_cast<node_t>(ch / (std::uint64_t{Q} * C));
    return std::uint64_t{t.out_link(v, static_cast<port_t>(ch / C % Q)).peer} * C + ch % C;
  };
  std::vector<std::uint8_t> is_escape(std::size_t{N} * Q * C, 0);
  std::vector<std::vector<std::uint32_t>> out(states);  // per state: its out channels, escape first
  std::vector<std::uint8_t> seen(states, 0);
  std::vector<std::uint64_t> visited;
  // Explores every state reachable for (dst, key) from every source, checking each hop; fills
  // out[] for them and `visited`.
  auto explore = [&](node_t dst, unsigned key) {
    for (std::uint64_t s : visited) seen[s] = 0, out[s].clear();
    visited.clear();
    std::vector<std::uint64_t> todo;
    for (node_t src = 0; src < P; ++src)
      if (src != dst && !seen[std::uint64_t{src} * C]) seen[std::uint64_t{src} * C] = 1, todo.push_back(std::uint64_t{src} * C);
    CandidateSet cs;
    while (!todo.empty()) {
      const std::uint64_t st = todo.back();
      todo.pop_back();
      visited.push_back(st);
      const node_t v = static_cast<node_t>(st / C);
      const auto cls = static_cast<class_t>(st % C);
      r.candidates(v, dst, key, cls, cs);
      auto fail = [&](const std::string& msg) {
        return usage_error(fmt::format("{}: for PE {} through group {}: at node {} in class {}: {}", what, dst, key,
                                       t.label(v), cls, msg));
      };
      if (cs.escape.delivers() != (v == dst)) throw fail(v == dst ? "does not deliver" : "delivers here");
      if (v == dst) {
        if (cs.size()) throw fail("candidates at the destination");
        continue;
      }
      for (unsigned k = 0; k <= cs.size(); ++k) {
        const Hop h = k == 0 ? cs.escape : cs[k - 1];
        if (h.delivers()) throw fail("a candidate delivers");
        const Link l = h.port() < Q ? t.out_link(v, h.port()) : Link{};
        if (!l.present()) throw fail(fmt::format("port {} has no link", h.port()));
        if (h.next_class() >= C) throw fail(fmt::format("class {} beyond the {} classes", h.next_class(), C));
        const std::uint32_t ch = channel(v, h);
        out[st].push_back(ch);
        const std::uint64_t next = std::uint64_t{l.peer} * C + h.next_class();
        if (!seen[next]) seen[next] = 1, todo.push_back(next);
      }
    }
  };
  // Pass 1: every hop valid; no livelock (the state graph of each (dst, key) is acyclic: every
  // sequence of choices ends, and it ends only at dst); the escape channels.
  for (node_t dst = 0; dst < P; ++dst)
    for (unsigned key = 0; key < K; ++key) {
      explore(dst, key);
      std::vector<std::uint64_t> edges;
      for (std::uint64_t s : visited) {
        if (!out[s].empty()) is_escape[out[s].front()] = 1;
        for (std::uint32_t ch : out[s]) edges.push_back(s << 32 | state_after(ch));
      }
      std::sort(edges.begin(), edges.end());
      edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
      if (const auto loop = detail::find_cycle(edges); !loop.empty()) {
        const auto s = static_cast<node_t>((loop.front() >> 32) / C);
        throw usage_error(fmt::format("{}: packets for PE {} through group {} can loop (node {} in class {} again)", what,
                                      dst, key, t.label(s), (loop.front() >> 32) % C));
      }
    }
  // Pass 2: Duato's extended channel dependency graph of the escape channels: from each escape
  // channel, the escape channels reached directly or through channels used only as candidates.
  std::vector<std::uint64_t> deps;
  std::unordered_map<std::uint64_t, std::uint64_t> example;  // dependency -> dst << 32 | key
  std::vector<std::uint8_t> done(std::size_t{N} * Q * C, 0), reached(std::size_t{N} * Q * C, 0);
  std::vector<std::uint32_t> done_list, reached_list, stack;
  for (node_t dst = 0; dst < P; ++dst)
    for (unsigned key = 0; key < K; ++key) {
      explore(dst, key);
      for (std::uint32_t c : done_list) done[c] = 0;
      done_list.clear();
      for (std::uint64_t s : visited)
        for (std::uint32_t e : out[s]) {
          if (!is_escape[e] || done[e]) continue;
          done[e] = 1;
          done_list.push_back(e);
          for (std::uint32_t c : reached_list) reached[c] = 0;
          reached_list.clear();
          const auto& first = out[state_after(e)];
          stack.assign(first.begin(), first.end());
          while (!stack.empty()) {
            const std::uint32_t c = stack.back();
            stack.pop_back();
            if (reached[c]) continue;
            reached[c] = 1;
            reached_list.push_back(c);
            if (is_escape[c]) {
              const std::uint64_t d = std::uint64_t{e} << 32 | c;
              deps.push_back(d);
              example.try_emplace(d, std::uint64_t{dst} << 32 | key);
              continue;
            }
            const auto& nx = out[state_after(c)];
            stack.insert(stack.end(), nx.begin(), nx.end());
          }
        }
    }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
  const std::vector<std::uint64_t> cycle = detail::find_cycle(deps);
  if (cycle.empty()) return;
  const std::uint64_t edge = cycle.front(), ex = example.at(edge);
  throw usage_error(fmt::format(
      "{}: the routing can deadlock: a cycle of {} channel dependencies, e.g. {} then {}, used by the packets for PE "
      "{} through group {}",
      what, cycle.size(), channel_text(static_cast<std::uint32_t>(edge >> 32)),
      channel_text(static_cast<std::uint32_t>(edge)), ex >> 32, ex & 0xffffffffu));
}

}  // namespace

void certify_dragonfly(const DragonflyTopology& t, Routing r, const std::string& what, unsigned classes) {
  switch (r) {
    case Routing::valiant: return certify_keyed(t, DragonflyValiant(t, 0, classes), what);
    case Routing::ugal_l: return certify_keyed(t, DragonflyUgalL(t, 0, classes), what);
    case Routing::ugal_g: return certify_keyed(t, DragonflyUgalG(t, 0, classes), what);
    case Routing::par: return certify_keyed(t, DragonflyPar(t, 0, classes), what);
    default: throw std::invalid_argument("certify_dragonfly: not a dragonfly packet routing");
  }
}

}  // namespace rica
