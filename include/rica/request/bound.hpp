#pragma once
// `rica bound SPEC...` as a library request: the channel load and saturation bound of a traffic
// pattern on one or more topologies (rica/channel_load.hpp). The CLI (apps/cli/experiment_command.cpp)
// parses its options into a request::Bound and presents the outcome; Python (rica.bound) and C++
// callers give the same request and get the same checks. Implemented in rica::experiments
// (apps/experiments/bound.cpp), which knows the traffic patterns' matrices.
//
// Thread-safety: as rica/request/embed.hpp (run() sets oneTBB's parallelism while it runs).

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/channel_load.hpp"
#include "rica/defaults.hpp"
#include "rica/engine.hpp"

namespace rica::request {

struct Bound {
  std::vector<std::string> topologies;               ///< one or more topology specs
  std::string traffic = defaults::traffic::pattern;  ///< a traffic pattern (mesh = the mesh-emulation neighbours)
  /// The link time (link_cycles, link_cycles_words), packet words, router_cycles (zero-load
  /// latency only), threads and seed; the bound is in cycles, so `engine` is always the cycle engine.
  EngineConfig engine;
  bool all_pairs = false;  ///< walk every pair even when a symmetry or sampling would do
  /// The routings to bound, each a row per topology (routing_channel_load); empty: deterministic.
  std::vector<Routing> routings;
};

struct BoundOutcome {
  struct Row {
    Topology topology;
    ChannelLoad load;
    Routing routing = Routing::deterministic;
  };
  std::vector<Row> rows;  ///< one per (topology, routing), topology by topology in the request's order
  EngineConfig engine;    ///< as run (cycle engine, threads resolved)
  std::string traffic;    ///< the pattern's canonical spec
  /// Per topology: to_json(ChannelLoad) with link_cycles (and router_cycles when not 0), as
  /// `rica bound --json` writes them under "bounds".
  [[nodiscard]] nlohmann::json to_json() const;
  /// The CLI's table: the header line, one line per topology, the closing line.
  [[nodiscard]] static std::string text_header();
  [[nodiscard]] std::string text_row(const Row& row) const;
  [[nodiscard]] std::string text_footer() const;
};

/// Refuses (usage_error: one line naming the parameter and what is accepted) before any work: no
/// topology, an engine setting out of range (rica::validate), --threads out of range, a topology
/// too large for memory or unknown, a pattern unknown (the nearest name suggested). Whether the
/// pattern fits each network is run()'s (its matrix is the first step of that network's row).
void validate(const Bound& request);
/// validate(), then the channel load of each topology in turn; `row` (may be empty) sees each
/// row as it is computed (the CLI prints it). Stops with rica::interrupted on Ctrl-C.
[[nodiscard]] BoundOutcome run(const Bound& request, const std::function<void(const BoundOutcome&,
                                                                               const BoundOutcome::Row&)>& row = {});

}  // namespace rica::request
