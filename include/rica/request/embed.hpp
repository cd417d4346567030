#pragma once
// `rica embed GUEST HOST` as a library request: the one place its checks and its run live. The CLI
// (apps/cli/embed_command.cpp) parses its options into a request::Embed and presents the outcome;
// Python (rica.embed) and C++ callers give the same request and get the same refusals.
//
// Thread-safety: run() sets oneTBB's parallelism for its duration (tbb::global_control), so two
// requests should not run at once in one process; anything else is the caller's.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/embed.hpp"

namespace rica::request {

struct Embed {
  std::string guest;                             ///< ring[:N], array[:N], tree[:H], ... (parse_guest)
  std::string host;                              ///< a topology spec (see `rica list`)
  std::string map = "auto";                      ///< auto, identity, debruijn, gray (parse_embed_map)
  bool oriented = false;                         ///< route each guest edge one way only
  std::string faults;                            ///< a fault spec (rica/faults.hpp); empty: intact host
  std::uint64_t seed = defaults::engine::seed;   ///< draws the faults
  /// map "search": guest nodes placed before the search gives up, in [1, defaults::embed::search_budget_max]
  std::uint64_t search_budget = defaults::embed::search_budget;
  /// map "search" once per single fault (faults "links=1" or "nodes=1") instead of one drawn fault
  bool every_fault = false;
  unsigned threads = 0;                          ///< worker threads, 0 = all cores; <= defaults::limits::threads
};

struct EmbedOutcome {
  EmbedResult result;
  unsigned threads = 1;  ///< resolved (>= 1)
  /// The figures as `rica embed --json` writes them beside its provenance (to_json(EmbedResult)).
  [[nodiscard]] nlohmann::json to_json() const { return rica::to_json(result); }
  /// The CLI's text: guest, host, map, faults, dilation, congestion, load, expansion (one per line).
  [[nodiscard]] std::string text() const;
};

/// Refuses (usage_error: one line naming the parameter and what is accepted) before any work: a
/// topology too large for memory, an unknown host or guest (the nearest name suggested), a map that
/// does not exist, too many threads, a search budget out of range, --every-fault without map
/// search or without exactly one link or node fault. The map's fit and the faults are checked by run().
void validate(const Embed& request);
/// validate(), then places and routes (rica::embed). Stops with rica::interrupted on Ctrl-C
/// (rica/interrupt.hpp).
[[nodiscard]] EmbedOutcome run(const Embed& request);

}  // namespace rica::request
