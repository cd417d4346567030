#pragma once
// `rica partition SPEC` as a library request: cut a topology into K partitions by its rule and
// verify which are closed (rica/partition.hpp, docs/partitions.md). The CLI
// (apps/cli/partition_command.cpp) parses its options into a request::Partition and presents the
// outcome; Python (rica.partition) and C++ callers give the same request and get the same checks.
// The cut is given in the CLI's words (--dims, --cut, --pairs) and parsed here, once.
//
// Thread-safety: as rica/request/embed.hpp (run() sets oneTBB's parallelism while it runs).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rica/defaults.hpp"
#include "rica/partition.hpp"

namespace rica::request {

struct Partition {
  static constexpr unsigned max_samples = 1u << 20;  ///< samples in [1, max_samples]
  std::string topology;                    ///< a topology spec (see `rica list`)
  std::uint32_t parts = 0;                 ///< K in [1, defaults::limits::parts]; 0 = implied by dims/cuts or the rule
  std::string dims;                        ///< "D" or "D:B", comma separated (parse_dim_cuts); empty: the rule's
  std::vector<std::string> cuts;           ///< "D=c1[,c2...]" each (parse_axis_cut)
  std::string pairs = "auto";              ///< auto, all or sample (PairCheck)
  unsigned samples = defaults::partition::sample_destinations;  ///< destinations per partition when sampling
  std::uint64_t seed = defaults::partition::seed;               ///< seed of the destination sample
  unsigned threads = defaults::engine::threads;                 ///< 0 = all cores; <= defaults::limits::threads
  bool routers = false;                    ///< to_json: every partition's nodes and links too
};

struct PartitionOutcome {
  Topology topology;
  PartitionPlan plan;
  bool routers = false;
  unsigned threads = 1;  ///< resolved (>= 1)
  /// The plan as `rica partition --json` writes it beside its provenance (to_json(PartitionPlan)).
  [[nodiscard]] nlohmann::json to_json() const { return rica::to_json(plan, topology, routers); }
  /// The CLI's table: one line per partition (PEs, closed or OPEN, range, outside nodes touched,
  /// up to two offending hops), then the totals.
  [[nodiscard]] std::string text() const;
};

/// "auto", "all", "sample" -> PairCheck; usage_error "--pairs 'x': valid: auto, all, sample".
[[nodiscard]] PairCheck parse_pair_check(const std::string& name);
/// Refuses (usage_error: one line naming the parameter and what is accepted) before any work: a
/// topology too large for memory or unknown (the nearest name suggested), K, --dims, --cut,
/// --pairs, --samples or --threads out of what is accepted. The rule's fit to K is run()'s.
void validate(const Partition& request);
/// validate(), then cuts and verifies (rica::partition). Stops with rica::interrupted on Ctrl-C.
[[nodiscard]] PartitionOutcome run(const Partition& request);

}  // namespace rica::request
