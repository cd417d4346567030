// Channel load of a traffic matrix and the saturation bound it implies. See
// include/rica/channel_load.hpp.
#include <array>
#include "rica/channel_load.hpp"
#include "rica/routing.hpp"  // valiant routes (keyed walks)

#include "rica/interrupt.hpp"
#include <fmt/format.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <type_traits>

#include "../machine/tsan.hpp"

namespace rica {
namespace {

/// Fixed-point scale of matrix probabilities (a double's 52-bit fraction): integer sums are exact
/// and independent of the order in which threads add them, so results do not depend on the thread
/// count. Sums are 128-bit: at most 2^26 sources x 2^16 crossings x 2^52 per link.
constexpr double fixed_one = 4503599627370496.0;  // 2^52
__extension__ using acc_t = unsigned __int128;

struct Source {
  node_t node;
  std::uint64_t multiplicity;  // sources this one stands for (symmetry); 1 otherwise
};

struct Local {
  std::vector<acc_t> acc;  // [slot * ports + port]: weighted link crossings
  acc_t weight = 0, hops = 0;  // weighted pairs, hops
  acc_t cycles = 0;            // weighted zero-load latency, summed over the packet lengths (exact: any thread count)
  TrafficMatrix::Row row;
  std::vector<double> cdf;  // sampled rows
};

}  // namespace

TrafficMatrix TrafficMatrix::uniform() { return TrafficMatrix(); }

void TrafficMatrix::row(node_t src, node_t pes, Row& out) const {
  out.clear();
  if (row_) {
    row_(src, out);
    return;
  }
  const double p = 1.0 / (pes - 1);
  for (node_t d = 0; d < pes; ++d)
    if (d != src) out.emplace_back(d, p);
}

std::vector<unsigned> link_cycles(const Topology& t, const EngineConfig& cfg) {
  const node_t n = t.nodes();
  if (cfg.link_cycles) return std::vector<unsigned>(n, cfg.link_cycles);
  if (cfg.link_cycles_words) return std::vector<unsigned>(n, cfg.packet_words);  // mean of a symmetric spread
  std::vector<unsigned> deg(n, 0);
  for (node_t v = 0; v < n; ++v)
    for (port_t p = 0; p < t.ports(); ++p) {
      const Link l = t.out_link(v, p);
      if (l.present()) ++deg[v], ++deg[l.peer];
    }
  for (auto& d : deg) d = std::max(1u, d);
  return deg;
}

ChannelLoad channel_load(const Topology& topo, const TrafficMatrix& matrix, const EngineConfig& cfg,
                         const ChannelLoadOptions& opt) {
  const auto t0 = std::chrono::steady_clock::now();
  ChannelLoad c;
  c.spec = topo.spec();
  c.traffic = matrix.name();
  c.pes = topo.pes();
  c.nodes = topo.nodes();
  c.ports = topo.ports();
  c.cycles = link_cycles(topo, cfg);
  const node_t N = c.pes;
  if (N < 2) throw usage_error(fmt::format("channel load: '{}' has fewer than 2 PEs", c.spec));
  // Valiant: every route is walked once per intermediate key (rica/routing: keys(), hop(cur, dst,
  // cls, key)), each with an equal share of the pair's weight; sampled pairs draw one key each.
  const bool keyed = opt.routing == Routing::valiant;
  if (opt.routing != Routing::deterministic && !keyed)
    throw std::logic_error("channel_load: only deterministic and valiant routes are walked (routing_channel_load)");
  if (keyed && !offers(topo, Routing::valiant))
    throw usage_error(fmt::format("channel load: '{}' does not offer valiant routing", c.spec));
  const bool symmetric = !keyed && matrix.is_uniform() && !opt.force_all_pairs && topo.orbit_count() > 0 &&
                         topo.symmetry_keeps_ports();  // the family's trait; absent: every source
  // (tests/test_channel_load.cpp checks every family with orbits against the all-pairs walk)

  // Sources and the slot each node's links accumulate into.
  std::vector<Source> sources;
  std::size_t slots = c.nodes;
  if (symmetric) {
    slots = topo.orbit_count();
    std::vector<std::uint64_t> size(slots, 0);
    for (node_t v = 0; v < N; ++v) ++size[topo.orbit(v)];
    for (std::uint32_t o = 0; o < slots; ++o) {
      const node_t r = topo.orbit_rep(o);
      if (topo.orbit(r) != o) throw std::logic_error(fmt::format("'{}': orbit_rep({}) is not in orbit {}", c.spec, o, o));
      if (r < N) sources.push_back({r, size[o]});
    }
    c.method = "exact-symmetry";
  } else if (opt.force_all_pairs || N <= opt.all_pairs_pes) {
    for (node_t s = 0; s < N; ++s) sources.push_back({s, 1});
    c.method = "exact-all-pairs";
  } else {
    for (node_t s = 0; s < N; ++s) sources.push_back({s, 1});
    const std::uint64_t fit = (std::uint64_t{1} << 25) / N;
    c.destinations = static_cast<unsigned>(std::clamp<std::uint64_t>(fit, 16, std::max(16u, opt.sample_destinations)));
    c.destinations = std::min<unsigned>(c.destinations, N - 1);
    c.method = "sampled";
    c.seed = opt.seed;
  }
  c.sources = static_cast<unsigned>(sources.size());

  // Sampled uniform traffic: one set of distinct offsets; source s sends to (s + o) mod N.
  std::vector<node_t> offsets;
  if (c.method == "sampled" && matrix.is_uniform()) {
    std::mt19937_64 rng(opt.seed);
    std::uniform_int_distribution<node_t> any(1, N - 1);
    std::vector<std::uint8_t> taken(N, 0);
    while (offsets.size() < c.destinations) {
      const node_t o = any(rng);
      if (!taken[o]) taken[o] = 1, offsets.push_back(o);
    }
  }

  // Walk every route. Weights are integers: exact uniform 1 per pair, exact matrix fixed-point
  // probabilities, sampled 1 per drawn destination.
  const port_t P = c.ports;
  tbb::enumerable_thread_specific<Local> locals([&] {
    Local l;
    l.acc.assign(slots * P, 0);
    return l;
  });
  // The fork and the join of parallel_for happen inside libtbb: stated for ThreadSanitizer
  // (runtime/machine/tsan.hpp); the body is built before the fork.
  detail::TsanLoop tsan;
  unsigned keys = 1;  // intermediate keys walked per pair (Valiant, exact)
  topo.visit([&](const auto& t) {
    using T = std::decay_t<decltype(t)>;
    // The route's hop: the topology's own, or (Valiant) its valiant routing's for key I.
    auto valiant = [&] {
      if constexpr (HasPacketRouting<T, Routing::valiant>) {
        using R = typename PacketRoutingFor<T, Routing::valiant>::type;
        return std::optional<R>(std::in_place, t, cfg.seed, 0u);
      } else {
        return std::optional<int>();
      }
    }();
    if constexpr (HasPacketRouting<T, Routing::valiant>) {
      if (keyed) keys = c.destinations ? 1u : valiant->keys();
    }
    auto step = [&](node_t cur, node_t d, class_t cls, unsigned key) {
      if constexpr (HasPacketRouting<T, Routing::valiant>) {
        if (keyed) return valiant->hop(cur, d, cls, key);
      }
      (void)key;
      return t.route(cur, d, cls);
    };
    const auto body = [&](std::size_t si) {
      check_interrupt();  // rica/interrupt.hpp: once per source
      Local& L = locals.local();
      const node_t s = sources[si].node;
      const std::uint64_t mult = sources[si].multiplicity;
      auto walk1 = [&](node_t d, std::uint64_t w, unsigned key) {
        node_t cur = s;
        class_t cls = 0;
        std::uint64_t hops = 0;
        // One timing per packet length (uniform over mean +- spread; the mean alone above a
        // spread of 8, an approximation), averaged at the end.
        const unsigned spread = cfg.packet_spread <= 8 ? cfg.packet_spread : 0;
        std::array<ZeroLoadTiming, 17> zt{};
        while (true) {
          const Hop h = step(cur, d, cls, key);
          if (h.delivers()) {
            if (cur != d) throw std::logic_error(fmt::format("'{}': route {} -> {} delivers at {}", c.spec, s, d, cur));
            break;
          }
          const Link l = t.out_link(cur, h.port());
          if (!l.present())
            throw std::logic_error(fmt::format("'{}': route {} -> {} takes absent port {} at {}", c.spec, s, d, h.port(), cur));
          const std::size_t slot = symmetric ? t.orbit(cur) : cur;
          L.acc[slot * P + h.port()] += w;
          for (unsigned k = 0; k <= 2 * spread; ++k) {
            const unsigned words = cfg.packet_words - spread + k;
            zt[k].hop(cfg.link_cycles_words ? words : c.cycles[cur], words, cfg.timing, cfg.router_cycles);
          }
          cur = l.peer;
          cls = h.next_class();
          if (++hops > (keyed ? 2 : 1) * std::uint64_t{c.nodes})
            throw std::logic_error(fmt::format("'{}': route {} -> {} loops", c.spec, s, d));
        }
        L.weight += w;
        L.hops += acc_t{w} * hops;
        acc_t tail = 0;
        for (unsigned k = 0; k <= 2 * spread; ++k) tail += zt[k].tail;
        L.cycles += acc_t{w} * tail;
      };
      // Every key of an exact walk, or one drawn from (seed, s, d) when sampled.
      auto walk = [&](node_t d, std::uint64_t w) {
        if (!keyed) return walk1(d, w, 0);
        if (c.destinations) {
          std::uint64_t x = (opt.seed ^ (std::uint64_t{s} << 32) ^ d) * 0x9e3779b97f4a7c15ULL;
          x ^= x >> 29;
          unsigned all = 1;
          if constexpr (HasPacketRouting<T, Routing::valiant>) all = valiant->keys();
          return walk1(d, w, static_cast<unsigned>(x % all));
        }
        for (unsigned k = 0; k < keys; ++k) walk1(d, w, k);
      };
      const bool sampled = c.destinations > 0;
      if (matrix.is_uniform()) {
        if (sampled) {
          for (node_t o : offsets) walk(static_cast<node_t>((std::uint64_t{s} + o) % N), 1);
        } else {
          for (node_t d = 0; d < N; ++d)
            if (d != s) walk(d, mult);
        }
        return;
      }
      matrix.row(s, N, L.row);
      double sum = 0;
      for (const auto& [d, p] : L.row) {
        if (d >= N || !(p >= 0.0))
          throw std::logic_error(fmt::format("traffic matrix '{}': bad entry ({}, {}) in row {}", c.traffic, d, p, s));
        sum += p;
      }
      if (std::abs(sum - 1.0) > 1e-6)
        throw std::logic_error(fmt::format("traffic matrix '{}': row {} sums to {}", c.traffic, s, sum));
      if (!sampled) {
        for (const auto& [d, p] : L.row) {
          const auto w = static_cast<std::uint64_t>(std::llround(p * fixed_one));
          if (d != s && w) walk(d, w);
        }
        return;
      }
      // Draws from the row by inverse CDF, from a stream seeded by (seed, source).
      L.cdf.resize(L.row.size());
      double acc_p = 0;
      for (std::size_t i = 0; i < L.row.size(); ++i) L.cdf[i] = acc_p += L.row[i].second;
      std::mt19937_64 rng(opt.seed * 0x9e3779b97f4a7c15ULL + s);
      std::uniform_real_distribution<double> u(0.0, acc_p);
      for (unsigned j = 0; j < c.destinations; ++j) {
        const auto i = static_cast<std::size_t>(std::upper_bound(L.cdf.begin(), L.cdf.end(), u(rng)) - L.cdf.begin());
        const node_t d = L.row[std::min(i, L.row.size() - 1)].first;
        if (d != s) walk(d, 1);
      }
    };
    tbb::parallel_for(std::size_t{0}, sources.size(), tsan.fork(body));
  });
  tsan.join();
  std::vector<acc_t> acc(slots * P, 0);
  acc_t weight = 0, hops = 0, cyc = 0;
  for (const Local& L : locals) {
    for (std::size_t i = 0; i < acc.size(); ++i) acc[i] += L.acc[i];
    weight += L.weight;
    hops += L.hops;
    cyc += L.cycles;
  }

  // Loads per unit injection. Uniform: a pair carries 1/(N-1) packets per cycle; a matrix entry
  // carries its probability; a sampled destination 1/(destinations).
  const double scale = (c.destinations ? 1.0 / c.destinations : matrix.is_uniform() ? 1.0 / (N - 1) : 1.0 / fixed_one) /
                       (c.destinations ? 1.0 : static_cast<double>(keys));
  std::vector<std::uint64_t> members(slots * P, 0);  // links per (slot, port)
  for (node_t v = 0; v < c.nodes; ++v)
    for (port_t p = 0; p < P; ++p)
      if (topo.out_link(v, p).present()) ++members[(symmetric ? topo.orbit(v) : v) * std::size_t{P} + p];
  c.load.assign(std::size_t{c.nodes} * P, 0.0);
  double sum = 0;
  std::uint64_t links = 0;
  for (node_t v = 0; v < c.nodes; ++v)
    for (port_t p = 0; p < P; ++p) {
      if (!topo.out_link(v, p).present()) continue;
      const std::size_t k = (symmetric ? topo.orbit(v) : v) * std::size_t{P} + p;
      const double x = static_cast<double>(acc[k]) / static_cast<double>(members[k]) * scale;
      c.load[std::size_t{v} * P + p] = x;
      sum += x;
      ++links;
      c.max_load = std::max(c.max_load, x);
      const double busy = x * c.cycles[v];
      if (busy > c.max_busy) c.max_busy = busy, c.busy_node = v, c.busy_port = p;
    }
  c.mean_load = links ? sum / static_cast<double>(links) : 0.0;
  c.bound = c.max_busy > 1.0 ? 1.0 / c.max_busy : 1.0;
  if (weight) {
    c.mean_hops = static_cast<double>(hops) / static_cast<double>(weight);
    // Every packet length mean +- spread equally likely (the walk's spread: 0 above 8).
    const unsigned lengths = 2 * (cfg.packet_spread <= 8 ? cfg.packet_spread : 0) + 1;
    c.zero_load_latency = static_cast<double>(cyc) / lengths / static_cast<double>(weight);
  }
  c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return c;
}

nlohmann::json to_json(const ChannelLoad& c, const Topology& t) {
  return {{"topology", c.spec},
          {"traffic", c.traffic},
          {"method", c.method},
          {"sources", c.sources},
          {"destinations_per_source", c.destinations},
          {"seed", c.seed},
          {"pes", c.pes},
          {"nodes", c.nodes},
          {"max_load", c.max_load},
          {"mean_load", c.mean_load},
          {"max_busy", c.max_busy},
          {"busy_link", {{"node", t.label(c.busy_node)}, {"port", c.busy_port}, {"cycles", c.cycles[c.busy_node]}}},
          {"bound", c.bound},
          {"mean_hops", c.mean_hops},
          {"zero_load_latency", c.zero_load_latency},
          {"seconds", c.seconds}};
}

std::string link_model_name(const EngineConfig& cfg) {
  return cfg.link_cycles == 0 && !cfg.link_cycles_words ? "pin-limited" : "equal link bandwidth";
}

std::string link_model_text(const EngineConfig& cfg, const Topology* t) {
  if (cfg.link_cycles_words) return "equal link bandwidth, 1 cycle per word";
  if (cfg.link_cycles)
    return fmt::format("equal link bandwidth, {} cycle{} per packet{}", cfg.link_cycles, cfg.link_cycles == 1 ? "" : "s",
                       cfg.link_cycles > 1 ? " (--link-cycles 1: one cycle)" : "");
  std::string here;
  if (t != nullptr) {
    const std::vector<unsigned> c = link_cycles(*t, cfg);
    if (!c.empty()) {
      const auto [lo, hi] = std::minmax_element(c.begin(), c.end());
      here = *lo == *hi ? fmt::format(", {} here", *hi) : fmt::format(", {} to {} here", *lo, *hi);
    }
  }
  return fmt::format("pin-limited, in + out degree cycles per packet{} (--link-cycles 1: equal link bandwidth)", here);
}

ChannelLoad routing_channel_load(const Topology& t, const TrafficMatrix& matrix, const EngineConfig& cfg, Routing r,
                                 const ChannelLoadOptions& opt) {
  if (!offers(t, r))
    throw usage_error(fmt::format("--routing: '{}' does not offer {} routing (`rica list` names the topologies that "
                                  "offer each)",
                                  t.spec(), to_string(r)));
  ChannelLoadOptions o = opt;
  o.routing = Routing::deterministic;
  if (r == Routing::deterministic) return channel_load(t, matrix, cfg, o);
  if (r == Routing::adaptive)
    throw usage_error(fmt::format("--routing adaptive: no channel-load bound ('{}'): an adaptive routing's load "
                                  "follows the buffers; bound the deterministic routing instead",
                                  t.spec()));
  o.routing = Routing::valiant;
  ChannelLoad v = channel_load(t, matrix, cfg, o);
  if (r == Routing::valiant) {
    v.method += ", valiant";
    return v;
  }
  // UGAL-L, UGAL-G, PAR: a share a of Valiant traffic, 1 - a minimal; busy(a) = max over links of
  // ((1 - a) min + a val) x cycles is convex in a: ternary search, then both ends.
  o.routing = Routing::deterministic;
  ChannelLoad m = channel_load(t, matrix, cfg, o);
  auto busy = [&](double a) {
    double b = 0;
    for (std::size_t i = 0; i < m.load.size(); ++i)
      b = std::max(b, ((1 - a) * m.load[i] + a * v.load[i]) * m.cycles[i / m.ports]);
    return b;
  };
  double lo = 0, hi = 1;
  for (int it = 0; it < 60; ++it) {
    const double a = lo + (hi - lo) / 3, b = hi - (hi - lo) / 3;
    if (busy(a) <= busy(b))
      hi = b;
    else
      lo = a;
  }
  double share = (lo + hi) / 2;
  for (double end : {0.0, 1.0})
    if (busy(end) <= busy(share)) share = end;
  ChannelLoad c = m;  // minimal's zero-load figures: at zero load UGAL and PAR route minimally
  c.max_load = c.max_busy = c.mean_load = 0;
  double sum = 0;
  std::uint64_t links = 0;
  for (std::size_t i = 0; i < c.load.size(); ++i) {
    c.load[i] = (1 - share) * m.load[i] + share * v.load[i];
    if (m.load[i] == 0 && v.load[i] == 0 && !t.out_link(static_cast<node_t>(i / c.ports), static_cast<port_t>(i % c.ports)).present())
      continue;
    sum += c.load[i];
    ++links;
    c.max_load = std::max(c.max_load, c.load[i]);
    const double b = c.load[i] * c.cycles[i / c.ports];
    if (b > c.max_busy) c.max_busy = b, c.busy_node = static_cast<node_t>(i / c.ports), c.busy_port = static_cast<port_t>(i % c.ports);
  }
  c.mean_load = links ? sum / static_cast<double>(links) : 0.0;
  c.bound = c.max_busy > 1.0 ? 1.0 / c.max_busy : 1.0;
  c.method = fmt::format("{}, best of minimal ({:.4g}) and valiant ({:.4g}): {:.0f} % valiant", m.method, m.bound, v.bound,
                         100 * share);
  c.seconds = m.seconds + v.seconds;
  return c;
}

}  // namespace rica
