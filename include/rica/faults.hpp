#pragma once
// Failed links and nodes (`--faults SPEC`, docs/faults.md).
//
// SPEC is a comma list of items, each at most once:
//   links=K      K links fail, drawn at random (from the run's seed) among the links between two
//                surviving nodes; a link is every arc between its two nodes (both directions of a
//                bidirectional link; the one arc of a directed network)
//   nodes=K      K PEs fail, drawn at random (from the run's seed, after the links)
//   file:PATH    the failed links and nodes listed in PATH (format below); may be combined with
//                links= / nodes= (the random ones are drawn among the rest)
//   at=CYCLE     the faults happen at that cycle of a cycle-engine run (>= 1) instead of before
//                the run (refused with the async engine)
// e.g. "links=4", "links=4,nodes=1", "file:faults.txt,at=500".
//
// Fault file, one item per line ('#' starts a comment, blank lines ignored):
//   link U V     the link(s) between nodes U and V fail (every arc U -> V and V -> U)
//   node V       node V fails (with all its links); a failed PE neither sends nor receives
// Node ids are decimal numbers or labels as `rica route` prints them, e.g. "(3,17)". Errors name
// the file, line and field ("faults.txt:3: field 2: node 99 is not below 64").
//
// A failed PE neither sends nor receives: the traffic generators skip it as a source and as a
// destination (uniform-like patterns redraw, deterministic patterns drop the packet), and a
// packet already addressed to it when it fails is dropped by the fault.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rica/core.hpp"

namespace rica {

class Topology;

/// A parsed --faults SPEC (what to fail; not yet drawn).
struct FaultSpec {
  std::uint64_t links = 0, nodes = 0;
  std::string file;        ///< "" = none
  std::uint64_t at = 0;    ///< 0: before the run
  [[nodiscard]] bool empty() const noexcept { return links == 0 && nodes == 0 && file.empty(); }
  /// Canonical text: "file:PATH,links=K,nodes=K,at=C" (items present only).
  [[nodiscard]] std::string text() const;
};

/// The resolved faults: failed links as node pairs and failed nodes (sorted, distinct).
struct FaultSet {
  std::vector<std::pair<node_t, node_t>> links;  ///< (u, v): every arc u -> v and v -> u fails
  std::vector<node_t> nodes;
  std::uint64_t at = 0;
  std::string spec;  ///< the canonical spec it came from
  /// Failed PEs a spare took over (de Bruijn ",spares=necklace": one spare per necklace, used by
  /// the first failed PE of the necklace); they are not in `nodes`.
  std::vector<node_t> replaced;
};

/// Parses SPEC; usage_error "--faults: ..." naming the bad item and what is accepted.
FaultSpec parse_fault_spec(const std::string& spec);

/// Draws / reads the faults of `spec` on `t` with `seed` (usage_error on a malformed file, an
/// absent link, a node out of range, more links or PEs than there are).
FaultSet resolve_faults(const Topology& t, const FaultSpec& spec, std::uint64_t seed);

/// `t` with the faults of SPEC applied (a FaultyTopology), or `t` itself when SPEC is empty or
/// every failure was repaired by a spare (the network is then the intact one).
/// usage_error when the faults disconnect the surviving PEs ("PE 17 cannot reach PE 3").
Topology with_faults(const Topology& t, const std::string& spec, std::uint64_t seed);
/// The same for a spec parsed already (the CLI parses --faults once, when it reads the option).
Topology with_faults(const Topology& t, const FaultSpec& spec, std::uint64_t seed);

/// The failed nodes of `t` (empty unless t is a FaultyTopology) and the cycle they fail at
/// (0: before the run).
std::vector<node_t> failed_nodes(const Topology& t);
std::uint64_t fail_cycle(const Topology& t);

}  // namespace rica
