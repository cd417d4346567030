#pragma once
// Channel load: the expected number of packets that cross each directed link per cycle when every
// PE injects one packet per cycle (unit injection) with destinations drawn from a traffic matrix,
// routed by the topology's own route(). The busiest link, weighted by the cycle engine's link
// time, bounds the injection rate any router can sustain (Dally & Towles, ch. 3):
//
//     bound = min(1, 1 / max over links e of (load(e) x link cycles of e's sender))
//
// packets per PE per cycle. No arbitration, buffering or head-of-line effect enters the bound, so
// the engine's accepted throughput stays below it (tests/test_channel_load.cpp measures how far).

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "rica/engine.hpp"
#include "rica/topology.hpp"

namespace rica {

/// Where each PE sends: row(src) lists (destination PE, probability) pairs whose probabilities
/// sum to 1. A pair with destination src is ignored (it never enters the network).
class TrafficMatrix {
 public:
  using Row = std::vector<std::pair<node_t, double>>;
  using RowFn = std::function<void(node_t src, Row& out)>;

  /// Uniform over the other N-1 PEs. Invariant under every automorphism of the network, so the
  /// computation may use the topology's routing symmetry.
  static TrafficMatrix uniform();
  /// Any matrix; `row` must be callable from several threads at once.
  TrafficMatrix(std::string name, RowFn row) : name_(std::move(name)), row_(std::move(row)) {}

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] bool is_uniform() const noexcept { return !row_; }
  /// Fills `out` with src's row on a network of `pes` PEs.
  void row(node_t src, node_t pes, Row& out) const;

 private:
  TrafficMatrix() : name_("uniform") {}
  std::string name_;
  RowFn row_;  ///< empty = uniform
};

struct ChannelLoadOptions {
  /// Exact over all (source, destination) pairs up to this many PEs; beyond it the routing
  /// symmetry (uniform traffic) or, from every source, a seeded sample of destinations.
  node_t all_pairs_pes = 4096;
  /// Sampled: destinations per source (fewer when PEs x this exceeds 2^25 routes, never below 16).
  unsigned sample_destinations = 256;
  std::uint64_t seed = 1;
  bool force_all_pairs = false;  ///< ignore symmetry and the PE limit (tests compare both ways)
  /// The routes walked: deterministic (the topology's route()) or valiant (its valiant routing,
  /// every intermediate key with an equal share; sampled: one key per pair). Other routings:
  /// routing_channel_load().
  Routing routing = Routing::deterministic;
};

struct ChannelLoad {
  std::string spec, traffic;
  /// "exact-all-pairs", "exact-symmetry" (one source per orbit of a port-preserving routing
  /// symmetry; uniform traffic only) or "sampled": every source, `destinations` destinations
  /// each, drawn with `seed` (uniform: one set of distinct address offsets shared by all
  /// sources, so every PE also receives exactly that many; a matrix: draws from each row). Each
  /// link's sampled load is unbiased, but their maximum errs high, so the bound errs low.
  std::string method;
  unsigned sources = 0;       ///< sources walked
  unsigned destinations = 0;  ///< sampled: destinations per source (0 when exact)
  std::uint64_t seed = 0;
  node_t pes = 0, nodes = 0;
  port_t ports = 0;
  std::vector<double> load;      ///< [node * ports + port]: packets per cycle at unit injection (0 if absent)
  std::vector<unsigned> cycles;  ///< [node]: cycles a packet occupies each out-link of the node
  double max_load = 0;           ///< the largest link load
  double mean_load = 0;          ///< over present links
  double max_busy = 0;           ///< max over links of load x cycles: busy cycles per cycle at unit injection
  node_t busy_node = 0;          ///< the link that attains max_busy (the lowest index on a tie)
  port_t busy_port = 0;
  double bound = 0;              ///< min(1, 1 / max_busy), packets per PE per cycle
  double mean_hops = 0;          ///< expected links a packet crosses
  double zero_load_latency = 0;  ///< expected latency of a packet of the mean length that never waits (cfg.timing)
  double seconds = 0;
};

/// Cycles a packet occupies a link leaving each node under the cycle engine's link-time model:
/// cfg.link_cycles when set; cfg.link_cycles_words: the mean packet length (lengths are uniform
/// in packet_words +- packet_spread); else the sending node's in-degree + out-degree (at least 1).
[[nodiscard]] std::vector<unsigned> link_cycles(const Topology& t, const EngineConfig& cfg);

/// The link-time model's name: "pin-limited" (--link-cycles degree: a link takes its sender's in +
/// out degree in cycles per packet, the papers' model, which charges a network for its degree) or
/// "equal link bandwidth" (words or N: every link the same).
[[nodiscard]] std::string link_model_name(const EngineConfig& cfg);
/// The link-time model stated for a reader: its name and, when a link takes more than one cycle,
/// the option that changes it; with `t`, the link times on that network ("pin-limited, in + out
/// degree cycles per packet, 14 here (--link-cycles 1: equal link bandwidth)").
[[nodiscard]] std::string link_model_text(const EngineConfig& cfg, const Topology* t = nullptr);

/// Computes the channel load of `matrix` on `t` with the link times of `cfg`. Throws
/// std::logic_error when the routing does not reach a destination.
[[nodiscard]] ChannelLoad channel_load(const Topology& t, const TrafficMatrix& matrix, const EngineConfig& cfg = {},
                                       const ChannelLoadOptions& opt = {});

/// The channel-load bound of routing `r` (rica bound --routing, the sweep's bound line per routing):
///   deterministic  channel_load() over the topology's routes;
///   valiant        channel_load() over its Valiant routes (every intermediate key equally likely);
///   ugal-l, ugal-g, par  the best of minimal and Valiant: the largest bound of any fixed share
///                  of Valiant traffic in [0, 1] (0 and 1 included, so never below either); a
///                  routing that picks per packet may in principle pass it, none has in the tests;
///   adaptive       no bound: usage_error (its choice per hop follows the buffers).
/// `method` says which; usage_error when `t` does not offer r.
[[nodiscard]] ChannelLoad routing_channel_load(const Topology& t, const TrafficMatrix& matrix, const EngineConfig& cfg,
                                               Routing r, const ChannelLoadOptions& opt = {});

/// Summary (not the per-link table) as JSON; the busiest link by label and port.
[[nodiscard]] nlohmann::json to_json(const ChannelLoad& c, const Topology& t);

}  // namespace rica
